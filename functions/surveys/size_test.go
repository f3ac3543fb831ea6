package surveys_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// costly is the character that costs most in JSON: a control character,
// written \u0001 (6 bytes for 1 character). Element texts may hold it.
const costly = "\x01"

// fullElement is an element of type t whose every text field is at its
// limit, filled with fill (URL fields too, which validation would refuse:
// the bound computed from it is an upper one).
func fullElement(id int64, t survey.ElementType, fill string) survey.Element {
	e := survey.NewElement(t)
	e.ID = id
	r := func(n int) string { return strings.Repeat(fill, n) }
	path, video, duration := r(survey.MaxElementImagePath), r(survey.MaxElementVideoURL), "99:59:59"
	e.Title, e.HTMLTitle = r(survey.MaxElementTitle), r(survey.MaxElementHTMLTitle)
	e.ImagePath, e.ImageName, e.VideoURL = &path, r(survey.MaxElementImageName), &video
	e.DescriptionText, e.HTMLDescriptionText = r(survey.MaxElementDescription), r(survey.MaxElementHTMLDescription)
	e.Description, e.EnterText, e.LinkButtonText = r(survey.MaxElementDescription), r(survey.MaxElementEnterText), r(survey.MaxLinkButtonText)
	e.RespondingDuration = &duration
	link := int64(1 << 40)
	e.Link = &link
	return e
}

// docSize is an element's size as the store counts it: its JSON document.
func docSize(t *testing.T, e survey.Element) int {
	doc, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return len(doc)
}

// answerSize is v's size as api.Respond writes it (no HTML escaping).
func answerSize(t *testing.T, v any) int {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Len() - 1
}

// worstDetail is the largest survey detail around the given elements:
// every other part at its limit too (name, owner, 100 variables with
// names of 4-byte letters).
func worstDetail(t *testing.T, elements []survey.Element) survey.SurveyDetail {
	var l survey.Layout
	byID := map[int64]survey.Element{}
	for _, e := range elements {
		switch e.Type {
		case survey.TypeWelcome:
			l.Welcome = append(l.Welcome, e.ID)
		case survey.TypeAppreciation:
			l.Appreciations = append(l.Appreciations, e.ID)
		default:
			l.Questions = append(l.Questions, e.ID)
		}
		byID[e.ID] = e
	}
	exp := "2099-12-31"
	sv := survey.Survey{ID: 1 << 30, AccountID: 1 << 30, FolderID: 1 << 30, Name: strings.Repeat(costly, survey.MaxSurveyName),
		Language: 1, URLSlug: strings.Repeat("a", survey.SlugLength), PreviewCode: strings.Repeat("a", survey.PreviewCodeLength),
		ReportCode: strings.Repeat("a", survey.ReportCodeLength), Created: time.Now(), Views: 1 << 62, SubmittedResponses: 1 << 62,
		ExpirationDate: exp, QuestionCount: len(l.Questions), Theme: survey.DefaultTheme()}
	owner := survey.Profile{Email: strings.Repeat("a", 242) + "@example.com", FirstName: strings.Repeat(costly, 150), LastName: strings.Repeat(costly, 150), UserType: 1}
	d := sv.Detail(time.Now(), owner, l, byID)
	duration := "99:59:59"
	d.Settings = survey.SettingsSummary{RespondingDurationType: 2, QuestionsRespondingDuration: &duration}
	for i := range survey.MaxVariables {
		d.Variables = append(d.Variables, survey.Variable{ID: 1<<31 - 1 - int64(i), Name: strings.Repeat("𝔸", survey.MaxVariableName-3) + strings.Repeat("9", 3),
			VariableSource: 0, Type: 2, HasResponse: true})
	}
	return d
}

// TestSurveyDetailBound computes the largest survey detail the content
// bound allows: elements as large as one can be until their documents
// reach survey.MaxSurveyContent, and the most elements (1,000) sharing it.
// Building those on the emulator is TestSurveyDetailAtTheContentBound.
func TestSurveyDetailBound(t *testing.T) {
	t.Parallel()
	one := docSize(t, fullElement(1<<31-1, survey.TypeAppreciation, costly))
	unbounded := answerSize(t, worstDetail(t, func() []survey.Element {
		var es []survey.Element
		for i := range survey.MaxElements {
			es = append(es, fullElement(int64(1<<31-1-i), survey.TypeText, costly))
		}
		return es
	}()))
	t.Logf("one element at every limit: %d bytes of document; 1,000 of them, unbounded: a detail of %s", one, api.SizeName(int64(unbounded)))

	cases := map[string]func() []survey.Element{
		"elements at every limit": func() []survey.Element {
			var es []survey.Element
			for sum, i := 0, 0; ; i++ {
				e := fullElement(int64(1<<31-1-i), []survey.ElementType{survey.TypeWelcome, survey.TypeText, survey.TypeAppreciation}[i%3], costly)
				if sum += docSize(t, e); sum > survey.MaxSurveyContent {
					return es
				}
				es = append(es, e)
			}
		},
		"1,000 elements sharing the bound": func() []survey.Element {
			// Titles of '"' (2 bytes, in the document and in the answer) as
			// long as 1,000 such elements fit.
			title := survey.MaxSurveyContent / survey.MaxElements / 2
			sized := func(id int64) survey.Element {
				e := fullElement(id, survey.TypeText, "")
				e.Title = strings.Repeat(`"`, title)
				return e
			}
			for docSize(t, sized(1<<31-1))*survey.MaxElements > survey.MaxSurveyContent {
				title--
			}
			var es []survey.Element
			for i := range survey.MaxElements {
				es = append(es, sized(int64(1<<31-1-i)))
			}
			return es
		},
	}
	for name, build := range cases {
		es := build()
		content := 0
		for _, e := range es {
			content += docSize(t, e)
		}
		size := answerSize(t, worstDetail(t, es))
		t.Logf("%s: %d elements, %s of documents: a detail of %d bytes (%s)", name, len(es), api.SizeName(int64(content)), size, api.SizeName(int64(size)))
		if content > survey.MaxSurveyContent || size > api.MaxAnswer {
			t.Errorf("%s: content %d (bound %d), detail %d bytes (bound %d)", name, content, survey.MaxSurveyContent, size, api.MaxAnswer)
		}
	}
}

// TestSurveyDetailAtTheContentBound builds, on the emulator, a survey of
// elements at every limit until the store refuses the next one, and checks
// the detail the route answers.
func TestSurveyDetailAtTheContentBound(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	ctx := t.Context()
	sv, err := f.st.CreateSurvey(ctx, survey.Survey{AccountID: f.acct.ID, FolderID: folder(t, f.st, f.acct.ID, "Big"),
		Name: strings.Repeat(costly, survey.MaxSurveyName), Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	sid := sv.ID
	var made int
	for i := 0; ; i++ {
		e := fullElement(0, []survey.ElementType{survey.TypeWelcome, survey.TypeText, survey.TypeAppreciation}[i%3], costly)
		_, err := f.st.CreateElement(ctx, f.acct.ID, sid, e, survey.Placement{})
		if err != nil {
			if survey.ErrorCode(err) != survey.EINVALID || !strings.Contains(err.Error(), "3 MiB") {
				t.Fatalf("element %d: %v, want the content bound", i+1, err)
			}
			break
		}
		made++
	}
	r := f.do(t, "GET", detailPath(sid), "")
	if r.code != 200 {
		t.Fatalf("detail: %d %.300s", r.code, r.body)
	}
	t.Logf("%d elements at every limit, then the bound: the detail answers %d bytes (%s)", made, len(r.body), api.SizeName(int64(len(r.body))))
	if len(r.body) > api.MaxAnswer {
		t.Errorf("detail of %d bytes, over the %d bound", len(r.body), api.MaxAnswer)
	}
	var d struct {
		Welcome, Appreciations []json.RawMessage
		Questions              [][]json.RawMessage
	}
	if err := json.Unmarshal(r.body, &d); err != nil || len(d.Welcome)+len(d.Appreciations)+len(d.Questions) != made {
		t.Errorf("detail holds %d+%d+%d elements, want %d (%v)", len(d.Welcome), len(d.Questions), len(d.Appreciations), made, err)
	}
	// At the bound, an element can still shrink.
	c, err := f.st.SurveyCollection(ctx, f.acct.ID, sid)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.UpdateElement(ctx, f.acct.ID, sid, c.Layout.Questions[0], func(e *survey.Element) error { e.Title = "short"; return nil }, survey.Placement{}); err != nil {
		t.Errorf("shrinking an element at the bound: %v", err)
	}
}
