package links_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/smithy-go"

	"surveyservice/shared/awsenv"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const survey = 42

// b64 is the token alphabet: URL-safe base64 without padding.
var b64 = base64.RawURLEncoding

const b64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// awsConfig is a client configuration on the emulator, made as a Lambda
// container makes its own (so each has its own connection).
func awsConfig(tb testing.TB) aws.Config {
	tb.Helper()
	env := map[string]string{
		"AWS_ENDPOINT_URL": testenv.Endpoint(tb), "AWS_REGION": "us-east-1",
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
	}
	cfg, err := awsenv.Load(context.Background(), awsenv.FromEnv(func(k string) string { return env[k] }))
	if err != nil {
		tb.Fatalf("awsenv.Load: %v", err)
	}
	return cfg
}

// container is one Lambda container: its own clients and its own Sealer,
// on the table of the running top-level test.
type container struct {
	cfg    aws.Config
	kms    *kms.Client
	st     *store.Store
	sealer *links.Sealer
}

func newContainer(tb testing.TB) *container {
	tb.Helper()
	st := testenv.Store(tb)
	cfg := awsConfig(tb)
	c := &container{cfg: cfg, kms: kms.NewFromConfig(cfg), st: store.New(cfg, st.TableName())}
	c.sealer = links.NewSealer(c.kms, testenv.KMSKeyID(tb), c.st)
	return c
}

// counted returns a context that counts the AWS calls made under it.
func counted() (context.Context, *awsenv.Calls) { return awsenv.WithCalls(context.Background()) }

func rawToken(tb testing.TB, token string) []byte {
	tb.Helper()
	raw, err := b64.DecodeString(token)
	if err != nil {
		tb.Fatalf("token %q is not URL-safe base64: %v", token, err)
	}
	return raw
}

// keyIDOf is the key id a token names, in hex (bytes 1-4 of the format).
func keyIDOf(tb testing.TB, token string) string {
	return hex.EncodeToString(rawToken(tb, token)[1:5])
}

func threeVars(i int) links.Payload {
	return links.Payload{Values: []links.Value{
		str("city", []string{"Tehran", "Shiraz", "Isfahan", "Tabriz"}[i%4]),
		integer("customer_id", int64(100000+i)),
		boolean("vip", i%3 == 0),
	}}
}

func seal(tb testing.TB, ctx context.Context, s *links.Sealer, surveyID int64, ps ...links.Payload) []string {
	tb.Helper()
	toks, err := s.Seal(ctx, surveyID, ps)
	if err != nil {
		tb.Fatalf("Seal: %v", err)
	}
	if len(toks) != len(ps) {
		tb.Fatalf("Seal returned %d tokens for %d payloads", len(toks), len(ps))
	}
	return toks
}

func wantCalls(t *testing.T, what string, calls *awsenv.Calls, kmsCalls, dynamoCalls int) {
	t.Helper()
	if calls.KMS() != kmsCalls || (dynamoCalls >= 0 && calls.DynamoDB() != dynamoCalls) {
		t.Errorf("%s: %d KMS and %d DynamoDB calls %v, want %d KMS and %d DynamoDB",
			what, calls.KMS(), calls.DynamoDB(), calls.Ops(), kmsCalls, dynamoCalls)
	}
}

func wantInvalid(t *testing.T, what string, p links.Payload, err error) {
	t.Helper()
	if !errors.Is(err, links.ErrInvalid) {
		t.Errorf("%s: Open = %+v, %v; want ErrInvalid", what, p, err)
	}
}

func TestSealOpenRoundTrip(t *testing.T) {
	c := newContainer(t)
	ctx := context.Background()
	payloads := []links.Payload{threeVars(0), threeVars(1)}
	for _, tc := range roundTripCases {
		if len(tc.p.Encode()) < 4000 { // the big ones make tokens longer than a link may be
			payloads = append(payloads, tc.p)
		}
	}
	toks := seal(t, ctx, c.sealer, survey, payloads...)
	for i, tok := range toks {
		got, err := c.sealer.Open(ctx, survey, tok)
		if err != nil {
			t.Errorf("payload %d: Open = %v", i, err)
			continue
		}
		if !samePayload(got, payloads[i]) {
			t.Errorf("payload %d: opened %+v, sealed %+v", i, got, payloads[i])
		}
	}

	// Bound to the survey: no other id opens it, even one equal in its low
	// 32 bits or its absolute value.
	for _, other := range []int64{43, 41, 0, -42, 42 + 1<<32, 42 << 32, math.MinInt64, math.MaxInt64, -1} {
		p, err := c.sealer.Open(ctx, other, toks[0])
		wantInvalid(t, fmt.Sprintf("survey %d opening a token of survey %d", other, survey), p, err)
	}
	// Any survey id works for its own tokens, and only for them.
	for _, id := range []int64{0, -7, math.MaxInt64, math.MinInt64} {
		tok := seal(t, ctx, c.sealer, id, threeVars(5))[0]
		if got, err := c.sealer.Open(ctx, id, tok); err != nil || !samePayload(got, threeVars(5)) {
			t.Errorf("survey %d: Open = %+v, %v", id, got, err)
		}
		if id != survey {
			p, err := c.sealer.Open(ctx, survey, tok)
			wantInvalid(t, fmt.Sprintf("survey %d opening a token of survey %d", survey, id), p, err)
		}
	}
	if toks, err := c.sealer.Seal(ctx, survey, nil); err != nil || len(toks) != 0 {
		t.Errorf("Seal of no payloads = %v, %v; want no tokens", toks, err)
	}
}

// The contract: "authenticated (one changed character makes it invalid)".
// Every position of tokens whose byte length is 0, 1 and 2 mod 3 (so the
// last character carries 6, 2 or 4 bits) is changed to each of the 63 other
// characters of the alphabet.
func TestOpenRejectsEveryOneCharacterChange(t *testing.T) {
	c := newContainer(t)
	ctx := context.Background()
	for k := range 3 {
		p := links.Payload{Values: []links.Value{str("city", strings.Repeat("x", k))}}
		tok := seal(t, ctx, c.sealer, survey, p)[0]
		rawLen := len(rawToken(t, tok))
		t.Run(fmt.Sprintf("%d bytes, %d mod 3", rawLen, rawLen%3), func(t *testing.T) {
			if got, err := c.sealer.Open(ctx, survey, tok); err != nil || !samePayload(got, p) {
				t.Fatalf("the untouched token: Open = %+v, %v", got, err)
			}
			cctx, calls := counted()
			var accepted []string
			for i := range len(tok) {
				for _, ch := range []byte(b64Alphabet) {
					if ch == tok[i] {
						continue
					}
					changed := tok[:i] + string(ch) + tok[i+1:]
					got, err := c.sealer.Open(cctx, survey, changed)
					switch {
					case err == nil:
						accepted = append(accepted, fmt.Sprintf("position %d %q->%q opens as %+v (TokenID same: %v)",
							i, tok[i], ch, got, links.TokenID(changed) == links.TokenID(tok)))
					case !errors.Is(err, links.ErrInvalid):
						t.Errorf("position %d %q->%q: %v, want ErrInvalid", i, tok[i], ch, err)
					}
				}
			}
			if calls.KMS() != 0 {
				t.Errorf("changed tokens made %d KMS calls, want none (ops %v)", calls.KMS(), calls.Ops())
			}
			if len(accepted) > 0 {
				t.Errorf("token %s (%d chars): %d of %d one-character changes still open, want none; e.g.\n  %s",
					tok, len(tok), len(accepted), 63*len(tok), strings.Join(accepted[:min(len(accepted), 5)], "\n  "))
			}
		})
	}
	// Characters the URL-safe alphabet does not have are not part of a token
	// either: a line break inside it is another string than the one minted.
	tok := seal(t, ctx, c.sealer, survey, threeVars(0))[0]
	for _, bad := range []string{tok[:10] + "\n" + tok[10:], tok + "\r\n", tok[:20] + "\r" + tok[20:]} {
		p, err := c.sealer.Open(ctx, survey, bad)
		wantInvalid(t, fmt.Sprintf("token with a line break %q", bad), p, err)
	}
}

func TestOpenRejectsTruncations(t *testing.T) {
	c := newContainer(t)
	ctx := context.Background()
	toks := seal(t, ctx, c.sealer, survey, threeVars(0), links.Payload{}, threeVars(1))
	cctx, calls := counted()
	for _, tok := range toks {
		for i := range len(tok) {
			p, err := c.sealer.Open(cctx, survey, tok[:i])
			wantInvalid(t, fmt.Sprintf("prefix of %d of %d characters", i, len(tok)), p, err)
		}
		// and a token missing its first characters
		for i := 1; i < len(tok); i++ {
			p, err := c.sealer.Open(cctx, survey, tok[i:])
			wantInvalid(t, fmt.Sprintf("suffix from %d of %d characters", i, len(tok)), p, err)
			if t.Failed() {
				break
			}
		}
	}
	if calls.KMS() != 0 {
		t.Errorf("truncated tokens made %d KMS calls %v, want none", calls.KMS(), calls.Ops())
	}
}

func TestOpenRejectsGarbageWithoutAWSCalls(t *testing.T) {
	c := newContainer(t)
	ctx := context.Background()
	tok := seal(t, ctx, c.sealer, survey, threeVars(0))[0]
	raw := rawToken(t, tok)
	withVersion := func(v byte) string {
		r := bytes.Clone(raw)
		r[0] = v
		return b64.EncodeToString(r)
	}
	garbage := map[string]string{
		"empty":                 "",
		"x":                     "x",
		"!!!!":                  "!!!!",
		"10 KB of A":            strings.Repeat("A", 10<<10),
		"8 KiB of A":            strings.Repeat("A", 8<<10),
		"version 2 header":      withVersion(2),
		"version 0 header":      withVersion(0),
		"version 255 header":    withVersion(255),
		"padded":                tok + "=",
		"standard alphabet":     base64.StdEncoding.EncodeToString(raw) + "+/",
		"space inside":          tok[:8] + " " + tok[8:],
		"percent-escaped":       tok[:8] + "%2D" + tok[8:],
		"one byte short":        b64.EncodeToString(raw[:5+12+16+1]),
		"header and nonce only": b64.EncodeToString(raw[:5+12]),
		"length 1 mod 4":        tok[:len(tok)-len(tok)%4] + "AAAAA",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		r := make([]byte, 1+rng.IntN(120))
		for j := range r {
			r[j] = byte(rng.Uint32())
		}
		if r[0] == 1 {
			r[0] = 0x55 // version 1 would be a token of an unknown key: tested below
		}
		garbage[fmt.Sprintf("random %d (%d bytes)", i, len(r))] = b64.EncodeToString(r)
	}
	cctx, calls := counted()
	for name, g := range garbage {
		p, err := c.sealer.Open(cctx, survey, g)
		wantInvalid(t, name, p, err)
		if id := links.TokenID(g); id != "" {
			t.Errorf("%s: TokenID = %q, want \"\" for a token that does not parse", name, id)
		}
	}
	wantCalls(t, "tokens that do not parse", calls, 0, 0)
}

func TestOpenUnknownKeyID(t *testing.T) {
	c := newContainer(t)
	ctx := context.Background()
	tok := seal(t, ctx, c.sealer, survey, threeVars(0))[0]
	raw := rawToken(t, tok)
	raw[1] ^= 0xff // another key id, otherwise a well-formed token
	forged := b64.EncodeToString(raw)
	cctx, calls := counted()
	p, err := c.sealer.Open(cctx, survey, forged)
	wantInvalid(t, "token of an unknown key", p, err)
	wantCalls(t, "token of an unknown key", calls, 0, 1)

	// An unknown key id costs one read each time (the sealer does not
	// remember misses), still no KMS call.
	calls.Reset()
	for range 3 {
		p, err := c.sealer.Open(cctx, survey, forged)
		wantInvalid(t, "token of an unknown key, again", p, err)
	}
	wantCalls(t, "three opens of an unknown key", calls, 0, 3)
}

// Two containers on one table: the second opens the first's links with one
// KMS Decrypt of the data key, then none.
func TestTwoContainersShareKeys(t *testing.T) {
	a, b := newContainer(t), newContainer(t)
	ctx := context.Background()
	payloads := make([]links.Payload, 10)
	for i := range payloads {
		payloads[i] = threeVars(i)
	}
	toks := seal(t, ctx, a.sealer, survey, payloads...)

	cctx, calls := counted()
	got, err := b.sealer.Open(cctx, survey, toks[0])
	if err != nil || !samePayload(got, payloads[0]) {
		t.Fatalf("container b: Open = %+v, %v", got, err)
	}
	wantCalls(t, "first open in container b", calls, 1, 1)
	if ops := calls.Ops(); ops["KMS.Decrypt"] != 1 {
		t.Errorf("first open in container b: ops %v, want one KMS.Decrypt", ops)
	}
	calls.Reset()
	for i, tok := range toks[1:] {
		got, err := b.sealer.Open(cctx, survey, tok)
		if err != nil || !samePayload(got, payloads[i+1]) {
			t.Errorf("container b: Open token %d = %+v, %v", i+1, got, err)
		}
	}
	wantCalls(t, "nine more opens in container b", calls, 0, 0)

	// b now holds the current key: sealing reads the pointer, no KMS.
	calls.Reset()
	btoks := seal(t, cctx, b.sealer, survey, payloads...)
	wantCalls(t, "container b sealing after it opened the current key", calls, 0, 1)
	if keyIDOf(t, btoks[0]) != keyIDOf(t, toks[0]) {
		t.Errorf("container b sealed under key %s, the current key is %s", keyIDOf(t, btoks[0]), keyIDOf(t, toks[0]))
	}
	calls.Reset()
	for i, tok := range btoks {
		if got, err := a.sealer.Open(cctx, survey, tok); err != nil || !samePayload(got, payloads[i]) {
			t.Errorf("container a: Open of b's token %d = %+v, %v", i, got, err)
		}
	}
	wantCalls(t, "container a opening b's tokens", calls, 0, 0)

	// A third container that seals first: one Decrypt, one read.
	c3 := newContainer(t)
	calls.Reset()
	seal(t, cctx, c3.sealer, survey, payloads...)
	wantCalls(t, "container c sealing first", calls, 1, 1)
	calls.Reset()
	for _, tok := range toks {
		if _, err := c3.sealer.Open(cctx, survey, tok); err != nil {
			t.Errorf("container c: Open = %v", err)
		}
	}
	wantCalls(t, "container c opening a's tokens", calls, 0, 0)
}

func TestKMSCallsPerSeal(t *testing.T) {
	s1 := newContainer(t)
	ctx, calls := counted()

	// A fresh table has no current key: one GenerateDataKey.
	seal(t, ctx, s1.sealer, survey, threeVars(0), threeVars(1))
	t.Logf("first seal on a fresh table: %v", calls.Ops())
	wantCalls(t, "first seal on a fresh table", calls, 1, -1)
	if ops := calls.Ops(); ops["KMS.GenerateDataKey"] != 1 {
		t.Errorf("first seal on a fresh table: ops %v, want one KMS.GenerateDataKey", ops)
	}
	if calls.DynamoDB() > 3 {
		t.Errorf("first seal on a fresh table: %d DynamoDB calls %v, want at most 3 (read the pointer, put the key, put the pointer)",
			calls.DynamoDB(), calls.Ops())
	}

	// Warm: nothing.
	calls.Reset()
	for i := range 5 {
		seal(t, ctx, s1.sealer, survey, threeVars(i))
	}
	wantCalls(t, "warm seals", calls, 0, 0)

	// A fresh container with a fresh current key in the table: one read,
	// one Decrypt.
	s2 := newContainer(t)
	calls.Reset()
	seal(t, ctx, s2.sealer, survey, threeVars(0))
	wantCalls(t, "fresh container sealing", calls, 1, 1)
	if ops := calls.Ops(); ops["KMS.Decrypt"] != 1 || ops["DynamoDB.GetItem"] != 1 {
		t.Errorf("fresh container sealing: ops %v, want KMS.Decrypt and DynamoDB.GetItem once each", ops)
	}
	calls.Reset()
	seal(t, ctx, s2.sealer, survey, threeVars(1))
	wantCalls(t, "fresh container sealing again", calls, 0, 0)
}

// Many requests at once on a cold container cost one KMS call in all.
func TestConcurrentColdSealsMakeOneKMSCall(t *testing.T) {
	c := newContainer(t)
	ctx, calls := counted()
	var wg sync.WaitGroup
	toks := make([][]string, 8)
	for g := range toks {
		wg.Go(func() {
			ts, err := c.sealer.Seal(ctx, survey, []links.Payload{threeVars(g)})
			if err != nil {
				t.Errorf("Seal: %v", err)
				return
			}
			toks[g] = ts
			if p, err := c.sealer.Open(ctx, survey, ts[0]); err != nil || !samePayload(p, threeVars(g)) {
				t.Errorf("Open = %+v, %v", p, err)
			}
		})
	}
	wg.Wait()
	wantCalls(t, "8 concurrent seals on a cold container and a fresh table", calls, 1, -1)
	for _, ts := range toks[1:] {
		if len(ts) == 1 && len(toks[0]) == 1 && keyIDOf(t, ts[0]) != keyIDOf(t, toks[0][0]) {
			t.Errorf("concurrent seals used two keys: %s and %s", keyIDOf(t, ts[0]), keyIDOf(t, toks[0][0]))
		}
	}
}

func getItem(t *testing.T, st *store.Store, pk, sk string) map[string]ddbtypes.AttributeValue {
	t.Helper()
	out, err := st.Client().GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName:      aws.String(st.TableName()),
		Key:            map[string]ddbtypes.AttributeValue{"PK": &ddbtypes.AttributeValueMemberS{Value: pk}, "SK": &ddbtypes.AttributeValueMemberS{Value: sk}},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatalf("GetItem %s/%s: %v", pk, sk, err)
	}
	return out.Item
}

func attrS(item map[string]ddbtypes.AttributeValue, name string) string {
	if v, ok := item[name].(*ddbtypes.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func currentKeyID(t *testing.T, st *store.Store) string {
	t.Helper()
	return attrS(getItem(t, st, "DATAKEY", "CURRENT"), "key_id")
}

func TestRotation(t *testing.T) {
	c := newContainer(t)
	ctx, calls := counted()
	old := seal(t, ctx, c.sealer, survey, threeVars(0), threeVars(1))
	kid1 := keyIDOf(t, old[0])
	if cur := currentKeyID(t, c.st); cur != kid1 {
		t.Fatalf("current key %q, the sealer used %s", cur, kid1)
	}

	// 23 hours later the key is still current.
	c.sealer.Now = func() time.Time { return time.Now().Add(23 * time.Hour) }
	calls.Reset()
	if tok := seal(t, ctx, c.sealer, survey, threeVars(2))[0]; keyIDOf(t, tok) != kid1 {
		t.Errorf("23 hours on, the sealer moved to key %s", keyIDOf(t, tok))
	}
	wantCalls(t, "seal 23 hours on", calls, 0, 0)

	// 25 hours later the next seal makes a new key, and only one.
	c.sealer.Now = func() time.Time { return time.Now().Add(25 * time.Hour) }
	calls.Reset()
	fresh := seal(t, ctx, c.sealer, survey, threeVars(3))
	t.Logf("rotating seal: %v", calls.Ops())
	wantCalls(t, "seal 25 hours on", calls, 1, -1)
	if ops := calls.Ops(); ops["KMS.GenerateDataKey"] != 1 {
		t.Errorf("seal 25 hours on: ops %v, want one KMS.GenerateDataKey", ops)
	}
	kid2 := keyIDOf(t, fresh[0])
	if kid2 == kid1 {
		t.Fatalf("25 hours on, the sealer still seals under key %s", kid1)
	}
	if cur := currentKeyID(t, c.st); cur != kid2 {
		t.Errorf("after rotation the current key is %q, want %s", cur, kid2)
	}
	calls.Reset()
	if tok := seal(t, ctx, c.sealer, survey, threeVars(4))[0]; keyIDOf(t, tok) != kid2 {
		t.Errorf("after rotation the sealer sealed under %s, want %s", keyIDOf(t, tok), kid2)
	}
	wantCalls(t, "seal after rotation", calls, 0, 0)

	// Old links keep opening, in this container (no call) and in a new one
	// (one Decrypt per key).
	calls.Reset()
	for i, tok := range old {
		if p, err := c.sealer.Open(ctx, survey, tok); err != nil || !samePayload(p, threeVars(i)) {
			t.Errorf("old token %d after rotation: Open = %+v, %v", i, p, err)
		}
	}
	wantCalls(t, "opening old tokens in the rotating container", calls, 0, 0)

	later := newContainer(t)
	later.sealer.Now = c.sealer.Now
	calls.Reset()
	if tok := seal(t, ctx, later.sealer, survey, threeVars(5))[0]; keyIDOf(t, tok) != kid2 {
		t.Errorf("a new container seals under %s, want the current %s", keyIDOf(t, tok), kid2)
	}
	wantCalls(t, "a new container sealing after rotation", calls, 1, 1)
	calls.Reset()
	for i, tok := range old {
		if p, err := later.sealer.Open(ctx, survey, tok); err != nil || !samePayload(p, threeVars(i)) {
			t.Errorf("old token %d in a new container: Open = %+v, %v", i, p, err)
		}
	}
	wantCalls(t, "a new container opening two tokens of the old key", calls, 1, 1)

	// Another day on, the next rotation replaces the second key.
	later.sealer.Now = func() time.Time { return time.Now().Add(50 * time.Hour) }
	calls.Reset()
	third := seal(t, ctx, later.sealer, survey, threeVars(6))
	kid3 := keyIDOf(t, third[0])
	if kid3 == kid1 || kid3 == kid2 {
		t.Errorf("50 hours on, the sealer seals under an old key %s", kid3)
	}
	wantCalls(t, "second rotation", calls, 1, -1)
	if cur := currentKeyID(t, c.st); cur != kid3 {
		t.Errorf("after the second rotation the current key is %q, want %s", cur, kid3)
	}
	for _, tok := range append(append(old, fresh...), third...) {
		if _, err := later.sealer.Open(ctx, survey, tok); err != nil {
			t.Errorf("after two rotations, a token of key %s: %v", keyIDOf(t, tok), err)
		}
	}
}

// The table keeps the data keys only as KMS wrapped them.
func TestTableNeverHoldsPlaintextKey(t *testing.T) {
	c := newContainer(t)
	ctx := context.Background()
	tok := seal(t, ctx, c.sealer, survey, threeVars(0))[0]
	c.sealer.Now = func() time.Time { return time.Now().Add(25 * time.Hour) }
	tok2 := seal(t, ctx, c.sealer, survey, threeVars(1))[0]

	// The test unwraps the keys itself (the emulator's key allows it) to
	// look for their plaintext in the table.
	var plaintexts [][]byte
	for _, tk := range []string{tok, tok2} {
		kid := keyIDOf(t, tk)
		item := getItem(t, c.st, "DATAKEY#"+kid, "DATAKEY")
		if item == nil {
			t.Fatalf("no item DATAKEY#%s", kid)
		}
		var names []string
		for n := range item {
			names = append(names, n)
		}
		// put_token is the random token of the write that stored it (so that
		// a retried write knows its own item), unrelated to the key.
		if len(item) != 6 || item["PK"] == nil || item["SK"] == nil || item["key_id"] == nil || item["wrapped"] == nil || item["created"] == nil || item["put_token"] == nil {
			t.Errorf("DATAKEY#%s has attributes %v, want exactly PK, SK, key_id, wrapped, created, put_token", kid, names)
		}
		if got := attrS(item, "key_id"); got != kid {
			t.Errorf("DATAKEY#%s: key_id %q", kid, got)
		}
		if _, err := time.Parse(time.RFC3339Nano, attrS(item, "created")); err != nil {
			t.Errorf("DATAKEY#%s: created %q: %v", kid, attrS(item, "created"), err)
		}
		w, ok := item["wrapped"].(*ddbtypes.AttributeValueMemberB)
		if !ok {
			t.Fatalf("DATAKEY#%s: wrapped is %T, want binary", kid, item["wrapped"])
		}
		if len(w.Value) <= 32 {
			t.Errorf("DATAKEY#%s: wrapped is %d bytes, a bare AES-256 key would be 32", kid, len(w.Value))
		}
		out, err := c.kms.Decrypt(ctx, &kms.DecryptInput{CiphertextBlob: w.Value, EncryptionContext: links.EncryptionContext})
		if err != nil {
			t.Fatalf("KMS Decrypt of DATAKEY#%s: %v", kid, err)
		}
		if len(out.Plaintext) != 32 {
			t.Errorf("DATAKEY#%s unwraps to %d bytes, want an AES-256 key", kid, len(out.Plaintext))
		}
		plaintexts = append(plaintexts, out.Plaintext)
		if _, err := c.kms.Decrypt(ctx, &kms.DecryptInput{CiphertextBlob: w.Value}); err == nil {
			t.Logf("note: the emulator unwraps DATAKEY#%s without the encryption context (AWS KMS would not)", kid)
		}

		// The documented format, checked with the bare key: version 1,
		// key id, 12-byte nonce, AES-256-GCM with the header and the
		// survey id as associated data.
		raw := rawToken(t, tk)
		block, err := aes.NewCipher(out.Plaintext)
		if err != nil {
			t.Fatal(err)
		}
		gcm, err := cipher.NewGCM(block)
		if err != nil {
			t.Fatal(err)
		}
		ad := binary.BigEndian.AppendUint64(append(bytes.Clone(raw[:5]), "survey-links/v1/survey:"...), survey)
		plain, err := gcm.Open(nil, raw[5:17], raw[17:], ad)
		if err != nil {
			t.Errorf("the token does not open with its data key as documented: %v", err)
		} else if p, err := links.DecodePayload(plain); err != nil || len(p.Values) != 3 {
			t.Errorf("the token's plaintext decodes to %+v, %v", p, err)
		}
	}
	cur := getItem(t, c.st, "DATAKEY", "CURRENT")
	if len(cur) != 5 || cur["wrapped"] == nil || cur["key_id"] == nil || cur["created"] == nil {
		t.Errorf("DATAKEY/CURRENT has %d attributes, want PK, SK, key_id, wrapped, created", len(cur))
	}

	// Nothing in the table holds a plaintext key, raw, hex or base64.
	out, err := c.st.Client().Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(c.st.TableName()), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	for _, item := range out.Items {
		for name, v := range item {
			var b []byte
			switch v := v.(type) {
			case *ddbtypes.AttributeValueMemberB:
				b = v.Value
			case *ddbtypes.AttributeValueMemberS:
				b = []byte(v.Value)
			default:
				continue
			}
			for _, pt := range plaintexts {
				for _, form := range [][]byte{pt, []byte(hex.EncodeToString(pt)), []byte(base64.StdEncoding.EncodeToString(pt)), []byte(b64.EncodeToString(pt))} {
					if bytes.Contains(b, form) {
						t.Errorf("item %s/%s attribute %s holds a plaintext data key", attrS(item, "PK"), attrS(item, "SK"), name)
					}
				}
			}
		}
	}
	t.Logf("%d items in the table, wrapped keys checked against %d plaintext keys", len(out.Items), len(plaintexts))
}

func TestTokenID(t *testing.T) {
	c := newContainer(t)
	ctx := context.Background()
	payloads := make([]links.Payload, 1000)
	for i := range payloads {
		payloads[i] = threeVars(i)
	}
	toks := seal(t, ctx, c.sealer, survey, payloads...)
	seen := map[string]int{}
	for i, tok := range toks {
		id := links.TokenID(tok)
		if id != links.TokenID(tok) {
			t.Fatalf("TokenID is not stable for token %d", i)
		}
		if want := hex.EncodeToString(rawToken(t, tok)[5:17]); id != want {
			t.Fatalf("TokenID = %q, want the nonce %s", id, want)
		}
		if j, dup := seen[id]; dup {
			t.Fatalf("tokens %d and %d have the same TokenID %s", j, i, id)
		}
		seen[id] = i
	}
	for _, g := range []string{"", "x", "!!!!", strings.Repeat("A", 100)} {
		if id := links.TokenID(g); id != "" {
			t.Errorf("TokenID(%.20q) = %q, want \"\"", g, id)
		}
	}
}

func TestTokensOfOnePayloadAreDistinct(t *testing.T) {
	c := newContainer(t)
	ctx := context.Background()
	payloads := make([]links.Payload, 1000)
	for i := range payloads {
		payloads[i] = threeVars(7)
	}
	toks := seal(t, ctx, c.sealer, survey, payloads...)
	seen := map[string]bool{}
	nonces := map[string]bool{}
	for i, tok := range toks {
		if seen[tok] {
			t.Fatalf("token %d repeats an earlier token", i)
		}
		seen[tok] = true
		nonces[string(rawToken(t, tok)[5:17])] = true
		if p, err := c.sealer.Open(ctx, survey, tok); err != nil || !samePayload(p, payloads[i]) {
			t.Fatalf("token %d: Open = %+v, %v", i, p, err)
		}
	}
	if len(nonces) != len(toks) {
		t.Errorf("%d tokens share %d nonces", len(toks), len(nonces))
	}
}

func TestTokenLengths(t *testing.T) {
	c := newContainer(t)
	ctx := context.Background()
	one := links.Payload{Values: []links.Value{str("city", "Tehran")}}
	three := links.Payload{Values: []links.Value{
		str("first_name", "Maryam"), integer("customer_id", 4827193), str("city", "Tehran"),
	}}
	ten := links.Payload{Unique: true, Values: []links.Value{
		str("first_name", "Maryam"), str("last_name", "Karimi"), integer("customer_id", 4827193),
		str("email", "maryam.karimi@example.com"), str("city", "تهران"), integer("order_id", 98765432),
		num("order_total", "1249.90"), boolean("vip", true), str("branch", "Vanak Square"), str("campaign", "spring-2025-nps"),
	}}
	toks := seal(t, ctx, c.sealer, survey, one, three, ten)
	for i, n := range []int{1, 3, 10} {
		p := []links.Payload{one, three, ten}[i]
		url := "https://survey.example.com/s/aB3dE9/?qs=" + toks[i]
		t.Logf("%2d variables: payload %3d bytes, token %3d characters, URL %3d characters", n, len(p.Encode()), len(toks[i]), len(url))
	}
	if len(toks[1]) >= 200 {
		t.Errorf("a three-variable token has %d characters, want fewer than 200", len(toks[1]))
	}
}

// TestTokenLenIsExact: the token length known before sealing is the sealed
// token's (the personalised links route refuses on it).
func TestTokenLenIsExact(t *testing.T) {
	c := newContainer(t)
	var ps []links.Payload
	for n := range 40 { // every residue of base64's 3-byte groups, many times
		ps = append(ps, links.Payload{Unique: n%2 == 0, Values: []links.Value{str("city", strings.Repeat("é", n)), integer("id", int64(n)<<(n%60))}})
	}
	ps = append(ps, links.Payload{}, links.Payload{Values: []links.Value{str("big", strings.Repeat("x", 70000))}})
	toks := seal(t, context.Background(), c.sealer, survey, ps...)
	for i, p := range ps {
		if got := links.TokenLen(p); got != len(toks[i]) {
			t.Errorf("payload %d: TokenLen %d, token %d characters", i, got, len(toks[i]))
		}
	}
}

// Whatever Seal returns must open: a link the service mints and then
// answers "Invalid link." for is lost. Either Seal refuses the payload or
// Open returns it. The payloads are within the contract: numbers of any
// length, up to 100 variables of up to 500 characters.
func TestEverySealedTokenOpens(t *testing.T) {
	c := newContainer(t)
	ctx := context.Background()
	manyLong := links.Payload{}
	for i := range 20 {
		manyLong.Values = append(manyLong.Values, str(fmt.Sprintf("answer_%02d", i), strings.Repeat("a", 500)))
	}
	manyShort := links.Payload{}
	for i := range 100 {
		manyShort.Values = append(manyShort.Values, str(fmt.Sprintf("variable_%03d", i), "value"))
	}
	// The most a request can put in one link: 100 variables whose names
	// are 100 four-byte letters, each with 500 four-byte characters.
	largest := links.Payload{Unique: true}
	for i := range 100 {
		largest.Values = append(largest.Values, str(strings.Repeat("𝔸", 97)+fmt.Sprintf("%03d", i), strings.Repeat("😀", 500)))
	}
	pi := "3.141592653589793238462643383279502884197169399375105820974944592307816406286"
	cases := map[string]links.Payload{
		fmt.Sprintf("number text of %d characters", len(pi)): {Values: []links.Value{num("pi", pi)}},
		"number text of 400 characters":                      {Values: []links.Value{num("n", "-0."+strings.Repeat("9", 397))}},
		"20 variables of 500 characters":                     manyLong,
		"100 variables of 5 characters":                      manyShort,
		"100 variables of 500 four-byte characters":          largest,
	}
	for name, p := range cases {
		toks, err := c.sealer.Seal(ctx, survey, []links.Payload{p})
		if err != nil {
			t.Logf("%s: Seal refuses it: %v", name, err)
			continue
		}
		t.Logf("%s: payload %d bytes, token %d characters", name, len(p.Encode()), len(toks[0]))
		got, err := c.sealer.Open(ctx, survey, toks[0])
		if err != nil || !samePayload(got, p) {
			t.Errorf("%s: Seal made a token of %d characters (payload %d bytes) that does not open: Open = %v",
				name, len(toks[0]), len(p.Encode()), err)
		}
	}
}

func TestStoreErrorsPassThrough(t *testing.T) {
	cfg := awsConfig(t)
	missing := store.New(cfg, "no-such-table-"+fmt.Sprint(time.Now().UnixNano()))
	s := links.NewSealer(kms.NewFromConfig(cfg), testenv.KMSKeyID(t), missing)
	ctx := context.Background()
	if _, err := s.Seal(ctx, survey, []links.Payload{threeVars(0)}); err == nil || errors.Is(err, links.ErrInvalid) {
		t.Errorf("Seal on a missing table = %v, want the store's error", err)
	}
	raw := make([]byte, 5+12+16+3)
	raw[0] = 1
	raw[2] = 7
	_, err := s.Open(ctx, survey, b64.EncodeToString(raw))
	var oe *smithy.OperationError
	if err == nil || errors.Is(err, links.ErrInvalid) || !errors.As(err, &oe) {
		t.Errorf("Open on a missing table = %v, want the store's error, not ErrInvalid", err)
	}
}

func TestKMSErrorsPassThrough(t *testing.T) {
	c := newContainer(t)
	s := links.NewSealer(c.kms, "alias/no-such-key", c.st)
	ctx := context.Background()
	_, err := s.Seal(ctx, survey, []links.Payload{threeVars(0)})
	var oe *smithy.OperationError
	if err == nil || errors.Is(err, links.ErrInvalid) || !errors.As(err, &oe) {
		t.Errorf("Seal with an unknown KMS key = %v, want the KMS error", err)
	}
}
