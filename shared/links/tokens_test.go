package links_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"surveyservice/shared/links"
)

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
