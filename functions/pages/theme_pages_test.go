package pages_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/pages"
	"surveyservice/internal/testenv"
	"surveyservice/shared/ratelimit"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestThemeOnEveryPage: every page a responder sees draws the survey's
// theme, the same inline style as the survey page (contract section 22:
// the code and sign-in steps, the thanks of the script and of the plain
// form, the plain form's errors, the closed, full and throttled pages):
// its font from the group's assets under font-src 'self', its background
// image, its size, the style allowed by its hash, the font's file
// preloaded. Before, the closed and
// throttled pages and the plain form's closed answer drew the default
// look.
func TestThemeOnEveryPage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	img := pages.AssetPath("sea.svg")
	themed := func(t *testing.T, f fixture) {
		t.Helper()
		th := survey.DefaultTheme()
		th.FontFamily, th.FontSize = 3, 3 // Inter, large
		th.BackgroundImage = &survey.BackgroundImage{ID: 7, URL: img, ThumbnailURL: img}
		th, err := f.st.CreateTheme(ctx, f.aid, th, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.st.SetSurveyTheme(ctx, f.aid, f.sv.ID, th.ID); err != nil {
			t.Fatal(err)
		}
	}
	stopped, fa := true, int64(1)
	cases := []struct {
		name string
		set  store.SettingsUpdate
		// page answers the page to look at, status and body and headers.
		page   func(t *testing.T, f fixture) (int, string, http.Header)
		status int
		marks  string // what tells the page apart
	}{
		{"code step", store.SettingsUpdate{Set: map[string]any{"code_auth": true}}, getPage, 200, `<section class="page code" data-page="code">`},
		{"sign-in step", store.SettingsUpdate{Set: map[string]any{"service_auth": true}}, getPage, 200, `data-page="signin-email"`},
		{"thanks (script)", store.SettingsUpdate{}, getPage, 200, `<section class="thanks" id="thanks"`},
		{"plain form's errors", store.SettingsUpdate{}, func(t *testing.T, f fixture) (int, string, http.Header) {
			rec := postForm(f.h, "/s/"+f.sv.URLSlug+"/", "idempotency_key="+strings.Repeat("k", 300))
			return rec.Code, rec.Body.String(), rec.Header()
		}, 400, `class="errors"`},
		{"plain form's thanks", store.SettingsUpdate{}, func(t *testing.T, f fixture) (int, string, http.Header) {
			rec := postForm(f.h, "/s/"+f.sv.URLSlug+"/", "idempotency_key=k1")
			return rec.Code, rec.Body.String(), rec.Header()
		}, 200, `<h1`},
		{"closed page", store.SettingsUpdate{IsStopped: &stopped}, getPage, 410, "This survey is closed."},
		{"closed page, fa", store.SettingsUpdate{IsStopped: &stopped, Language: &fa}, getPage, 410, `lang="fa" dir="rtl"`},
		{"plain form of a closed survey", store.SettingsUpdate{IsStopped: &stopped}, func(t *testing.T, f fixture) (int, string, http.Header) {
			rec := postForm(f.h, "/s/"+f.sv.URLSlug+"/", "idempotency_key=k1")
			return rec.Code, rec.Body.String(), rec.Header()
		}, 410, "This survey is closed."},
		{"throttled page", store.SettingsUpdate{}, func(t *testing.T, f fixture) (int, string, http.Header) {
			rates := ratelimit.Service
			rates.Client.Limit = 1
			h := pages.Limited(pages.New(pages.Deps{Store: f.st, Sealer: testenv.Sealer(t), Now: time.Now}), f.st, rates, time.Now)
			var last *httptest.ResponseRecorder
			for range 2 {
				req := httptest.NewRequest("GET", "/s/"+f.sv.URLSlug+"/", nil)
				req.Header.Set("Accept", "text/html")
				req.Header.Set("Sec-Fetch-Mode", "navigate")
				req.RemoteAddr = "198.51.100.39:1000"
				last = httptest.NewRecorder()
				h.ServeHTTP(last, req)
			}
			return last.Code, last.Body.String(), last.Header()
		}, 429, `class="message"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, 1)
			themed(t, f)
			f.set(t, tc.set)
			code, body, h := tc.page(t, f)
			if code != tc.status || !strings.Contains(body, tc.marks) {
				t.Fatalf("%d, want %d with %q: %.600s", code, tc.status, tc.marks, body)
			}
			style := regexp.MustCompile(`<style>([^<]*)</style>`).FindStringSubmatch(body)
			if style == nil {
				t.Fatalf("the page has no theme style: %.600s", body)
			}
			for _, w := range []string{`@font-face{font-family:"Inter";src:url(/assets/inter-latin-wght-normal.`, `"Inter-f"`,
				`background:url("` + img + `")`, `html{font-size:112.5%}`} {
				if !strings.Contains(style[1], w) {
					t.Errorf("the style lacks %s:\n%s", w, style[1])
				}
			}
			// The page's font files are preloaded: they arrive with the
			// style sheet, before the first paint. A Persian page's are
			// Vazirmatn's Arabic letters (Inter has none) and Inter's
			// Latin, which draws its spaces and punctuation.
			files := []string{"inter-latin-wght-normal"}
			if strings.Contains(body, `lang="fa"`) {
				files = []string{"vazirmatn-arabic-wght-normal", "inter-latin-wght-normal"}
			}
			preloads := regexp.MustCompile(`<link rel="preload" href="/assets/([a-z-]+)\.[0-9a-f]{12}\.woff2" as="font" type="font/woff2" crossorigin>`).FindAllStringSubmatch(body, -1)
			var got []string
			for _, m := range preloads {
				got = append(got, m[1])
			}
			if !slices.Equal(got, files) {
				t.Errorf("the page preloads %v, want %v", got, files)
			}
			sum := sha256.Sum256([]byte(style[1]))
			csp := h.Get("Content-Security-Policy")
			if !strings.Contains(csp, "font-src 'self'") || !strings.Contains(csp, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'") {
				t.Errorf("the policy does not allow the theme's font and style: %s", csp)
			}
		})
	}
}

func getPage(t *testing.T, f fixture) (int, string, http.Header) {
	r := f.get("/s/" + f.sv.URLSlug + "/")
	return r.code, r.body, r.header
}
