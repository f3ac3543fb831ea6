package links_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"

	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
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
		"AWS_ACCESS_KEY_ID": testenv.AccessKey(tb), "AWS_SECRET_ACCESS_KEY": "test",
	}
	cfg, err := localaws.Load(context.Background(), awsenv.FromEnv(func(k string) string { return env[k] }))
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

// TestSealEach: the tokens handed out one by one open as Seal's do, each
// with its own payload, a fresh nonce each, of TokenLen's length.
func TestSealEach(t *testing.T) {
	c := newContainer(t)
	ctx := context.Background()
	payloads := []links.Payload{threeVars(0), threeVars(1), threeVars(2), {}}
	var toks []string
	err := c.sealer.SealEach(ctx, survey, payloads, func(i int, token []byte) {
		if i != len(toks) {
			t.Errorf("token %d handed out as %d", len(toks), i)
		}
		if len(token) != links.TokenLen(payloads[i]) {
			t.Errorf("token %d: %d bytes, TokenLen %d", i, len(token), links.TokenLen(payloads[i]))
		}
		toks = append(toks, string(token)) // the bytes are the sealer's buffer: copy
	})
	if err != nil || len(toks) != len(payloads) {
		t.Fatalf("SealEach: %d tokens, %v", len(toks), err)
	}
	seen := map[string]bool{}
	for i, tok := range toks {
		got, err := c.sealer.Open(ctx, survey, tok)
		if err != nil || !samePayload(got, payloads[i]) {
			t.Errorf("token %d: Open = %+v, %v; want %+v", i, got, err, payloads[i])
		}
		if id := links.TokenID(tok); seen[id] {
			t.Errorf("token %d reuses a nonce", i)
		} else {
			seen[id] = true
		}
	}
}
