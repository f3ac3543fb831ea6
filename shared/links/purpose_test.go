package links_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"surveyservice/shared/links"
)

// TestPurposesKeepTokensApart: a token opens only for the purpose and the
// survey it was sealed for. A personalised link never opens as a session,
// nor a session as a link, though both are sealed under the same data key;
// a warm container seals and opens either without any AWS call.
func TestPurposesKeepTokensApart(t *testing.T) {
	c := newContainer(t)
	ctx := context.Background()
	plain := []byte("a session's bytes")
	session, err := c.sealer.SealFor(ctx, links.PurposeSession, survey, plain)
	if err != nil {
		t.Fatal(err)
	}
	link := seal(t, ctx, c.sealer, survey, threeVars(1))[0]
	if keyIDOf(t, session) != keyIDOf(t, link) {
		t.Errorf("the session and the link are under different data keys")
	}

	ctx, calls := counted()
	got, err := c.sealer.OpenFor(ctx, links.PurposeSession, survey, session)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("OpenFor(session) = %q, %v; want %q", got, err, plain)
	}
	if _, err := c.sealer.SealFor(ctx, links.PurposeSession, survey, plain); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, "warm session seal and open", calls, 0, 0)

	cases := []struct {
		name string
		open func() error
	}{
		{"session as a link", func() error { _, err := c.sealer.Open(ctx, survey, session); return err }},
		{"link as a session", func() error { _, err := c.sealer.OpenFor(ctx, links.PurposeSession, survey, link); return err }},
		{"session of another survey", func() error { _, err := c.sealer.OpenFor(ctx, links.PurposeSession, survey+1, session); return err }},
		{"session under another purpose", func() error {
			_, err := c.sealer.OpenFor(ctx, links.Purpose("survey-cursors/v1/survey:"), survey, session)
			return err
		}},
	}
	for _, tc := range cases {
		if err := tc.open(); !errors.Is(err, links.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", tc.name, err)
		}
	}
	if links.TokenID(session) == "" || links.TokenID(session) == links.TokenID(link) {
		t.Errorf("TokenID of the session %q", links.TokenID(session))
	}
}
