package responders_test

import "testing"

// TestNoSpamRefusedAtStart: on a no_spam survey without tag_spam, a
// responder whose cookie has a response is refused when a session
// starts (403, section 16's text), so nobody fills every page to be
// refused at the end; with tag_spam the session
// starts, and another responder's too.
func TestNoSpamRefusedAtStart(t *testing.T) {
	f := newFixture(t)
	slug, sid := f.survey(t, map[string]any{"no_spam": true})
	b := &browser{}
	_, s := b.start(t, f, slug, nil)
	if r := b.submit(t, f, slug, s, nil); r.code != 201 {
		t.Fatalf("first: %d %s", r.code, r.body)
	}
	r, _ := b.start(t, f, slug, nil)
	r.is(t, 403, `{"detail":"You have already responded to this survey."}`)
	if r, _ := (&browser{}).start(t, f, slug, nil); r.code != 201 {
		t.Errorf("another responder's session: %d %s", r.code, r.body)
	}
	f.wantStored(t, "after the refusal", sid, 1)

	tagged, _ := f.survey(t, map[string]any{"no_spam": true, "tag_spam": true})
	_, s = b.start(t, f, tagged, nil)
	if r := b.submit(t, f, tagged, s, nil); r.code != 201 {
		t.Fatalf("tag_spam first: %d %s", r.code, r.body)
	}
	if r, _ := b.start(t, f, tagged, nil); r.code != 201 {
		t.Errorf("a repeated responder's session under tag_spam: %d %s", r.code, r.body)
	}
}
