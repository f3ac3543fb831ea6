package links_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/smithy-go"

	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
)

// FuzzDecodePayload: DecodePayload never panics, a payload it accepts has
// at most one value per 3 input bytes (so it allocates in proportion to
// its input), and the encoding is canonical: whatever decodes re-encodes
// to exactly its input.
func FuzzDecodePayload(f *testing.F) {
	for _, tc := range roundTripCases {
		if enc := tc.p.Encode(); len(enc) < 4096 {
			f.Add(enc)
		}
	}
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff})
	f.Add([]byte{0, 1, 1, 'n', byte(links.KindNumber), 3, '1', 'e', '9'})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := links.DecodePayload(b)
		if err != nil {
			if !bytes.Contains([]byte(err.Error()), []byte("malformed")) {
				t.Fatalf("DecodePayload(% x) = %v, want the malformed-payload error", b, err)
			}
			return
		}
		if len(p.Values) > len(b)/3 {
			t.Fatalf("%d input bytes decoded to %d values", len(b), len(p.Values))
		}
		if enc := p.Encode(); !bytes.Equal(enc, b) {
			t.Fatalf("DecodePayload(% x) = %+v, which encodes as % x: not canonical", b, p, enc)
		}
	})
}

// fuzzOpenEnv carries the coordinator's emulator, table and tokens to the
// fuzz workers. `go test -fuzz` runs the target in worker processes of
// their own, each with its own moto (testenv.Main), where the coordinator's
// seed tokens would name unknown keys; with this the workers are more
// containers on the coordinator's table instead, as in production.
const fuzzOpenEnv = "SURVEYSERVICE_LINKS_FUZZOPEN"

type fuzzOpenSetup struct {
	Endpoint string      `json:"endpoint"`
	Key      string      `json:"key"` // the access key: its DynamoDB Local database
	Table    string      `json:"table"`
	KMSKey   string      `json:"kms_key"`
	Tokens   []fuzzToken `json:"tokens"`
}

type fuzzToken struct {
	Token   string `json:"token"`
	Survey  int64  `json:"survey"`
	Payload []byte `json:"payload"` // encoded
}

// FuzzOpen: Open never panics; it fails with ErrInvalid or an AWS error
// (store, KMS), never another error; a token that does not parse costs no
// AWS call and an unknown key no KMS call; it succeeds exactly for the
// tokens sealed for the survey (the very strings: another string that
// decodes to the same bytes is a changed token), and then returns that
// token's payload.
func FuzzOpen(f *testing.F) {
	var setup fuzzOpenSetup
	if env := os.Getenv(fuzzOpenEnv); env != "" {
		if err := json.Unmarshal([]byte(env), &setup); err != nil {
			f.Fatalf("%s: %v", fuzzOpenEnv, err)
		}
	} else {
		c := newContainer(f)
		ctx := context.Background()
		setup = fuzzOpenSetup{Endpoint: testenv.Endpoint(f), Key: testenv.AccessKey(f), Table: c.st.TableName(), KMSKey: testenv.KMSKeyID(f)}
		add := func(surveyID int64, ps ...links.Payload) {
			for i, tok := range seal(f, ctx, c.sealer, surveyID, ps...) {
				setup.Tokens = append(setup.Tokens, fuzzToken{Token: tok, Survey: surveyID, Payload: ps[i].Encode()})
			}
		}
		small := []links.Payload{
			threeVars(0), threeVars(1), {}, {Unique: true},
			{Unique: true, Values: []links.Value{str("شهر", "تهران"), num("score", "-2e10"), integer("min", -1<<63)}},
		}
		add(survey, small...)
		add(43, threeVars(0))
		c.sealer.Now = func() time.Time { return time.Now().Add(25 * time.Hour) } // a second key
		add(survey, threeVars(2), links.Payload{Values: []links.Value{str("city", "x")}})
		add(-survey, threeVars(2))
		b, err := json.Marshal(setup)
		if err != nil {
			f.Fatal(err)
		}
		f.Setenv(fuzzOpenEnv, string(b))
	}

	env := map[string]string{"AWS_ENDPOINT_URL": setup.Endpoint, "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": setup.Key, "AWS_SECRET_ACCESS_KEY": "test"}
	cfg, err := localaws.Load(context.Background(), awsenv.FromEnv(func(k string) string { return env[k] }))
	if err != nil {
		f.Fatal(err)
	}
	sealer := links.NewSealer(kms.NewFromConfig(cfg), setup.KMSKey, store.New(cfg, setup.Table))

	sealed := map[string]links.Payload{} // token → payload, for this survey
	known := map[string]bool{}           // raw key ids
	for _, tk := range setup.Tokens {
		raw, err := b64.DecodeString(tk.Token)
		if err != nil {
			f.Fatal(err)
		}
		known[string(raw[1:5])] = true
		if tk.Survey == survey {
			p, err := links.DecodePayload(tk.Payload)
			if err != nil {
				f.Fatal(err)
			}
			sealed[tk.Token] = p
		}
		f.Add(tk.Token)
		f.Add(tk.Token[:len(tk.Token)-1])
		f.Add(tk.Token[1:])
	}
	tok := setup.Tokens[0].Token
	for _, s := range []string{"", "x", "!!!!", "AAAA", tok + "A", tok[:9] + "_" + tok[10:], "Ag" + tok[2:]} {
		f.Add(s)
	}

	kids := make([]string, 0, len(known))
	for k := range known {
		kids = append(kids, k)
	}
	sort.Strings(kids)

	f.Fuzz(func(t *testing.T, token string) {
		// The documented format, read here independently: version 1,
		// 4-byte key id, 12-byte nonce, at least a 16-byte tag.
		raw, decErr := b64.DecodeString(token)
		parses := decErr == nil && len(raw) >= 1+4+12+16 && raw[0] == 1
		// An unknown key id costs a DynamoDB read (moto answers ~150 a
		// second): 15 of 16 such inputs are moved to a known key id, so
		// that the mutations exercise the cipher, not the emulator.
		if h := fnv.New32a(); parses && !known[string(raw[1:5])] {
			h.Write([]byte(token))
			if sum := h.Sum32(); sum%16 != 0 {
				copy(raw[1:5], kids[int(sum/16)%len(kids)])
				token = b64.EncodeToString(raw)
			}
		}
		knownKey := parses && known[string(raw[1:5])]

		ctx, calls := awsenv.WithCalls(context.Background())
		p, err := sealer.Open(ctx, survey, token)

		if !parses && calls.KMS()+calls.DynamoDB() > 0 {
			t.Fatalf("Open(%q) does not parse but made AWS calls %v", token, calls.Ops())
		}
		if !knownKey && calls.KMS() > 0 {
			t.Fatalf("Open(%q) names no known key but made KMS calls %v", token, calls.Ops())
		}
		want, isSealed := sealed[token]
		if err == nil {
			if !isSealed {
				t.Fatalf("Open(%q) = %+v: opened a string that is no token sealed for survey %d", token, p, survey)
			}
			if !samePayload(p, want) {
				t.Fatalf("Open(%q) = %+v, sealed %+v", token, p, want)
			}
			return
		}
		var oe *smithy.OperationError
		if !errors.Is(err, links.ErrInvalid) && !errors.As(err, &oe) {
			t.Fatalf("Open(%q) = %v: neither ErrInvalid nor an AWS error", token, err)
		}
		if isSealed && errors.Is(err, links.ErrInvalid) {
			t.Fatalf("Open(%q) = %v for a sealed token", token, err)
		}
	})
}
