package pages

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"sort"
	"strings"

	"surveyservice/shared/survey"
)

// The page's words for answers that survive (contract section 20), in
// English; their translations join pageMessages, so that the page's
// scripts find them in data-messages as they find the API's.
const (
	msgSavedOffline      = "Saved on this device. It will be sent when you are back online."
	msgNeedsConnection   = "This step needs a connection."
	msgResumeExpired     = "The link to continue has expired."
	msgResumed           = "Your answers so far are filled in."
	msgContinueLater     = "Continue later"
	msgContinueElsewhere = "To continue on another device, open this link:"
)

var offlineMessages = map[string]map[string]string{
	"fa": {
		msgSavedOffline:      "روی این دستگاه ذخیره شد. هنگامی که دوباره به اینترنت وصل شوید فرستاده می‌شود.",
		msgNeedsConnection:   "این مرحله به اتصال اینترنت نیاز دارد.",
		msgResumeExpired:     "پیوند ادامه منقضی شده است.",
		msgResumed:           "پاسخ‌هایی که تاکنون داده‌اید بازگردانده شد.",
		msgContinueLater:     "ادامه در زمانی دیگر",
		msgContinueElsewhere: "برای ادامه در دستگاهی دیگر، این پیوند را باز کنید:",
	},
	"ar": {
		msgSavedOffline:      "حُفظت على هذا الجهاز. ستُرسل عندما يعود اتصالك بالإنترنت.",
		msgNeedsConnection:   "تحتاج هذه الخطوة إلى اتصال بالإنترنت.",
		msgResumeExpired:     "انتهت صلاحية رابط المتابعة.",
		msgResumed:           "أُعيدت إجاباتك حتى الآن.",
		msgContinueLater:     "المتابعة لاحقًا",
		msgContinueElsewhere: "للمتابعة على جهاز آخر، افتح هذا الرابط:",
	},
	"tr": {
		msgSavedOffline:      "Bu cihaza kaydedildi. Yeniden çevrimiçi olduğunuzda gönderilecek.",
		msgNeedsConnection:   "Bu adım bir bağlantı gerektirir.",
		msgResumeExpired:     "Devam etme bağlantısının süresi doldu.",
		msgResumed:           "Şimdiye kadarki yanıtlarınız geri yüklendi.",
		msgContinueLater:     "Daha sonra devam et",
		msgContinueElsewhere: "Başka bir cihazda devam etmek için bu bağlantıyı açın:",
	},
}

func init() {
	for lang, m := range offlineMessages {
		for en, tr := range m {
			pageMessages[lang][en] = tr
		}
	}
}

// kiosk reports a survey whose appreciation page sends the next responder
// back to its start (reload_active): a shared screen keeps nothing of a
// responder's answers, and its service worker keeps only the assets.
func kiosk(s survey.ResponderSurvey) bool {
	a, ok := firstAppreciation(s)
	return ok && a.ReloadActive
}

// formData20 is the form's attribute that offline.js reads:
// data-keep="false" on a kiosk survey.
func formData20(p surveyPage) markup {
	if kiosk(p.Survey) {
		return ` data-keep="false"`
	}
	return ""
}

// offlineScripts loads offline.js, and partial.js when the survey keeps
// partial responses (not on a template's preview, which records nothing):
// before app.js, which calls them.
func (d *doc) offlineScripts(p surveyPage) {
	d.w("<script src=\"%s\"></script>\n", text(assetNames["offline.js"]))
	if sendsPartials(p) {
		d.w("<script src=\"%s\"></script>\n", text(assetNames["partial.js"]))
	}
}

// sendsPartials reports whether the page sends partial responses
// (partial.js).
func sendsPartials(p surveyPage) bool { return p.Survey.Settings.PartialResponses && !p.Preview }

// keepHeader tells the service worker not to keep a kiosk survey's page.
func keepHeader(w http.ResponseWriter, s survey.ResponderSurvey) {
	if kiosk(s) {
		w.Header().Set("Survey-Keep", "assets")
	}
}

// serviceWorkerPath is where the pages' service worker is served (and
// offline.js registers it): under /s/, so that its scope may be /s/
// without a Service-Worker-Allowed.
const serviceWorkerPath = "/s/sw.js"

// serviceWorker is sw.js with its cache's name written in, a hash of
// every asset's hashed name: a deployment whose assets changed serves
// other bytes, which browsers install as a new worker.
var serviceWorker = func() []byte {
	src, err := web.ReadFile("web/sw.js")
	if err != nil {
		panic(err) // embedded: a build error
	}
	return minifyJS([]byte(strings.ReplaceAll(string(src), "%VERSION%", assetsVersion())))
}()

// assetsVersion is a hash of the assets' hashed names.
func assetsVersion() string {
	names := make([]string, 0, len(assetNames))
	for _, path := range assetNames {
		names = append(names, path)
	}
	sort.Strings(names)
	sum := sha256.Sum256([]byte(strings.Join(names, "\n")))
	return hex.EncodeToString(sum[:6])
}

// handleServiceWorker serves the service worker: JavaScript, revalidated
// on every update check, under a policy that lets it fetch its own
// origin and nothing else.
func handleServiceWorker() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeFile(w, r, "text/javascript; charset=utf-8", "no-cache", "default-src 'none'; connect-src 'self'", serviceWorker)
	})
}

// writeClosedSurvey is a closed survey's page: it also removes the
// answers the browser kept for the survey, whose session can no longer
// respond.
func writeClosedSurvey(w http.ResponseWriter, r *http.Request, v survey.ResponderSurvey, set survey.Settings) {
	p := newPage(v.Language, v.Name)
	p.Message, p.Forget = textsFor(v.Language).Closed, v.URLSlug
	if v.State == survey.StateFull {
		p.Message = translate(v.Language, survey.ErrSurveyFull.Detail)
	}
	writeThemedMessage(w, r, http.StatusGone, p, v.Theme, set)
}
