package pages

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/challenge"
	"surveyservice/shared/responding"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// handleForm records a response sent as a plain form, for a browser
// without the page's script: the same start of a session and the same
// checks and transaction as the JSON API (shared/responding), with the
// Idempotency-Key the page put in the form, so that a double click or a
// resent form records one response. Errors render the form again with
// their messages, under their status.
//
// It reads the survey's item collection once more than the JSON API (it
// needs the element types to read the fields), and starts the session
// itself when the form has none.
func handleForm(st Store, svc responding.Service, cfg Config) http.Handler {
	sealer, now := svc.Sealer, svc.Now
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		slug := r.PathValue("url_slug")
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
			return survey.Errorf(survey.EMEDIATYPE, "Unsupported media type %q in request.", ct)
		}
		r.Body = http.MaxBytesReader(w, r.Body, api.MaxBody)
		if err := r.ParseForm(); err != nil {
			// Over the limit is 413, as on every route (section 3).
			if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
				return survey.Errorf(survey.ETOOLARGE, "Request body is larger than 1 MiB.")
			}
			return survey.Errorf(survey.EINVALID, "The form could not be read.")
		}
		c, trashed, ok := surveyOrTrashed(w, r, st, st.SurveyIDBySlug, slug)
		if !ok && !trashed {
			return nil
		}
		pl := chooseLanguage(r, c)
		c = pl.apply(c)
		v := c.Survey.ResponderView(now(), c.Settings, c.Layout, c.Elements, c.Variables)
		f := r.PostForm
		p := newSurveyPage(v, r)
		p.withLanguages(w, r, pl)
		p.Config = cfg.forAccount(r.Context(), c.Survey.AccountID)
		p.Sheets = c.Settings.ShowAnswerSheetToResponder
		p.QS, p.Code, p.Served = f.Get("qs"), f.Get("code"), f.Get("served")
		p.Variables = map[string]string{}
		for name, vals := range f {
			if n, ok := strings.CutPrefix(name, "var_"); ok && len(vals) > 0 {
				p.Variables[n] = vals[0]
			}
		}
		// The form's own key, missing or empty included: a key of the
		// page's own in its place let a hand-made form without one record
		// once each time it was sent (hostile10); the rule below refuses
		// it, as the header's is refused.
		p.IdempotencyKey = f.Get("idempotency_key")
		// fail renders a refusal as the form again, with its messages; a
		// failure of the service goes back to the adapter.
		fail := func(err error) error {
			if errors.Is(err, challenge.ErrRequired) {
				err = survey.Errorf(survey.EINVALID, msgNeedsScript)
			}
			// A limit or an outage (429, 503) shows the form again too,
			// its answers kept, in the page's words, with Retry-After.
			busy := awsenv.IsUnavailable(err) || survey.ErrorCode(err) == survey.EUNAVAILABLE
			if !busy && (survey.ErrorCode(err) == "" || api.Status(survey.ErrorCode(err)) >= 500) {
				return err
			}
			if errors.Is(err, survey.ErrSurveyClosed) {
				writeSurveyMessage(w, r, http.StatusGone, v, p.T.Closed, c.Settings)
				return nil
			}
			if errors.Is(err, survey.ErrSurveyFull) || errors.Is(err, survey.ErrQuotaFull) {
				// Section 25: full, in the survey's language.
				msg := survey.ErrSurveyFull.Detail
				if errors.Is(err, survey.ErrQuotaFull) {
					msg = survey.ErrQuotaFull.Detail
				}
				writeSurveyMessage(w, r, http.StatusGone, v, translate(v.Language, msg), c.Settings)
				return nil
			}
			_, status := api.ErrorHead(w, r, err)
			p.Errors, p.Form = messages(err, c.Elements, v.Language), f
			p.Preview = c.Survey.IsTemplate
			writeSurveyPage(w, r, status, renderSurvey(p), c.Settings, allow{themeCSS: p.ThemeCSS})
			return nil
		}
		// thanks renders a response recorded, or replayed, for the form.
		thanks := func(done responding.Submitted) error {
			if done.Preview {
				p.Thanks.Title, p.Thanks.Text = p.T.Preview, ""
			}
			sheet := ""
			if done.SheetToken != "" {
				// The answer sheet's link, as the script's thanks has it.
				sheet = "/s/" + url.PathEscape(v.URLSlug) + "/sheet/" + url.PathEscape(done.SheetToken) + "/"
			}
			writeSurveyPage(w, r, http.StatusOK, renderPlainThanks(p, sheet), c.Settings, allow{themeCSS: p.ThemeCSS})
			return nil
		}
		// resent is the response this very form recorded with its key, if
		// it did: a form of one page sent again without a session, refused
		// since (the survey closed or in the trash, its code or link spent
		// by that response), answers it, as the JSON API's retry answers
		// its 201. Another form's key (other answers) is not found.
		resent := func() (responding.Submitted, bool, error) {
			hash, err := formBodyHash(responding.Request{Answers: formAnswers(f, c), Variables: formVariables(p.Variables)})
			if err != nil {
				return responding.Submitted{}, false, err
			}
			done, found, err := svc.Replayed(ctx, slug, p.IdempotencyKey, hash)
			if errors.Is(err, survey.ErrReusedKey) {
				return done, false, nil
			}
			return done, found, err
		}
		if trashed {
			// In the trash: the 404 page, unless this very form recorded
			// a response.
			if responding.ValidKey(p.IdempotencyKey) && !stepped(v) && f.Get("session") == "" {
				switch done, found, err := resent(); {
				case found:
					return thanks(done)
				case err != nil && (survey.ErrorCode(err) == "" || api.Status(survey.ErrorCode(err)) >= 500):
					return err // a failure of the service; a refusal is the 404 below
				}
			}
			writeNotFound(w, r)
			return nil
		}
		if crossSiteForm(r) {
			// Another site's page posted this form (section 16's cookie:
			// the browser sent none with it, so a session started here
			// would set a new cookie in place of the responder's own):
			// nothing is started or recorded, and the survey's page is
			// shown empty, with a key of its own, to be answered here.
			p.IdempotencyKey = newKey()
			p.Errors = []string{translate(v.Language, msgCrossSite)}
			_, status := api.ErrorHead(w, r, survey.Errorf(survey.EFORBIDDEN, msgCrossSite))
			writeSurveyPage(w, r, status, renderSurvey(p), c.Settings, allow{themeCSS: p.ThemeCSS})
			return nil
		}
		key := p.IdempotencyKey
		if !responding.ValidKey(key) {
			// The header's rule (contract section 11), before a session
			// starts or anything is read: a refusal that records nothing.
			// The form shown again carries a key of the page's own, so
			// that sending it again can record.
			p.IdempotencyKey = newKey()
			return fail(survey.FieldError("idempotency_key", responding.MsgKey))
		}
		paged := stepped(v)
		if paged {
			p.Initial = newSteps(c, v).shown(nil)
		} else {
			if err := tiedRanks(f, c); err != nil {
				return fail(err)
			}
		}
		// The responder's side of section 16, as the JSON API has it: the
		// request's responder cookie (set by the page; no_spam and
		// tag_spam read it) and where the response came from.
		req := responding.Request{Session: f.Get("session"), Variables: formVariables(p.Variables),
			Responder: responding.ResponderValue(r), IP: api.ClientIP(r), UserAgent: r.UserAgent()}
		if req.Session == "" {
			// The session starts when the page was served, if its sealed
			// time came with the form: the time to respond counts from
			// then, as it does with the script.
			start := now()
			if at, ok := openServed(ctx, sealer, c.Survey.ID, f.Get("served"), start); ok {
				start = at
			}
			// Bound to the responder cookie, which this sets when the
			// browser sent none: a no_spam survey then asks for cookies,
			// and the form sent again carries it.
			started, err := svc.Start(ctx, responding.StartRequest{Slug: slug, Client: api.ClientIP(r), Code: p.Code, QS: p.QS, HasQS: p.QS != "", At: start,
				Responder: responding.EnsureResponder(w, r), Language: pl.Lang})
			if err != nil && !paged && survey.ErrorCode(err) != "" && api.Status(survey.ErrorCode(err)) < 500 {
				// Refused: the response this form recorded, if it did;
				// else the start's refusal.
				switch done, found, rerr := resent(); {
				case found:
					return thanks(done)
				case rerr != nil:
					return fail(rerr)
				}
			}
			if err != nil {
				return fail(err)
			}
			req.Session = started.Token
		}
		p.Session = req.Session
		if paged {
			// A survey with display rules goes page by page (steps.go):
			// the next page, until the last is taken.
			sp := newSteps(c, v)
			view, answers, done, err := sp.step(ctx, sealer, f.Get("steps"), f)
			if view != nil {
				p.Step, p.NoScript = view, true
			}
			if err != nil {
				return fail(err)
			}
			if !done && sp.timeUp(ctx, sealer, req.Session, view.Shown, now()) {
				return fail(responding.ErrTimeIsUp)
			}
			if !done {
				p.Form = answersForm(sp.questions, answers)
				writeSurveyPage(w, r, http.StatusOK, renderSurvey(p), c.Settings, allow{themeCSS: p.ThemeCSS})
				return nil
			}
			req.Answers = answers
		} else {
			req.Answers = formAnswers(f, c)
		}
		hash, err := formBodyHash(req)
		if err != nil {
			return err
		}
		done, err := svc.Submit(ctx, slug, key, hash, req)
		if err != nil {
			return fail(err)
		}
		return thanks(done)
	})
}

// crossSiteForm reports whether another site's page sent the form, not in
// a frame: the browser says so (Sec-Fetch-Site: cross-site) when a page of
// another site posts it at the top level, in a new window or by fetch.
// The survey's own page posts it same-origin, also inside another site's
// frame (whose requests carry the frame's SameSite=None cookie); a client
// that sends no Sec-Fetch-Site is taken at its word.
func crossSiteForm(r *http.Request) bool {
	return r.Header.Get("Sec-Fetch-Site") == "cross-site" && !api.InFrame(r)
}

// formVariables are a form's var_ fields as a request's variables.
func formVariables(vars map[string]string) map[string]any {
	out := make(map[string]any, len(vars))
	for n, val := range vars {
		out[n] = val
	}
	return out
}

// formBodyHash is what decides a plain form's replay with its key: the
// answers and variables (not the session, which a resent form without one
// starts anew).
func formBodyHash(req responding.Request) (string, error) {
	body, err := json.Marshal(map[string]any{"answers": req.Answers, "variables": req.Variables})
	if err != nil {
		return "", err
	}
	return sha256Hex(string(body)), nil
}

// renderPlainThanks is the thanks of a plain form's response, as the
// script's page shows it: in the survey's theme, the appreciation's title
// as a heading and its text, the link to the answer sheet (contract
// section 15) when sheet is not "", and the footer.
func renderPlainThanks(p surveyPage, sheet string) []byte {
	var d doc
	p.NoScript = true
	d.head(p.page)
	d.w("<h1>%s</h1>\n<section class=\"thanks\" id=\"thanks\"><h2 id=\"message\">%s</h2>", text(p.Title), text(p.Thanks.Title))
	if p.Thanks.Text != "" {
		d.w("<p>%s</p>", text(p.Thanks.Text))
	}
	if sheet != "" {
		d.w("<p><a id=\"sheet-link\" href=\"%s\">%s</a></p>", text(sheet), text(p.T.SeeSheet))
	}
	d.w("</section>\n")
	d.footer16(p)
	d.foot()
	return d.bytes()
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// formAnswers reads the answer fields of the page's questions into the
// JSON answers of section 10: "a<id>" (text, choices, scale, rating,
// dropdown), "r<id>_<choice>" (a ranking's positions) and
// "m<id>_<row>" (a matrix row's column). A value that is not a number
// where one belongs is passed on as a string, for the shared checks to
// refuse.
func formAnswers(f map[string][]string, c store.SurveyCollection) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	num := func(s string) any {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
		return s
	}
	put := func(id int64, v any) {
		b, _ := json.Marshal(v)
		out[strconv.FormatInt(id, 10)] = b
	}
	for _, e := range c.Layout.QuestionElements(c.Elements) {
		name := "a" + strconv.FormatInt(e.ID, 10)
		vals := f[name]
		switch e.Type {
		case survey.TypeText:
			if len(vals) > 0 && strings.TrimSpace(vals[0]) != "" {
				// A form sends each line break as CR LF (HTML's form
				// encoding); the text typed, and the script's, has LF.
				put(e.ID, strings.ReplaceAll(vals[0], "\r\n", "\n"))
			}
		case survey.TypeMultipleChoice, survey.TypePictureChoice:
			if len(vals) > 0 {
				ids := make([]any, len(vals))
				for i, s := range vals {
					ids[i] = num(s)
				}
				put(e.ID, ids)
			}
		case survey.TypeOpinionScale, survey.TypeRating, survey.TypeDropdown:
			if len(vals) > 0 && vals[0] != "" {
				put(e.ID, num(vals[0]))
			}
		case survey.TypeRanking:
			type pos struct{ at, id int64 }
			var ps []pos
			for _, ch := range e.Choices {
				s := f[fmt.Sprintf("r%d_%d", e.ID, ch.ID)]
				if len(s) == 0 {
					continue
				}
				at, _ := strconv.ParseInt(s[0], 10, 64)
				ps = append(ps, pos{at, ch.ID})
			}
			if len(ps) > 0 {
				sort.SliceStable(ps, func(i, j int) bool { return ps[i].at < ps[j].at })
				ids := make([]int64, len(ps))
				for i, x := range ps {
					ids[i] = x.id
				}
				put(e.ID, ids)
			}
		case survey.TypeMatrix:
			m := map[string]any{}
			for _, row := range e.Rows {
				if s := f[fmt.Sprintf("m%d_%d", e.ID, row.ID)]; len(s) > 0 && s[0] != "" {
					m[strconv.FormatInt(row.ID, 10)] = num(s[0])
				}
			}
			if len(m) > 0 {
				put(e.ID, m)
			}
		}
	}
	return out
}

// tiedRanks refuses a plain form's ranking whose choices do not each have
// a rank of their own (every select left at 1, say): the order would be
// the form's, not the responder's. The script's ranking sends an order;
// the API's checks see only that.
func tiedRanks(f map[string][]string, c store.SurveyCollection) error {
	errs := map[string]any{}
	for _, e := range c.Layout.QuestionElements(c.Elements) {
		if e.Type != survey.TypeRanking {
			continue
		}
		seen := map[string]bool{}
		for _, ch := range e.Choices {
			s := f[fmt.Sprintf("r%d_%d", e.ID, ch.ID)]
			if len(s) == 0 {
				continue
			}
			if seen[s[0]] {
				errs[strconv.FormatInt(e.ID, 10)] = []string{msgTiedRanks}
				break
			}
			seen[s[0]] = true
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &survey.Error{Code: survey.EINVALID, Fields: map[string]any{"answers": errs}}
}

// messages are an error's messages for the page, in its language: its
// detail, or each field's messages, an answer's prefixed with its
// question's title, isolated (a title's bidi controls end with it).
func messages(err error, elements map[int64]survey.Element, lang string) []string {
	var e *survey.Error
	if !errors.As(err, &e) {
		if awsenv.IsUnavailable(err) {
			return []string{translate(lang, msgBusy)}
		}
		return []string{translate(lang, msgSomethingWrong)}
	}
	switch {
	case e.Code == survey.ETOOMANY && e.Detail != msgTooManyGuesses:
		// A limit's 429: its detail is DRF's, with a number of seconds.
		return []string{translate(lang, msgThrottled)}
	case e.Code == survey.EUNAVAILABLE:
		return []string{translate(lang, msgBusy)}
	case api.Status(e.Code) >= 500:
		return []string{translate(lang, msgSomethingWrong)}
	}
	if len(e.Fields) == 0 {
		return []string{translate(lang, e.Detail)}
	}
	var out []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case string:
			out = append(out, prefix+translate(lang, x))
		case []any:
			for _, s := range x {
				walk(prefix, s)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := prefix
				if id, err := strconv.ParseInt(k, 10, 64); err == nil {
					if el, ok := elements[id]; ok {
						p = isolate(el.Title) + ": "
					}
				}
				walk(p, x[k])
			}
		}
	}
	// Fields nest named map types; their JSON form is plain.
	var plain any
	if b, err := json.Marshal(e.Fields); err == nil && json.Unmarshal(b, &plain) == nil {
		walk("", plain)
	}
	if len(out) == 0 {
		out = append(out, translate(lang, msgSomethingWrong))
	}
	return out
}
