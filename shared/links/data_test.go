package links_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"surveyservice/shared/links"
)

// TestSealData: sealed data opens for its domain and survey only; a link
// never opens as data nor data as a link; a changed character never opens;
// a warm sealer makes no AWS call.
func TestSealData(t *testing.T) {
	c := newContainer(t)
	ctx := context.Background()
	const domain, other = "test-cursor/v1", "test-session/v1"
	data := []byte("position 1234")
	token, err := c.sealer.SealData(ctx, domain, survey, data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.sealer.OpenData(ctx, domain, survey, token)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("OpenData = %q, %v; want %q", got, err, data)
	}
	cctx, calls := counted()
	again, err := c.sealer.SealData(cctx, domain, survey, data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.sealer.OpenData(cctx, domain, survey, again); err != nil {
		t.Fatal(err)
	}
	if calls.DynamoDB()+calls.KMS() != 0 {
		t.Errorf("a warm seal and open made %d DynamoDB and %d KMS calls, want none", calls.DynamoDB(), calls.KMS())
	}
	if again == token {
		t.Error("two seals of the same data are the same token (nonce reused)")
	}
	link, err := c.sealer.Seal(ctx, survey, []links.Payload{{Values: []links.Value{{Name: "n", Kind: links.KindString, Str: "position 1234"}}}})
	if err != nil {
		t.Fatal(err)
	}
	flipped := []byte(token)
	flipped[len(flipped)/2] ^= 1
	if flipped[len(flipped)/2] == '`' || flipped[len(flipped)/2] == ',' {
		flipped[len(flipped)/2] = 'A'
	}
	for name, open := range map[string]func() ([]byte, error){
		"another survey":      func() ([]byte, error) { return c.sealer.OpenData(ctx, domain, survey+1, token) },
		"another domain":      func() ([]byte, error) { return c.sealer.OpenData(ctx, other, survey, token) },
		"a link as data":      func() ([]byte, error) { return c.sealer.OpenData(ctx, domain, survey, link[0]) },
		"a changed character": func() ([]byte, error) { return c.sealer.OpenData(ctx, domain, survey, string(flipped)) },
		"truncated":           func() ([]byte, error) { return c.sealer.OpenData(ctx, domain, survey, token[:len(token)-2]) },
		"garbage":             func() ([]byte, error) { return c.sealer.OpenData(ctx, domain, survey, "not a token") },
		"data as a link": func() ([]byte, error) {
			_, err := c.sealer.Open(ctx, survey, token)
			return nil, err
		},
	} {
		if _, err := open(); !errors.Is(err, links.ErrInvalid) {
			t.Errorf("%s: err %v, want ErrInvalid", name, err)
		}
	}
	if _, err := c.sealer.SealData(ctx, domain, survey, []byte{1}); err == nil {
		t.Error("SealData of 1 byte: no error")
	}
}
