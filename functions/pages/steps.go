package pages

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"surveyservice/shared/links"
	"surveyservice/shared/responding"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// stepState is what the plain form carries from page to page, sealed.
type stepState struct {
	// At is the page shown (an index of displayPages).
	At int `json:"at"`
	// Answers are the answers kept so far (canonical, by element id).
	Answers map[string]json.RawMessage `json:"answers"`
}

// stepView is what renderSurvey needs to write one page of the steps.
type stepView struct {
	At    int
	Token string
	Shown map[int64]bool
	// Place and Total are the progress bar: the page's place among the
	// pages shown, and their number, under the answers so far.
	Place, Total int
	Prev, Last   bool
}

// stepped reports whether the survey's plain form goes page by page: when
// one of its questions has display rules.
//
// The plain form of a survey with display rules (contract section 15),
// for a browser without the page's script: it goes page by page on the
// server, with the script's semantics. Each POST carries, sealed in the
// form (links.PurposeSteps), the page it shows and the answers given on
// the pages before; the server reads the fields of the questions that
// page showed and nothing else, keeps the answers under the rules
// (survey.CheckAsked: an answer of a question that became hidden is
// cleared, a shown required one on that page must be answered), and shows
// the next page with something shown, skipping the others, or submits
// after the last through the same path as the script (section 11). A
// hidden question is never shown and its answer never sent.
//
// The survey's first page is the page every browser gets (GET): without
// the script, its later question pages and the script's buttons are
// hidden by the stylesheet (the form's "steps" class), the questions
// hidden with no answer carry hidden, and a plain Next button posts it.
func stepped(s survey.ResponderSurvey) bool {
	for _, pg := range s.Questions {
		for _, q := range pg {
			if q.Conditions != nil && len(*q.Conditions) > 0 {
				return true
			}
		}
	}
	return false
}

// displayPages are the question pages the responder's page shows: the
// survey's pages, or with responding_duration_type 2 one question a page
// (contract section 15: one question at a time, each with its own
// countdown), a group's title on the page of its first question.
func displayPages(s survey.ResponderSurvey) [][]survey.ElementView {
	if s.RespondingDurationType != survey.DurationPerQuestion {
		return s.Questions
	}
	var out [][]survey.ElementView
	for _, pg := range s.Questions {
		var head []survey.ElementView
		for _, q := range pg {
			if q.Type == survey.TypeGroup {
				head = append(head, q)
				continue
			}
			page := make([]survey.ElementView, 0, len(head)+1)
			out = append(out, append(append(page, head...), q))
			head = nil
		}
		if len(head) > 0 {
			out = append(out, head)
		}
	}
	return out
}

var errStepsInvalid = survey.Errorf(survey.EINVALID, "The form could not be read.")

func sealSteps(ctx context.Context, sealer responding.Sealer, sid int64, s stepState) (string, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	return sealer.SealFor(ctx, links.PurposeSteps, sid, b)
}

// openSteps opens the form's steps: the first page with no answers when
// the form has none (the page every browser gets).
func openSteps(ctx context.Context, sealer responding.Sealer, sid int64, token string, pages int) (stepState, error) {
	s := stepState{Answers: map[string]json.RawMessage{}}
	if token == "" {
		return s, nil
	}
	plain, err := sealer.OpenFor(ctx, links.PurposeSteps, sid, token)
	if err != nil {
		return s, errStepsInvalid
	}
	if json.Unmarshal(plain, &s) != nil || s.At < 0 || s.At >= pages {
		return stepState{Answers: map[string]json.RawMessage{}}, errStepsInvalid
	}
	if s.Answers == nil {
		s.Answers = map[string]json.RawMessage{}
	}
	return s, nil
}

// steps is one POST of the plain form of a stepped survey.
type steps struct {
	c         store.SurveyCollection
	pages     [][]survey.ElementView
	questions []survey.Element
}

func newSteps(c store.SurveyCollection, v survey.ResponderSurvey) steps {
	return steps{c: c, pages: displayPages(v), questions: c.Layout.QuestionElements(c.Elements)}
}

// shown is which questions the rules show under answers.
func (s steps) shown(answers map[string]json.RawMessage) map[int64]bool {
	return survey.Shown(s.questions, s.c.Layout.Members, byID(answers))
}

func byID(answers map[string]json.RawMessage) map[int64]json.RawMessage {
	out := make(map[int64]json.RawMessage, len(answers))
	for k, v := range answers {
		if id, err := strconv.ParseInt(k, 10, 64); err == nil {
			out[id] = v
		}
	}
	return out
}

// pageShown reports whether page i shows something.
func (s steps) pageShown(i int, shown map[int64]bool) bool {
	for _, q := range s.pages[i] {
		if shown[q.ID] {
			return true
		}
	}
	return false
}

// next is the next page from i in direction dir (+1, -1) that shows
// something, or -1.
func (s steps) next(i, dir int, shown map[int64]bool) int {
	for j := i + dir; j >= 0 && j < len(s.pages); j += dir {
		if s.pageShown(j, shown) {
			return j
		}
	}
	return -1
}

// view is page at with the answers kept, sealed for the next POST.
func (s steps) view(ctx context.Context, sealer responding.Sealer, st stepState, shown map[int64]bool) (*stepView, error) {
	token, err := sealSteps(ctx, sealer, s.c.Survey.ID, st)
	if err != nil {
		return nil, err
	}
	return s.viewOf(st.At, token, shown), nil
}

// viewOf is page at under its sealed state token.
func (s steps) viewOf(at int, token string, shown map[int64]bool) *stepView {
	v := &stepView{At: at, Token: token, Shown: shown, Prev: s.next(at, -1, shown) >= 0, Last: s.next(at, 1, shown) < 0}
	for i := range s.pages {
		if s.pageShown(i, shown) {
			v.Total++
			if i <= at {
				v.Place = v.Total
			}
		}
	}
	return v
}

// onPage keeps of a plain form's fields those of the questions in ids:
// a<id>, r<id>_<choice>, m<id>_<row>.
func onPage(f url.Values, ids map[int64]bool) url.Values {
	out := url.Values{}
	for name, vals := range f {
		if len(name) < 2 || !strings.ContainsRune("arm", rune(name[0])) {
			continue
		}
		digits, _, _ := strings.Cut(name[1:], "_")
		if id, err := strconv.ParseInt(digits, 10, 64); err == nil && ids[id] {
			out[name] = vals
		}
	}
	return out
}

// answersForm writes kept answers back as the plain form's fields, so a
// page shown again shows them chosen.
func answersForm(questions []survey.Element, answers map[string]json.RawMessage) url.Values {
	f := url.Values{}
	for i := range questions {
		e := &questions[i]
		raw, ok := answers[strconv.FormatInt(e.ID, 10)]
		if !ok {
			continue
		}
		name := fmt.Sprintf("a%d", e.ID)
		switch e.Type {
		case survey.TypeText:
			var s string
			if json.Unmarshal(raw, &s) == nil {
				f.Set(name, s)
			}
		case survey.TypeMultipleChoice, survey.TypePictureChoice:
			var ids []int64
			if json.Unmarshal(raw, &ids) == nil {
				for _, id := range ids {
					f.Add(name, strconv.FormatInt(id, 10))
				}
			}
		case survey.TypeOpinionScale, survey.TypeRating, survey.TypeDropdown:
			var n int64
			if json.Unmarshal(raw, &n) == nil {
				f.Set(name, strconv.FormatInt(n, 10))
			}
		case survey.TypeRanking:
			var ids []int64
			if json.Unmarshal(raw, &ids) == nil {
				for at, id := range ids {
					f.Set(fmt.Sprintf("r%d_%d", e.ID, id), strconv.Itoa(at+1))
				}
			}
		case survey.TypeMatrix:
			var m map[string]int64
			if json.Unmarshal(raw, &m) == nil {
				rows := make([]string, 0, len(m))
				for row := range m {
					rows = append(rows, row)
				}
				sort.Strings(rows)
				for _, row := range rows {
					f.Set(fmt.Sprintf("m%d_%s", e.ID, row), strconv.FormatInt(m[row], 10))
				}
			}
		}
	}
	return f
}

// step takes one page of the plain form: the answers of the page it
// showed, checked and kept; then the page to show, with done false, or
// the answers to submit, with done true. A refusal is the page again
// with its messages: view is then the page as it was.
func (s steps) step(ctx context.Context, sealer responding.Sealer, token string, f url.Values) (view *stepView, answers map[string]json.RawMessage, done bool, err error) {
	st, err := openSteps(ctx, sealer, s.c.Survey.ID, token, len(s.pages))
	if err != nil {
		return s.viewOf(0, "", s.shown(nil)), nil, false, err
	}
	if len(s.pages) == 0 {
		return nil, st.Answers, true, nil // nothing to ask
	}
	before := s.shown(st.Answers)
	here := s.viewOf(st.At, token, before)
	// The questions the page showed: only their fields are read.
	asked := map[int64]bool{}
	onThis := map[int64]bool{}
	for _, q := range s.pages[st.At] {
		onThis[q.ID] = true
		if before[q.ID] {
			asked[q.ID] = true
		}
	}
	fields := onPage(f, asked)
	if err := tiedRanks(fields, s.c); err != nil {
		return here, nil, false, err
	}
	merged := make(map[string]json.RawMessage, len(st.Answers)+len(asked))
	for k, v := range st.Answers {
		if id, err := strconv.ParseInt(k, 10, 64); err == nil && !onThis[id] {
			merged[k] = v
		}
	}
	for k, v := range formAnswers(fields, s.c) {
		merged[k] = v
	}
	back := f.Get("nav") == "prev"
	if back {
		asked = nil // going back asks nothing; what does not read is dropped
	}
	canon, shown, err := survey.CheckAsked(s.questions, s.c.Layout.Members, merged, asked)
	switch {
	case err != nil && back:
		canon, shown = byID(st.Answers), before // the page's answers as they were
	case err != nil:
		return here, nil, false, err
	}
	kept := make(map[string]json.RawMessage, len(canon))
	for id, v := range canon {
		kept[strconv.FormatInt(id, 10)] = v
	}
	at := st.At
	switch {
	case back:
		if j := s.next(at, -1, shown); j >= 0 {
			at = j
		}
	case s.revealed(at, before, shown):
		// An answer on this page showed another question of it: the page
		// again, with that question.
	default:
		at = s.next(at, 1, shown)
		if at < 0 {
			return here, kept, true, nil
		}
	}
	view, err = s.view(ctx, sealer, stepState{At: at, Answers: kept}, shown)
	return view, kept, false, err
}

// revealed reports whether page at shows a question now that it did not
// show before.
func (s steps) revealed(at int, before, now map[int64]bool) bool {
	for _, q := range s.pages[at] {
		if now[q.ID] && !before[q.ID] {
			return true
		}
	}
	return false
}

// hasLater reports whether a page after the first shows something.
func hasLater(pages [][]survey.ElementView, shown map[int64]bool) bool {
	for _, pg := range pages[min(1, len(pages)):] {
		for _, q := range pg {
			if shown[q.ID] {
				return true
			}
		}
	}
	return false
}

// step writes the rest of a plain form's page after a POST (from the
// errors and the progress bar on): the code field while no session has
// started, the shown questions of the page, and its buttons, which post
// the form; no script.
func (d *doc) step(p surveyPage, pages [][]survey.ElementView) {
	s, st := p.Survey, p.Step
	if s.CodeAuth && p.Session == "" {
		d.codePage(p)
	}
	d.w("<section class=\"page qp\" data-page=\"%s\">\n", num(st.At))
	for _, q := range pages[st.At] {
		if st.Shown[q.ID] {
			d.question(q, p.Form, p.T, false)
		}
	}
	d.w("</section>\n<div class=\"nav\">\n")
	label := p.T.Next
	if st.Last {
		label = p.T.Submit
	}
	if st.Prev && !s.HidePreviousButton {
		// Enter presses the form's first submit button: a hidden Next
		// before Previous.
		d.w(`<button type="submit" name="nav" value="next" hidden tabindex="-1">%s</button>
<button type="submit" name="nav" value="prev" id="prev" class="prev">%s</button>
`, text(label), text(p.T.Previous))
	}
	d.w("<button type=\"submit\" name=\"nav\" value=\"next\" id=\"submit\" class=\"submit\">%s</button>\n</div>\n</form>\n", text(label))
	d.footer16(p)
	d.foot()
}

// timeUp reports whether the session's time to respond is over, checked
// at each page as the script's countdown ends the page (the submission
// checks it again, and refuses a session that does not open).
func (s steps) timeUp(ctx context.Context, sealer responding.Sealer, session string, shown map[int64]bool, now time.Time) bool {
	plain, err := sealer.OpenFor(ctx, links.PurposeSession, s.c.Survey.ID, session)
	if err != nil {
		return false
	}
	sess, err := responding.DecodeSession(plain)
	if err != nil {
		return false
	}
	set := s.c.Settings
	if set.RespondingDurationType == survey.DurationPerQuestion {
		d, ok := survey.QuestionsDeadline(sess.StartedAt, s.questions, shown)
		return ok && now.After(d)
	}
	d, ok := survey.ResponseDeadline(sess.StartedAt, set.RespondingDuration)
	return ok && now.After(d)
}
