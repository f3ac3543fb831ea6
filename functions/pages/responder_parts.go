package pages

import (
	"context"
	"log/slog"
	"net/url"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/hosts"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Config is what the pages need of the deployment (contract section 16):
// the service's own address (the footer's link and share links) and the
// address of its privacy notice.
type Config struct {
	PublicURL  string
	PrivacyURL string
	// UploadsOrigin is where the page sends the files of file-upload
	// questions (the uploads bucket's presigned POSTs): its
	// Content-Security-Policy lets the page's script reach it.
	UploadsOrigin string
	// Links chooses where a survey's links point: its account's subdomain
	// when active, else PublicURL (contract section 23); nil: PublicURL.
	Links *hosts.Links
	// SurveyBase is that choice for the survey a request serves
	// (forAccount); "" is PublicURL.
	SurveyBase string
}

// forAccount is the configuration for serving an account's survey: its
// links' base chosen (cached per container, seen within a minute).
func (c Config) forAccount(ctx context.Context, aid int64) Config {
	c.SurveyBase = c.Links.Base(ctx, aid)
	return c
}

// surveyBase is where the served survey's links point.
func (c Config) surveyBase() string {
	if c.SurveyBase != "" {
		return c.SurveyBase
	}
	return c.PublicURL
}

// ConfigFromEnv reads PUBLIC_SURVEY_URL, PRIVACY_URL and UPLOADS_ORIGIN.
func ConfigFromEnv(getenv func(string) string) Config {
	return Config{PublicURL: strings.TrimSuffix(getenv("PUBLIC_SURVEY_URL"), "/"), PrivacyURL: getenv("PRIVACY_URL"),
		UploadsOrigin: strings.TrimSuffix(getenv("UPLOADS_ORIGIN"), "/")}
}

// uploadsConnect are the origins the survey's page connects to beyond its
// own: the uploads bucket's, when the survey has a file-upload question.
func uploadsConnect(p surveyPage) []string {
	if p.Config.UploadsOrigin == "" || !hasFileQuestion(p) {
		return nil
	}
	return []string{p.Config.UploadsOrigin}
}

// hasFileQuestion reports whether the survey asks for a file: only then
// does its page load uploads.js and connect to the bucket.
func hasFileQuestion(p surveyPage) bool { return hasType(p, survey.TypeFileUpload) }

// pageTexts16 are the words section 16 adds to the page, by language.
type pageTexts16 struct {
	Privacy, PrivacyLink, Share, Footer, Location string
	// Edit is the appreciation page's edit link; Continue its button's
	// label when link_button_text is empty.
	Edit, Continue string
}

var texts16 = map[string]pageTexts16{
	"en": {Privacy: "Your answers are used only for this survey.", PrivacyLink: "Privacy notice", Share: "Share this survey",
		Footer: "Made with Survey Service", Location: "This survey asks for your location.",
		Edit: "Edit your response", Continue: "Continue"},
	"fa": {Privacy: "پاسخ‌های شما تنها برای این پرسش‌نامه به کار می‌رود.", PrivacyLink: "اطلاعیهٔ حریم خصوصی",
		Share:  "این پرسش‌نامه را هم‌رسانی کنید",
		Footer: "ساخته‌شده با Survey Service", Location: "این پرسش‌نامه موقعیت مکانی شما را می‌خواهد.",
		Edit: "ویرایش پاسخ", Continue: "ادامه"},
	"ar": {Privacy: "تُستخدم إجاباتك لهذا الاستبيان فقط.", PrivacyLink: "إشعار الخصوصية", Share: "شارك هذا الاستبيان",
		Footer: "صُنع باستخدام Survey Service", Location: "يطلب هذا الاستبيان موقعك.",
		Edit: "تعديل إجابتك", Continue: "متابعة"},
	"tr": {Privacy: "Yanıtlarınız yalnızca bu anket için kullanılır.", PrivacyLink: "Gizlilik bildirimi", Share: "Bu anketi paylaşın",
		Footer: "Survey Service ile yapıldı", Location: "Bu anket konumunuzu istiyor.",
		Edit: "Yanıtınızı düzenleyin", Continue: "Devam"},
}

func texts16For(lang string) pageTexts16 {
	if t, ok := texts16[lang]; ok {
		return t
	}
	return texts16["en"]
}

// formData16 are the form's attributes that responder.js reads: the
// CAPTCHA and its worker, the location, and the kiosk reload.
func formData16(p surveyPage) markup {
	s := p.Survey
	var d doc
	d.w("%s", trueAttr("captcha", s.Settings.CaptchaNeeded))
	if solvesChallenges(p) {
		d.w(` data-captcha-worker="%s"`, text(assetNames["captcha-worker.js"]))
	}
	d.w("%s", trueAttr("location", s.Settings.LocationIsActive))
	if a, ok := firstAppreciation(s); ok && a.ReloadActive && a.ReloadTime > 0 {
		d.w(` data-reload="%s"`, num(a.ReloadTime))
	}
	return markup(d.bytes())
}

// solvesChallenges reports whether the page's worker may solve a
// challenge: the CAPTCHA, a sign-in's code send and the code-guess guard
// of a code survey under attack. A page that meets none carries no
// worker's address.
func solvesChallenges(p surveyPage) bool {
	return p.Survey.Settings.CaptchaNeeded || signsIn(p) || p.Survey.CodeAuth
}

// edits reports whether the thanks page offers to edit the response
// (edit_response_enabled; a template's preview records nothing to edit).
func edits(p surveyPage) bool { return p.Survey.Settings.EditResponseEnabled && !p.Preview }

// enterText is the welcome page's start button label, as an attribute
// app.js reads ("" for the default).
func enterText(w survey.ElementView) markup {
	if w.EnterText == "" {
		return ""
	}
	var d doc
	d.w(` data-enter-text="%s"`, text(w.EnterText))
	return markup(d.bytes())
}

// welcome16 is what section 16 adds to the welcome page: the location's
// explanation and the privacy notice.
func (d *doc) welcome16(p surveyPage) {
	s, t := p.Survey, texts16For(p.Lang)
	if s.Settings.LocationIsActive {
		desc := t.Location
		if s.Settings.LocationDescription != nil && *s.Settings.LocationDescription != "" {
			desc = *s.Settings.LocationDescription
		}
		d.w("<p class=\"location-note\">%s</p>\n", text(desc))
	}
	if s.Settings.PrivacyPreservingMessageEnabled {
		d.w("<section class=\"privacy\" aria-label=\"%s\"><p>%s", text(t.PrivacyLink), text(t.Privacy))
		if p.Config.PrivacyURL != "" {
			d.w(" <a href=\"%s\" rel=\"noopener\">%s</a>", text(p.Config.PrivacyURL), text(t.PrivacyLink))
		}
		d.w("</p></section>\n")
	}
}

// thanks16 is what section 16 adds to the appreciation page: the link's
// button, the edit link (shown by responder.js once a response has its
// edit token, while the survey is open) and the share link.
func (d *doc) thanks16(p surveyPage) {
	t := texts16For(p.Lang)
	a, ok := firstAppreciation(p.Survey)
	if ok && p.LinkHref != "" {
		label := a.LinkButtonText
		if label == "" {
			label = t.Continue
		}
		d.w("<p class=\"next-link\"><a class=\"button\" id=\"appreciation-link\" href=\"%s\" rel=\"noopener\">%s</a></p>\n", text(p.LinkHref), text(label))
	}
	if edits(p) {
		d.w("<p class=\"edit\" id=\"edit-wrap\" hidden><button type=\"button\" id=\"edit-response\">%s</button></p>\n", text(t.Edit))
	}
	if !ok || !a.ShareLinkActive {
		return
	}
	d.w("<p class=\"share\"><label for=\"share-link\">%s</label> <input id=\"share-link\" type=\"url\" readonly value=\"%s\"></p>\n",
		text(t.Share), text(p.Config.surveyBase()+"/s/"+p.Survey.URLSlug+"/"))
}

// footer16 is the service's footer, unless branding_removal hides it.
func (d *doc) footer16(p surveyPage) {
	if p.Survey.Settings.BrandingRemoval {
		return
	}
	home := p.Config.PublicURL + "/"
	d.w("<footer class=\"brand\"><a href=\"%s\">%s</a></footer>\n", text(home), text(texts16For(p.Lang).Footer))
}

func firstAppreciation(s survey.ResponderSurvey) (survey.ElementView, bool) {
	if len(s.Appreciations) == 0 {
		return survey.ElementView{}, false
	}
	return s.Appreciations[0], true
}

// appreciationLink is where the first appreciation page's button goes
// (contract section 16): with link_active, link_type 1 its link_url
// (http(s) only), link_type 2 the page of the survey link names, when it
// is a live survey of the same account (one read) whose address the
// link's setter could have set (contract section 19 as amended,
// survey.Element.LinkShown: one more read when a member set it); ""
// otherwise.
func appreciationLink(ctx context.Context, st Store, c store.SurveyCollection, s survey.ResponderSurvey, cfg Config) string {
	aid := c.Survey.AccountID
	a, ok := firstAppreciation(s)
	if !ok || !a.LinkActive {
		return ""
	}
	switch a.LinkType {
	case survey.LinkTypeURL:
		if a.LinkURL != nil && survey.ValidHTTPURL(*a.LinkURL) {
			return *a.LinkURL
		}
	case survey.LinkTypeSurvey:
		if a.Link == nil {
			return ""
		}
		sv, err := st.Survey(ctx, aid, *a.Link)
		if err != nil || sv.Deleted || sv.URLSlug == "" {
			if err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
				api.Logger(ctx).WarnContext(ctx, "appreciation link not read", slog.Int64("survey", *a.Link), slog.String("error", err.Error()))
			}
			return ""
		}
		shown, err := c.Elements[a.ID].LinkShown(c.Survey.FolderID, sv.FolderID, func(sub int64) (bool, error) {
			return st.MemberReaches(ctx, aid, sub, sv.FolderID)
		})
		if err != nil {
			api.Logger(ctx).WarnContext(ctx, "appreciation link's setter not read", slog.Int64("survey", *a.Link), slog.String("error", err.Error()))
		}
		if !shown {
			return ""
		}
		return cfg.surveyBase() + "/s/" + url.PathEscape(sv.URLSlug) + "/"
	}
	return ""
}
