package pages_test

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"surveyservice/shared/store"
)

// TestSignInStep: a survey that signs in by email and by phone has its
// sign-in pages after the welcome and code pages, in that order, each with
// auth_description above the address and, without the script, the
// survey's language's word that sending a code needs JavaScript; only such
// a page loads signin.js and signin.css.
func TestSignInStep(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	b := &plainBrowser{h: f.h}
	plain := b.page(t, f.sv.URLSlug)
	if strings.Contains(plain, "signin") {
		t.Errorf("a survey without sign-in has a sign-in step or script")
	}

	fa := int64(1)
	desc := "Sign in with your work address.\nOnly staff may respond."
	f.set(t, store.SettingsUpdate{Language: &fa, Set: map[string]any{"service_auth": true, "phone_number_auth": true,
		"code_auth": true, "auth_description": desc}})
	page := html.UnescapeString(b.page(t, f.sv.URLSlug))
	order := regexp.MustCompile(`data-page="(code|signin-email|signin-phone|0)"`).FindAllStringSubmatch(page, -1)
	var got []string
	for _, m := range order {
		got = append(got, m[1])
	}
	if strings.Join(got, " ") != "code signin-email signin-phone 0" {
		t.Errorf("pages in the order %q, want code, email, phone, then the questions", got)
	}
	for _, want := range []string{
		`data-channel="email"`, `data-channel="sms"`,
		`<input id="signin-email" type="email" autocomplete="email"`,
		`<input id="signin-phone" type="tel" autocomplete="tel"`,
		`autocomplete="one-time-code"`,
		`<label for="signin-email">نشانی ایمیل شما</label>`,
		`<noscript><p class="needs-js">ارسال کد به جاوااسکریپت نیاز دارد.`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if n := strings.Count(page, `<p class="auth-description">`+desc+`</p>`); n != 3 {
		t.Errorf("auth_description shown %d times, want above the code and each of the 2 sign-in pages", n)
	}
	if !regexp.MustCompile(`<script src="/assets/signin\.[0-9a-f]{12}\.js"></script>\n<script src="/assets/app\.`).MatchString(page) {
		t.Errorf("signin.js not loaded before app.js")
	}
	if !regexp.MustCompile(`<link rel="stylesheet" href="/assets/app\.[0-9a-f]{12}\.css">\n<link rel="stylesheet" href="/assets/signin\.[0-9a-f]{12}\.css">`).MatchString(page) {
		t.Errorf("signin.css not loaded after app.css")
	}
	if regexp.MustCompile(`<input id="signin-[a-z-]+"[^>]* name=`).MatchString(page) {
		t.Errorf("a sign-in field has a name: the plain form would send it")
	}
}
