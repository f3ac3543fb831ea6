package pages

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/links"
	"surveyservice/shared/responding"
	"surveyservice/shared/survey"
)

// surveyPage is what the survey template reads.
type surveyPage struct {
	page
	Survey         survey.ResponderSurvey
	Action         string
	IdempotencyKey string
	Session, QS    string
	// Served is the time the page was served, sealed (servedToken).
	Served          string
	Code            string
	Variables       map[string]string
	DurationSeconds int64
	Errors          []string
	// Form is what a plain form sent, shown again with its errors.
	Form   url.Values
	Thanks struct{ Title, Text string }
	// Config is the deployment's addresses (section 16).
	Config Config
	// Preview marks a template survey's page: nothing it sends is saved.
	Preview bool
	// Initial, on a survey with display rules, is which questions are
	// shown before any answer; Step is the page of its plain form shown
	// after a POST (steps.go).
	Initial map[int64]bool
	Step    *stepView
	// Sheets: the survey shows responders their answer sheet.
	Sheets bool
	// LinkHref is where the appreciation page's button goes, "" for no
	// button (section 16, appreciationLink).
	LinkHref string
	// Languages are the page's language and the survey's (section 24);
	// At is the page's address, which the switcher's links keep.
	Languages pageLang
	At        *url.URL
}

// handleSurvey renders the responder's page: the same one Query of the
// survey's item collection as the JSON view, and one view counted (GET
// only). Unknown or trashed surveys answer a 404 page; closed or stopped
// ones a 410 page.
func handleSurvey(st Store, sealer responding.Sealer, now func() time.Time, cfg Config) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		c, ok := liveSurvey(w, r, st, surveyIDByAddress(st), r.PathValue("url_slug"))
		if !ok {
			return nil
		}
		sid := c.Survey.ID
		pl := chooseLanguage(r, c)
		c = pl.apply(c)
		// A template's preview counts nothing, nor the copy the service
		// worker keeps of a page already counted (section 20).
		if r.Method == http.MethodGet && !c.Survey.IsTemplate && r.Header.Get("Survey-Keep") != "page" {
			if err := st.CountView(ctx, c.Survey.AccountID, c.Survey.FolderID, sid); err != nil {
				api.Logger(ctx).WarnContext(ctx, "view not counted", slog.Int64("survey", sid), slog.String("error", err.Error()))
			}
		}
		v := c.Survey.ResponderView(now(), c.Settings, c.Layout, c.Elements, c.Variables)
		if v.State != survey.StateOpen {
			writeClosedSurvey(w, r, v, c.Settings)
			return nil
		}
		// The responder cookie (contract sections 16 and 17): the
		// page's navigation sets it, SameSite=None and Partitioned in a
		// frame, so that the page's own requests and its plain form
		// carry it also when the frame's parent is another site.
		responding.EnsureResponder(w, r)
		p := newSurveyPage(v, r)
		p.withLanguages(w, r, pl)
		p.Config = cfg.forAccount(ctx, c.Survey.AccountID)
		p.Sheets = c.Settings.ShowAnswerSheetToResponder
		p.LinkHref = appreciationLink(ctx, st, c, v, p.Config)
		if timed(v) {
			// The session of a plain form starts now, not when it is sent.
			served, err := sealServed(ctx, sealer, sid, now())
			if err != nil {
				return err
			}
			p.Served = served
		}
		p.Preview = c.Survey.IsTemplate
		p.OEmbed = oembedLink(r, p.Config, v.URLSlug, pl)
		p.Canonical = pageURL(r, p.Config, v.URLSlug)
		if stepped(v) {
			p.Initial = newSteps(c, v).shown(nil)
		}
		keepHeader(w, v)
		writeSurveyPage(w, r, http.StatusOK, renderSurvey(p), c.Settings, allow{themeCSS: p.ThemeCSS, connect: uploadsConnect(p)})
		return nil
	})
}

// timed reports whether the survey has a time to respond: the whole
// response's or its questions' own.
func timed(v survey.ResponderSurvey) bool {
	return v.RespondingDuration != nil || v.RespondingDurationType == survey.DurationPerQuestion
}

// surveyIDByAddress finds the survey of a page address /s/<code>/: its
// slug, else its preview code, which Porsline's WordPress plugins embed
// (view/shortcode.php of common-repository/porsline: src=".../s/" .
// survay_code, the survey's preview_code; contract section 21). Slugs are
// 10 characters and preview codes 16, so one never shadows the other; an
// unknown code costs one more GetItem before its 404.
func surveyIDByAddress(st Store) func(context.Context, string) (int64, error) {
	return func(ctx context.Context, code string) (int64, error) {
		sid, err := st.SurveyIDBySlug(ctx, code)
		if survey.ErrorCode(err) == survey.ENOTFOUND && len(code) == survey.PreviewCodeLength {
			return st.SurveyIDByPreviewCode(ctx, code)
		}
		return sid, err
	}
}

// sealServed seals the time a page is served, for its plain form.
func sealServed(ctx context.Context, sealer responding.Sealer, sid int64, at time.Time) (string, error) {
	return sealer.SealFor(ctx, links.PurposeServed, sid, strconv.AppendInt(nil, at.UnixMicro(), 10))
}

// openServed is the time a plain form's page was served, when its sealed
// time opens for the survey and is not in the future; else ok is false.
func openServed(ctx context.Context, sealer responding.Sealer, sid int64, token string, now time.Time) (time.Time, bool) {
	if token == "" {
		return time.Time{}, false
	}
	plain, err := sealer.OpenFor(ctx, links.PurposeServed, sid, token)
	if err != nil {
		return time.Time{}, false
	}
	us, err := strconv.ParseInt(string(plain), 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	at := time.UnixMicro(us)
	if at.After(now) {
		return time.Time{}, false
	}
	return at, true
}

// newSurveyPage is the page of an open survey for the request: its link
// (?qs=) and the query-string variables the survey has are carried into
// the response; a fresh Idempotency-Key makes a double submission one.
func newSurveyPage(v survey.ResponderSurvey, r *http.Request) surveyPage {
	p := surveyPage{page: newPage(v.Language, v.Name), Survey: v, Action: "/s/" + v.URLSlug + "/",
		IdempotencyKey: newKey(), Variables: map[string]string{}}
	p.setTheme(v.Theme)
	q := r.URL.Query()
	p.QS = q.Get("qs")
	for name, vals := range q {
		if name != "qs" && slices.Contains(v.Variables, name) && len(vals) > 0 {
			p.Variables[name] = vals[0]
		}
	}
	if d := v.RespondingDuration; d != nil && survey.ValidDuration(*d) && v.RespondingDurationType != survey.DurationPerQuestion {
		deadline, _ := survey.ResponseDeadline(time.Time{}, d)
		p.DurationSeconds = int64(deadline.Sub(time.Time{}.Add(survey.ResponseGrace)) / time.Second)
	}
	p.Thanks.Title = p.T.Thanks
	if len(v.Appreciations) > 0 {
		p.Thanks.Title, p.Thanks.Text = v.Appreciations[0].Title, v.Appreciations[0].Description
	}
	return p
}

// newKey is a form's Idempotency-Key: 128 random bits.
func newKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
