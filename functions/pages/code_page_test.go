package pages_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"surveyservice/shared/store"
)

// TestCodePageAuthDescription: the page asking for the access code
// (code_auth) shows the owner's auth_description above the field (contract
// section 18; issue 38 item 12: it was missing), escaped, with its line
// breaks (signin.css, loaded only then), in the page's direction, on the
// script's page and on the plain form's step after a wrong code; on a page
// in another of the survey's languages it is the default language's text,
// marked with that language's lang and dir (it has no translation). A code
// page without one, and a survey without codes, show nothing and load no
// signin.css.
func TestCodePageAuthDescription(t *testing.T) {
	t.Parallel()
	const desc = "Find your code on the letter.\n<b>Staff</b> & guests only."
	const shown = "Find your code on the letter.\n&lt;b&gt;Staff&lt;/b&gt; &amp; guests only."
	styles := regexp.MustCompile(`<link rel="stylesheet" href="/assets/signin\.[0-9a-f]{12}\.css">`)
	cases := []struct {
		name  string
		lang  int64    // the survey's language: 4 en, 1 fa
		other []string // the survey's other languages
		query string
		set   map[string]any
		html  string // the page's <html> attributes
		want  string // the code page's start, "" for none
	}{
		{name: "en", lang: 4, set: map[string]any{"code_auth": true, "auth_description": desc}, html: `lang="en" dir="ltr"`,
			want: "<section class=\"page code\" data-page=\"code\">\n<p class=\"auth-description\">" + shown + "</p>\n<label for=\"code\">Your code</label>"},
		{name: "fa", lang: 1, set: map[string]any{"code_auth": true, "auth_description": desc}, html: `lang="fa" dir="rtl"`,
			want: "<section class=\"page code\" data-page=\"code\">\n<p class=\"auth-description\">" + shown + "</p>\n<label for=\"code\">"},
		{name: "fa survey read in en", lang: 1, other: []string{"en"}, query: "?lang=en", set: map[string]any{"code_auth": true, "auth_description": desc},
			html: `lang="en" dir="ltr"`,
			want: "<section class=\"page code\" data-page=\"code\">\n<p class=\"auth-description\"><span lang=\"fa\" dir=\"rtl\">" + shown + "</span></p>\n<label for=\"code\">Your code</label>"},
		{name: "no description", lang: 4, set: map[string]any{"code_auth": true}, html: `lang="en" dir="ltr"`,
			want: "<section class=\"page code\" data-page=\"code\">\n<label for=\"code\">Your code</label>"},
		{name: "no codes", lang: 4, set: map[string]any{"auth_description": desc}, html: `lang="en" dir="ltr"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, 2)
			f.set(t, store.SettingsUpdate{Language: &tc.lang, Set: tc.set})
			if tc.other != nil {
				if err := f.st.SetLanguages(context.Background(), f.aid, f.sv.ID, tc.other); err != nil {
					t.Fatal(err)
				}
			}
			path := "/s/" + f.sv.URLSlug + "/" + tc.query
			page := f.get(path)
			if page.code != 200 || !strings.Contains(page.body, "<html "+tc.html+">") {
				t.Fatalf("page: %d, want <html %s>: %.300s", page.code, tc.html, page.body)
			}
			// The plain form's step after a wrong code shows the code page again.
			wrong := postForm(f.h, path, "idempotency_key=k&code=WRONG")
			if tc.want == "" {
				if strings.Contains(page.body, "auth-description") || strings.Contains(page.body, `data-page="code"`) || styles.MatchString(page.body) {
					t.Errorf("a survey without codes shows a code page, its description or signin.css")
				}
				return
			}
			if wrong.Code != 403 {
				t.Fatalf("a wrong code: %d %.300s", wrong.Code, wrong.Body)
			}
			for what, body := range map[string]string{"the page": page.body, "the plain form after a wrong code": wrong.Body.String()} {
				if !strings.Contains(body, tc.want) {
					t.Errorf("%s lacks\n%s\n%.3000s", what, tc.want, body)
				}
				if got, want := styles.MatchString(body), strings.Contains(tc.want, "auth-description"); got != want {
					t.Errorf("%s loads signin.css: %v, want %v", what, got, want)
				}
				if regexp.MustCompile(`/assets/signin\.[0-9a-f]{12}\.js`).MatchString(body) {
					t.Errorf("%s loads signin.js without sign-in", what)
				}
			}
		})
	}
}
