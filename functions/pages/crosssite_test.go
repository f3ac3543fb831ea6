package pages_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestPlainFormCrossSitePost: a plain form that another site posts at the
// top level (Sec-Fetch-Site: cross-site, a navigation that is no frame's)
// records nothing and sets no responder cookie. Browsers send the
// responder's SameSite=Lax cookie with no cross-site POST, so the service
// took such a form for a browser without one: it started a session and
// set a new cookie, which replaced the responder's own (contract section
// 16: "never replaced when present"), and on a survey without no_spam
// recorded the other site's answers. The responder's session kept by the
// page was then refused ("This survey needs cookies to accept your
// response."): found by posting a form from localhost to 127.0.0.1 in
// Chromium (infra/local TestBrowserCrossSiteFormPost). The survey's own
// page, its frame on another site, a same-site page and a client that
// sends no Sec-Fetch-* headers still record.
func TestPlainFormCrossSitePost(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	path := "/s/" + f.sv.URLSlug + "/"
	answer := fmt.Sprintf("&a%d=%d&a%d=4", f.choices.ID, f.choices.Choices[0].ID, f.rating.ID)
	recorded := 0
	for i, tc := range []struct {
		name           string
		site, dest     string
		mode           string
		wantRecorded   bool
		wantStatusCode int
	}{
		{"another site's page, at the top level", "cross-site", "document", "navigate", false, http.StatusForbidden},
		{"another site's page, in a new window", "cross-site", "document", "navigate", false, http.StatusForbidden},
		{"the survey's own page", "same-origin", "document", "navigate", true, http.StatusOK},
		{"the survey's own page in another site's frame", "same-origin", "iframe", "navigate", true, http.StatusOK},
		{"a page of the same site", "same-site", "document", "navigate", true, http.StatusOK},
		{"a client without Sec-Fetch headers", "", "", "", true, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", path, strings.NewReader(fmt.Sprintf("idempotency_key=cross-%d", i)+answer))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, v := range map[string]string{"Sec-Fetch-Site": tc.site, "Sec-Fetch-Dest": tc.dest, "Sec-Fetch-Mode": tc.mode} {
				if v != "" {
					req.Header.Set(k, v)
				}
			}
			rec := httptest.NewRecorder()
			f.h.ServeHTTP(rec, req)
			if rec.Code != tc.wantStatusCode {
				t.Errorf("status %d, want %d: %.400s", rec.Code, tc.wantStatusCode, rec.Body)
			}
			cookie := rec.Header().Get("Set-Cookie")
			if !tc.wantRecorded {
				if cookie != "" {
					t.Errorf("a cookie was set: %s", cookie)
				}
				if !strings.Contains(rec.Body.String(), "This form was sent from another site and was not recorded. Answer here and send it again.") {
					t.Errorf("the page does not say why: %.600s", rec.Body)
				}
				if s := hidden(t, rec.Body.String(), "session"); s != "" {
					t.Errorf("a session was started: %q", s)
				}
			} else {
				recorded++
			}
			if rs := f.responses(t); len(rs) != recorded {
				t.Errorf("%d responses, want %d", len(rs), recorded)
			}
		})
	}
}
