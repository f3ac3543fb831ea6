package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"

	"surveyservice/internal/testenv"
	"surveyservice/shared/survey"
)

// TestBrowserCodeUnderAttack: a code_auth survey whose code-guess guard
// counts an attack asks every code check for a solved challenge (contract
// section 16) instead of refusing it; the page solves one in its worker
// and starts the session with it, so the responder with the right code
// gets through and the response is recorded.
func TestBrowserCodeUnderAttack(t *testing.T) {
	st := testenv.Store(t) // the store newPagesServer serves: this test's own
	st.Guesses = survey.GuessLimits{Window: time.Hour, PerSurvey: 2, PerClient: 100}
	p := newPagesServer(t)
	sv := p.build(t, oneQuestion("attacked", map[string]any{"code_auth": true}))
	if err := p.api.call("POST", fmt.Sprintf("/api/surveys/%d/settings/authentication-codes/", sv.ID), map[string]any{"codes": []string{"RIGHT-1"}}, nil); err != nil {
		t.Fatal(err)
	}
	auth := "/api/public/surveys/" + sv.URLSlug + "/authenticate/"
	for i := range 2 {
		if err := p.api.call("POST", auth, map[string]any{"code": fmt.Sprintf("GUESS-%d", i)}, nil); err == nil || !strings.Contains(err.Error(), ": 403 ") {
			t.Fatalf("a wrong guess: %v, want 403", err)
		}
	}
	// Under attack: a check without a challenge is asked for one.
	if err := p.api.call("POST", auth, map[string]any{"code": "RIGHT-1"}, nil); err == nil || !strings.Contains(err.Error(), `400 {"captcha":["This field is required."]}`) {
		t.Fatalf("a check under attack without a challenge: %v", err)
	}
	ctx := browser(t, true)
	open(t, ctx, p, sv.URLSlug)
	waitPage(t, ctx, "code")
	keys(t, ctx, "RIGHT-1", kb.Enter)
	for range 1200 { // the worker solves the challenge the guard asked for
		if evalJS[string](t, ctx, `document.documentElement.getAttribute("data-captcha-ms")||""`) != "" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	waitPage(t, ctx, "0")
	if ms := evalJS[string](t, ctx, `document.documentElement.getAttribute("data-captcha-ms")||""`); ms == "" {
		t.Errorf("the session started without solving the challenge the guard asked for")
	} else {
		t.Logf("the guard's challenge: solved in the browser's worker in %s ms", ms)
	}
	keys(t, ctx, "through")
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#thanks")
	rs := p.responses(t, sv.ID)
	if len(rs) != 1 || rs[0].Code == nil || *rs[0].Code != "RIGHT-1" {
		t.Fatalf("responses %+v, want one with the code", rs)
	}
}
