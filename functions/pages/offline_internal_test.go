package pages

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

// TestServiceWorkerScript: /s/sw.js is JavaScript that node parses,
// revalidated on each update check, under a policy that lets it fetch
// its own origin only, its cache named for the assets it keeps.
func TestServiceWorkerScript(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	handleServiceWorker().ServeHTTP(rec, httptest.NewRequest("GET", serviceWorkerPath, nil))
	h, body := rec.Header(), rec.Body.String()
	if rec.Code != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/javascript") || h.Get("Cache-Control") != "no-cache" ||
		h.Get("Content-Security-Policy") != "default-src 'none'; connect-src 'self'" {
		t.Errorf("sw.js: %d %v", rec.Code, h)
	}
	if !strings.Contains(body, `"survey-pages-`+assetsVersion()+`"`) || strings.Contains(body, "%VERSION%") {
		t.Errorf("sw.js lacks its cache's name:\n%s", body)
	}
	file := filepath.Join(t.TempDir(), "sw.js")
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(nodePath(t), "--check", file).CombinedOutput(); err != nil {
		t.Fatalf("node cannot parse sw.js: %v\n%s", err, out)
	}
}

// TestKioskKeepsNothing: a reload_active survey's page tells offline.js
// to keep no answers and the service worker to keep no page; another
// survey's page says neither.
func TestKioskKeepsNothing(t *testing.T) {
	t.Parallel()
	for _, reload := range []bool{false, true} {
		thanks := view(survey.Element{Title: "Thanks"})
		thanks.Appreciation = &survey.Appreciation{ReloadActive: reload, ReloadTime: 5}
		v := survey.ResponderSurvey{URLSlug: "s", Name: "n", Language: "en", Appreciations: []survey.ElementView{thanks}}
		page := string(renderSurvey(newSurveyPage(v, &http.Request{URL: &url.URL{}})))
		rec := httptest.NewRecorder()
		keepHeader(rec, v)
		if got := strings.Contains(page, ` data-keep="false"`); got != reload {
			t.Errorf("reload_active %v: data-keep=false %v", reload, got)
		}
		if got := rec.Header().Get("Survey-Keep") == "assets"; got != reload {
			t.Errorf("reload_active %v: Survey-Keep %q", reload, rec.Header().Get("Survey-Keep"))
		}
		if !strings.Contains(page, assetNames["offline.js"]) {
			t.Errorf("the page does not load offline.js")
		}
	}
}

// TestClosedPageForgets: a closed survey's page removes what the browser
// kept for it (offline.js with data-forget); another message page loads
// no script for it.
func TestClosedPageForgets(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	writeClosedSurvey(rec, httptest.NewRequest("GET", "/s/abc/", nil), survey.ResponderSurvey{URLSlug: "abc", Name: "n", Language: "fa"}, survey.Settings{})
	if want := `data-forget="abc"`; rec.Code != http.StatusGone || !strings.Contains(rec.Body.String(), want) {
		t.Errorf("closed page %d lacks %s:\n%s", rec.Code, want, rec.Body.String())
	}
	if strings.Contains(string(renderMessage(newPage("en", "Not found"))), "data-forget") {
		t.Errorf("a message page forgets answers")
	}
}

// TestOfflineMessagesTranslated: the page's words of section 20 are in
// every language's data-messages.
func TestOfflineMessagesTranslated(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"fa", "ar", "tr"} {
		for _, en := range []string{msgSavedOffline, msgNeedsConnection, msgResumeExpired, msgResumed, msgContinueLater, msgContinueElsewhere} {
			if tr := pageMessages[lang][en]; tr == "" || tr == en {
				t.Errorf("%s: %q has no translation", lang, en)
			}
		}
	}
}
