package responders_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"surveyservice/shared/survey"
)

// publicInLanguage is what TestPublicSurveyLanguages reads of the public
// view: its languages and every text a responder reads.
type publicInLanguage struct {
	Name      string   `json:"name"`
	Language  string   `json:"language"`
	Languages []string `json:"languages"`
	Served    *string  `json:"served_language"`
	Welcome   []struct {
		Title string `json:"title"`
	} `json:"welcome"`
	Questions [][]struct {
		Title       string `json:"title"`
		Description string `json:"description"`
		Choices     []struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		} `json:"choices"`
	} `json:"questions"`
}

// texts are the view's texts in reading order: name, welcome title,
// question title, description, choices.
func (v publicInLanguage) texts() []string {
	out := []string{v.Name}
	for _, w := range v.Welcome {
		out = append(out, w.Title)
	}
	for _, page := range v.Questions {
		for _, q := range page {
			out = append(out, q.Title, q.Description)
			for _, c := range q.Choices {
				out = append(out, c.Name)
			}
		}
	}
	return out
}

// TestPublicSurveyLanguages: contract sections 11 and 24 for API clients.
// The public survey lists the survey's languages (default first, as the
// owner's GET languages/ does) and answers ?lang= (one of them) with every
// text a responder reads in that language, untranslated ones in the
// default, naming the language served in served_language; `language`
// stays the survey's own; a text put where the default has none is shown
// too. A ?lang= that is not one of the survey's (another case, a tag, a
// language not enabled, empty) is ignored, as on the page;
// Accept-Language is not read (a client that ignores languages keeps the
// default, which its sessions record). On a warm container the
// language costs no DynamoDB call: the translations are items of the
// collection the view reads anyway.
func TestPublicSurveyLanguages(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	slug, sid := f.survey(t, nil) // a fa survey named "Coded"
	w := survey.NewElement(survey.TypeWelcome)
	w.Title = "خوش آمدید"
	welcome, err := f.st.CreateElement(ctx, f.aid, sid, w, survey.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	q := f.choiceQuestion(t, sid, survey.TypeMultipleChoice, -1, "یک", "دو")
	one := f.choiceQuestion(t, sid, survey.TypeDropdown, -1, "تنها") // no language of its own
	if err := f.st.SetLanguages(ctx, f.aid, sid, []string{"en", "ar"}); err != nil {
		t.Fatal(err)
	}
	c, err := f.st.SurveyCollection(ctx, f.aid, sid)
	if err != nil {
		t.Fatal(err)
	}
	id := func(n int64) string { return strconv.FormatInt(n, 10) }
	tr, err := survey.DecodeTranslation(map[string]json.RawMessage{
		"survey": json.RawMessage(`{"name":"Coded in English"}`),
		"elements": json.RawMessage(`{"` + id(welcome.Element.ID) + `":{"title":"Welcome"},"` + id(q.ID) +
			`":{"title":"One or two?","description":"Only the translation has a description.","choices":{"` + id(q.Choices[0].ID) + `":"One"}}}`),
	}, c.Survey.Name, c.Elements)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.PutTranslation(ctx, f.aid, sid, "en", tr); err != nil {
		t.Fatal(err)
	}
	fa := []string{"Coded", "خوش آمدید", q.Title, "", "یک", "دو", one.Title, "", "تنها"}
	// A text put over an empty default (the question's description) shows:
	// the owner put it, and GET answers it.
	en := []string{"Coded in English", "Welcome", "One or two?", "Only the translation has a description.", "One", "دو", one.Title, "", "تنها"}
	all := []string{"fa", "en", "ar"}
	get := func(tb testing.TB, query string, headers ...string) (publicInLanguage, reply) {
		tb.Helper()
		r := send(tb, f.h, "GET", surveyPath(slug)+query, "", headers...)
		var v publicInLanguage
		if r.code != 200 || json.Unmarshal([]byte(r.body), &v) != nil {
			tb.Fatalf("GET %s: %d %s", query, r.code, r.body)
		}
		return v, r
	}
	get(t, "") // warms the container
	_, plain := get(t, "")
	for _, tc := range []struct {
		name, query, accept string
		served              string
		texts               []string
	}{
		{"no lang: the default", "", "", "fa", fa},
		{"a translated language", "?lang=en", "", "en", en},
		{"a language with no text put: the default's texts", "?lang=ar", "", "ar", fa},
		{"the default named", "?lang=fa", "", "fa", fa},
		{"another case: ignored", "?lang=EN", "", "fa", fa},
		{"a tag: ignored", "?lang=en-US", "", "fa", fa},
		{"a page language the survey does not speak: ignored", "?lang=tr", "", "fa", fa},
		{"not a language: ignored", "?lang=" + url.QueryEscape("<x>"), "", "fa", fa},
		{"empty: ignored", "?lang=", "", "fa", fa},
		{"the first of repeated ones", "?lang=en&lang=ar", "", "en", en},
		{"Accept-Language is not read", "", "en", "fa", fa},
		{"?lang= wins over Accept-Language", "?lang=ar", "en", "ar", fa},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var headers []string
			if tc.accept != "" {
				headers = []string{"Accept-Language", tc.accept}
			}
			v, r := get(t, tc.query, headers...)
			if v.Language != "fa" || !slices.Equal(v.Languages, all) || v.Served == nil || *v.Served != tc.served {
				t.Errorf("language %q, languages %q, served_language %v; want fa, %q, %q", v.Language, v.Languages, v.Served, all, tc.served)
			}
			if got := v.texts(); !slices.Equal(got, tc.texts) {
				t.Errorf("texts %q, want %q", got, tc.texts)
			}
			if r.calls != plain.calls || !maps.Equal(r.ops, plain.ops) {
				t.Errorf("DynamoDB on a warm container: %d calls %v, without lang %d %v", r.calls, r.ops, plain.calls, plain.ops)
			}
		})
	}
	t.Logf("a warm view in any language: %d DynamoDB calls %v", plain.calls, plain.ops)

	// A survey in one language lists it alone.
	slug1, _ := f.survey(t, nil)
	r := send(t, f.h, "GET", surveyPath(slug1)+"?lang=en", "")
	var v publicInLanguage
	if r.code != 200 || json.Unmarshal([]byte(r.body), &v) != nil || !slices.Equal(v.Languages, []string{"fa"}) || v.Served == nil || *v.Served != "fa" {
		t.Errorf("a survey in one language: %d %s", r.code, r.body)
	}
}
