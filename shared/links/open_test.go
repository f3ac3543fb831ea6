package links_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"surveyservice/shared/links"
)

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
