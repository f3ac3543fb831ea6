package settings_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func languagesPath(id any) string { return fmt.Sprintf("/api/surveys/%v/languages/", id) }
func translationPath(id any, lang string) string {
	return fmt.Sprintf("/api/surveys/%v/translations/%s/", id, lang)
}

// langSurvey is a survey with a multiple-choice question (two choices), a
// matrix (a row and a column) and an opinion scale with labels.
type langSurvey struct {
	sid            int64
	mc, matrix     survey.Element
	scale          survey.Element
	choiceA, other int64 // a choice of mc; a row of the matrix (another element's item)
}

func (f *fixture) langSurvey(t *testing.T) langSurvey {
	t.Helper()
	ctx := t.Context()
	sid := f.newSurvey(t, "Coffee")
	mk := func(e survey.Element) survey.Element {
		t.Helper()
		ch, err := f.st.CreateElement(ctx, f.acct.ID, sid, e, survey.Placement{})
		if err != nil {
			t.Fatal(err)
		}
		return ch.Element
	}
	left, right := "bad", "good"
	s := langSurvey{sid: sid}
	s.mc = mk(survey.Element{Type: survey.TypeMultipleChoice, Title: "Which?", Choices: []survey.ChoiceItem{{Name: "Tea"}, {Name: "Coffee"}}})
	s.matrix = mk(survey.Element{Type: survey.TypeMatrix, Title: "Rate", Rows: []survey.NamedItem{{Name: "Taste"}}, Columns: []survey.NamedItem{{Name: "Fine"}}})
	s.scale = mk(survey.Element{Type: survey.TypeOpinionScale, Title: "How much?", ScaleMin: 0, ScaleMax: 5, LeftLabel: &left, RightLabel: &right})
	s.choiceA, s.other = s.mc.Choices[0].ID, s.matrix.Rows[0].ID
	return s
}

// TestLanguagesRoute: section 24's languages: GET on every plan, PUT
// Pro's; the default first, with or without it in the body, duplicates
// ignored in request order, [] leaves the default; 400 on anything else
// and nothing written; 403 naming languages without Pro, except the list
// as it is.
func TestLanguagesRoute(t *testing.T) {
	t.Parallel()
	pro := newFixture(t, survey.PlanPro)
	free := newFixture(t, survey.PlanFree)
	sid := pro.newSurvey(t, "Pro")
	fsid := free.newSurvey(t, "Free")

	check(t, "GET on a new survey", pro.do("GET", languagesPath(sid), ""), 200, `{"default":"fa","languages":["fa"]}`)
	check(t, "GET on free", free.do("GET", languagesPath(fsid), ""), 200, `{"default":"fa","languages":["fa"]}`)
	check(t, "GET of another account's", free.do("GET", languagesPath(sid), ""), 404, notFound)

	for _, tc := range []struct {
		name, body, want string
	}{
		{"others", `{"languages":["en","ar"]}`, `["fa","en","ar"]`},
		{"with the default, duplicates", `{"languages":["fa","tr","en","tr","fa"]}`, `["fa","tr","en"]`},
		{"GET's list put back", `{"languages":["fa","tr","en"]}`, `["fa","tr","en"]`},
		{"[] leaves the default", `{"languages":[]}`, `["fa"]`},
	} {
		check(t, tc.name, pro.do("PUT", languagesPath(sid), tc.body), 200, `{"default":"fa","languages":`+tc.want+`}`)
		check(t, tc.name+": GET", pro.do("GET", languagesPath(sid), ""), 200, `{"default":"fa","languages":`+tc.want+`}`)
	}
	pro.do("PUT", languagesPath(sid), `{"languages":["en"]}`)
	for _, tc := range []struct{ name, body, want string }{
		{"not a language", `{"languages":["de"]}`, `{"languages":{"0":["\"de\" is not a valid choice: fa, tr, ar or en."]}}`},
		{"upper case", `{"languages":["en","EN"]}`, `{"languages":{"1":["\"EN\" is not a valid choice: fa, tr, ar or en."]}}`},
		{"not a string", `{"languages":[4]}`, `{"languages":{"0":["Not a valid string."]}}`},
		{"a null item", `{"languages":["en",null]}`, `{"languages":{"1":["This field may not be null."]}}`},
		{"a NUL in an item", `{"languages":["en\u0000"]}`, `{"languages":{"0":["Null characters are not allowed."]}}`},
		{"not a list", `{"languages":"en"}`, `{"languages":["Expected a list of items but got type \"str\"."]}`},
		{"an object", `{"languages":{"en":1}}`, `{"languages":["Expected a list of items but got type \"dict\"."]}`},
		{"null", `{"languages":null}`, `{"languages":["This field may not be null."]}`},
		{"missing", `{}`, `{"languages":["This field is required."]}`},
	} {
		check(t, tc.name, pro.do("PUT", languagesPath(sid), tc.body), 400, tc.want)
		check(t, tc.name+": unchanged", pro.do("GET", languagesPath(sid), ""), 200, `{"default":"fa","languages":["fa","en"]}`)
	}
	check(t, "a bad body on a missing survey", pro.do("PUT", languagesPath(missingID), `{"languages":["xx"]}`), 400, nil)
	check(t, "a missing survey", pro.do("PUT", languagesPath(missingID), `{"languages":["en"]}`), 404, notFound)

	refusal := `{"detail":"Your free plan does not include these settings: languages (needs the pro plan)."}`
	check(t, "free adds a language", free.do("PUT", languagesPath(fsid), `{"languages":["en"]}`), 403, refusal)
	check(t, "free: unchanged", free.do("GET", languagesPath(fsid), ""), 200, `{"default":"fa","languages":["fa"]}`)
	check(t, "free puts the list as it is", free.do("PUT", languagesPath(fsid), `{"languages":["fa"]}`), 200, `{"default":"fa","languages":["fa"]}`)
	check(t, "free puts []", free.do("PUT", languagesPath(fsid), `{"languages":[]}`), 200, `{"default":"fa","languages":["fa"]}`)

	// The default is the survey's language: changing it moves the head.
	lang := int64(4)
	if err := pro.st.UpdateSettings(t.Context(), pro.acct.ID, sid, store.SettingsUpdate{Language: &lang}); err != nil {
		t.Fatal(err)
	}
	check(t, "default en", pro.do("GET", languagesPath(sid), ""), 200, `{"default":"en","languages":["en"]}`)
	check(t, "the default is no other language", pro.do("GET", translationPath(sid, "en"), ""), 404, notFound)
}

// TestTranslationsRoute: PUT replaces a language's texts and answers GET's
// body; every element of the survey is listed; unknown ids 400 in the
// contract's shapes (an item of another element is unknown) and nothing
// changes; a language not among the survey's others 404s; a language
// taken out keeps its texts until added again.
func TestTranslationsRoute(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanPro)
	s := f.langSurvey(t)
	check(t, "no other language yet", f.do("GET", translationPath(s.sid, "en"), ""), 404, notFound)
	check(t, "PUT before the language", f.do("PUT", translationPath(s.sid, "en"), `{"elements":{}}`), 404, notFound)
	f.do("PUT", languagesPath(s.sid), `{"languages":["en","tr"]}`)
	check(t, "the default language", f.do("GET", translationPath(s.sid, "fa"), ""), 404, notFound)
	check(t, "not a language", f.do("GET", translationPath(s.sid, "de"), ""), 404, notFound)
	check(t, "not among the survey's", f.do("GET", translationPath(s.sid, "ar"), ""), 404, notFound)

	mc, mx, sc := fmt.Sprint(s.mc.ID), fmt.Sprint(s.matrix.ID), fmt.Sprint(s.scale.ID)
	choiceA, choiceB := fmt.Sprint(s.choiceA), fmt.Sprint(s.mc.Choices[1].ID)
	row, col := fmt.Sprint(s.matrix.Rows[0].ID), fmt.Sprint(s.matrix.Columns[0].ID)
	body := fmt.Sprintf(`{"survey":{"name":"Coffee (en)"},"elements":{
		%q:{"title":"Which one?","description":null,"choices":{%q:"Tea (en)",%q:"Coffee (en)"}},
		%q:{"title":"Rate it","rows":{%q:"Taste (en)"},"columns":{%q:"Fine (en)"}},
		%q:{"left_label":"bad (en)","right_label":"good (en)"}}}`, mc, choiceA, choiceB, mx, row, col, sc)
	empty := func(string) string {
		return `"description":null,"html_description_text":null,"enter_text":null,"link_button_text":null`
	}
	want := fmt.Sprintf(`{"survey":{"name":"Coffee (en)","stale":[]},"elements":{
		%q:{"title":"Which one?",%s,"left_label":null,"right_label":null,"choices":{%q:"Tea (en)",%q:"Coffee (en)"},"rows":{},"columns":{},"stale":[]},
		%q:{"title":"Rate it",%s,"left_label":null,"right_label":null,"choices":{},"rows":{%q:"Taste (en)"},"columns":{%q:"Fine (en)"},"stale":[]},
		%q:{"title":null,%s,"left_label":"bad (en)","right_label":"good (en)","choices":{},"rows":{},"columns":{},"stale":[]}}}`,
		mc, empty(""), choiceA, choiceB, mx, empty(""), row, col, sc, empty(""))
	check(t, "PUT en", f.do("PUT", translationPath(s.sid, "en"), body), 200, want)
	check(t, "GET en", f.do("GET", translationPath(s.sid, "en"), ""), 200, want)
	r := f.do("GET", translationPath(s.sid, "en"), "")
	check(t, "GET's body put back", f.do("PUT", translationPath(s.sid, "en"), string(r.body)), 200, want)
	check(t, "tr is empty", f.do("GET", translationPath(s.sid, "tr"), ""), 200, nil)

	for _, tc := range []struct{ name, body, want string }{
		{"unknown element", `{"elements":{"999999999":{"title":"x"}}}`, `{"elements":{"999999999":["Unknown element."]}}`},
		{"not an id", `{"elements":{"abc":{"title":"x"}}}`, `{"elements":{"abc":["Unknown element."]}}`},
		// Ids are written as GET writes them: "0<id>" or "+<id>" beside "<id>" would make one body store either text.
		{"a leading zero", fmt.Sprintf(`{"elements":{"0%s":{"title":"x"}}}`, mc), fmt.Sprintf(`{"elements":{"0%s":["Unknown element."]}}`, mc)},
		{"a plus sign", fmt.Sprintf(`{"elements":{"+%s":{"title":"x"}}}`, mc), fmt.Sprintf(`{"elements":{"+%s":["Unknown element."]}}`, mc)},
		{"a choice with a leading zero", fmt.Sprintf(`{"elements":{%q:{"choices":{"0%s":"x"}}}}`, mc, choiceA),
			fmt.Sprintf(`{"elements":{%q:{"choices":{"0%s":["Unknown choice."]}}}}`, mc, choiceA)},
		{"unknown choice", fmt.Sprintf(`{"elements":{%q:{"choices":{"999999999":"x"}}}}`, mc), fmt.Sprintf(`{"elements":{%q:{"choices":{"999999999":["Unknown choice."]}}}}`, mc)},
		{"another element's item", fmt.Sprintf(`{"elements":{%q:{"choices":{%q:"x"}}}}`, mc, row), fmt.Sprintf(`{"elements":{%q:{"choices":{%q:["Unknown choice."]}}}}`, mc, row)},
		{"a choice as a row", fmt.Sprintf(`{"elements":{%q:{"rows":{%q:"x"}}}}`, mx, choiceA), fmt.Sprintf(`{"elements":{%q:{"rows":{%q:["Unknown row."]}}}}`, mx, choiceA)},
		{"unknown field", fmt.Sprintf(`{"elements":{%q:{"colour":"x"}}}`, mc), fmt.Sprintf(`{"elements":{%q:{"colour":["Unknown field."]}}}`, mc)},
		{"not a string", fmt.Sprintf(`{"elements":{%q:{"title":5}}}`, mc), fmt.Sprintf(`{"elements":{%q:{"title":["Not a valid string."]}}}`, mc)},
		// DRF's messages of a wrong type: a DictField's (elements, choices) and a nested serializer's (an entry, survey).
		{"elements not a map", `{"elements":[]}`, `{"elements":["Expected a dictionary of items but got type \"list\"."]}`},
		{"an element entry a number", fmt.Sprintf(`{"elements":{%q:5}}`, mc),
			fmt.Sprintf(`{"elements":{%q:{"non_field_errors":["Invalid data. Expected a dictionary, but got int."]}}}`, mc)},
		{"an element entry a string", fmt.Sprintf(`{"elements":{%q:"x"}}`, mc),
			fmt.Sprintf(`{"elements":{%q:{"non_field_errors":["Invalid data. Expected a dictionary, but got str."]}}}`, mc)},
		{"an element entry a list beside a good one", fmt.Sprintf(`{"elements":{%q:["x"],%q:{"title":"x"}}}`, mc, mx),
			fmt.Sprintf(`{"elements":{%q:{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}}}`, mc)},
		{"choices not a map", fmt.Sprintf(`{"elements":{%q:{"choices":true}}}`, mc),
			fmt.Sprintf(`{"elements":{%q:{"choices":["Expected a dictionary of items but got type \"bool\"."]}}}`, mc)},
		{"survey not an object", `{"survey":1.5}`, `{"survey":{"non_field_errors":["Invalid data. Expected a dictionary, but got float."]}}`},
		// DRF's null of a nested serializer (survey.MsgNull), on the entry as an unknown id is.
		{"a null element entry", fmt.Sprintf(`{"elements":{%q:null}}`, mc), fmt.Sprintf(`{"elements":{%q:["This field may not be null."]}}`, mc)},
		{"a null entry beside a good one", fmt.Sprintf(`{"elements":{%q:null,%q:{"title":"x"}}}`, mc, mx), fmt.Sprintf(`{"elements":{%q:["This field may not be null."]}}`, mc)},
		{"a null entry of an unknown element", `{"elements":{"999999999":null}}`, `{"elements":{"999999999":["Unknown element."]}}`},
		{"a NUL in a title", fmt.Sprintf(`{"elements":{%q:{"title":"Which\u0000?"}}}`, mc), fmt.Sprintf(`{"elements":{%q:{"title":["Null characters are not allowed."]}}}`, mc)},
		{"a NUL in a choice", fmt.Sprintf(`{"elements":{%q:{"choices":{%q:"Tea\u0000"}}}}`, mc, choiceA),
			fmt.Sprintf(`{"elements":{%q:{"choices":{%q:["Null characters are not allowed."]}}}}`, mc, choiceA)},
		{"a NUL in the name", `{"survey":{"name":"\u0000"}}`, `{"survey":{"name":["Null characters are not allowed."]}}`},
	} {
		check(t, tc.name, f.do("PUT", translationPath(s.sid, "en"), tc.body), 400, tc.want)
		check(t, tc.name+": unchanged", f.do("GET", translationPath(s.sid, "en"), ""), 200, want)
	}

	// PUT replaces the language's texts as a whole.
	check(t, "PUT only the name", f.do("PUT", translationPath(s.sid, "en"), `{"survey":{"name":"Coffee!"}}`), 200, nil)
	got := decodeMap(t, f.do("GET", translationPath(s.sid, "en"), "").body)
	if el := got["elements"].(map[string]any)[mc].(map[string]any); el["title"] != nil {
		t.Errorf("a PUT of the name alone kept the title: %v", el)
	}
	check(t, "back", f.do("PUT", translationPath(s.sid, "en"), body), 200, want)

	// A language taken out keeps its texts until it is added again.
	f.do("PUT", languagesPath(s.sid), `{"languages":["tr"]}`)
	check(t, "removed: 404", f.do("GET", translationPath(s.sid, "en"), ""), 404, notFound)
	f.do("PUT", languagesPath(s.sid), `{"languages":["tr","en"]}`)
	check(t, "added again: the texts are back", f.do("GET", translationPath(s.sid, "en"), ""), 200, want)
}

// TestTranslationsStale: a default text changed after it was translated
// is marked stale (title, choices.<id>, rows.<id>, the survey's name); a
// PUT of the text clears its mark; a deleted element takes its texts
// with it; a new choice has no translation.
func TestTranslationsStale(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanPro)
	ctx := t.Context()
	s := f.langSurvey(t)
	f.do("PUT", languagesPath(s.sid), `{"languages":["en"]}`)
	mc, mx := fmt.Sprint(s.mc.ID), fmt.Sprint(s.matrix.ID)
	choiceA, row := fmt.Sprint(s.choiceA), fmt.Sprint(s.other)
	body := fmt.Sprintf(`{"survey":{"name":"Coffee (en)"},"elements":{%q:{"title":"Which one?","choices":{%q:"Tea (en)"}},%q:{"title":"Rate it","rows":{%q:"Taste (en)"}}}}`, mc, choiceA, mx, row)
	check(t, "PUT", f.do("PUT", translationPath(s.sid, "en"), body), 200, nil)

	if _, err := f.st.UpdateElement(ctx, f.acct.ID, s.sid, s.mc.ID, func(e *survey.Element) error {
		e.Title = "Which now?"
		e.Choices[0].Name = "Green tea"
		e.Choices = append(e.Choices, survey.ChoiceItem{Name: "Water", Order: 3})
		return nil
	}, survey.Placement{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.UpdateElement(ctx, f.acct.ID, s.sid, s.matrix.ID, func(e *survey.Element) error {
		e.Rows[0].Name = "Smell"
		return nil
	}, survey.Placement{}); err != nil {
		t.Fatal(err)
	}
	name := "Coffee survey"
	if err := f.st.UpdateSettings(ctx, f.acct.ID, s.sid, store.SettingsUpdate{Name: &name}); err != nil {
		t.Fatal(err)
	}
	got := decodeMap(t, f.do("GET", translationPath(s.sid, "en"), "").body)
	els := got["elements"].(map[string]any)
	stale := func(id string) string { return fmt.Sprint(els[id].(map[string]any)["stale"]) }
	if want := "[title choices." + choiceA + "]"; stale(mc) != want {
		t.Errorf("stale of the question: %s, want %s", stale(mc), want)
	}
	if want := "[rows." + row + "]"; stale(mx) != want {
		t.Errorf("stale of the matrix: %s, want %s", stale(mx), want)
	}
	if sv := got["survey"].(map[string]any); fmt.Sprint(sv["stale"]) != "[name]" {
		t.Errorf("stale of the survey: %v", sv)
	}
	if n := len(els[mc].(map[string]any)["choices"].(map[string]any)); n != 1 {
		t.Errorf("the new choice came with a translation: %v", els[mc])
	}

	// A PUT of a text clears its mark, even put back unchanged (the
	// owner saw the new default and kept the translation).
	body = fmt.Sprintf(`{"survey":{"name":"Coffee survey (en)"},`+
		`"elements":{%q:{"title":"Which now?","choices":{%q:"Green tea (en)"}},%q:{"title":"Rate it","rows":{%q:"Taste (en)"}}}}`, mc, choiceA, mx, row)
	r := f.do("PUT", translationPath(s.sid, "en"), body)
	got = decodeMap(t, r.body)
	els = got["elements"].(map[string]any)
	if stale(mc) != "[]" || fmt.Sprint(got["survey"].(map[string]any)["stale"]) != "[]" {
		t.Errorf("after a PUT of the texts: %s", r.body)
	}
	if stale(mx) != "[]" {
		t.Errorf("the matrix's row put back unchanged is still stale: %s", stale(mx))
	}

	// A deleted element takes its texts with it.
	if err := f.st.DeleteElement(ctx, f.acct.ID, s.sid, s.matrix.ID); err != nil {
		t.Fatal(err)
	}
	got = decodeMap(t, f.do("GET", translationPath(s.sid, "en"), "").body)
	if _, ok := got["elements"].(map[string]any)[mx]; ok {
		t.Errorf("the deleted matrix is still listed: %v", got)
	}
	check(t, "a PUT naming the deleted element", f.do("PUT", translationPath(s.sid, "en"), fmt.Sprintf(`{"elements":{%q:{"title":"x"}}}`, mx)), 400,
		fmt.Sprintf(`{"elements":{%q:["Unknown element."]}}`, mx))
	c := f.coll(t, s.sid)
	if _, ok := c.Translations.LocalizeAll("en", "fa", c.Elements)[s.matrix.ID]; ok {
		t.Error("the localized elements hold the deleted matrix")
	}
	loc := survey.Localize(c.Elements[s.mc.ID], c.Translations.Texts["en"].Elements[s.mc.ID])
	water := c.Elements[s.mc.ID].Choices[2]
	if !loc.Missing[fmt.Sprintf("choices.%d", water.ID)] || loc.Element.Choices[2].Name != "Water" {
		t.Errorf("the new choice: %+v, missing %v; want the default text, marked", loc.Element.Choices[2], loc.Missing)
	}
}

// TestTranslationsOneRead: the public routes' cached survey carries every
// language in the one Query of its item collection; a warm view stays one
// GetItem (the survey item's version) whatever the number of languages,
// and a PUT of texts makes the next view read again.
func TestTranslationsOneRead(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanPro)
	s := f.langSurvey(t)
	f.do("PUT", languagesPath(s.sid), `{"languages":["en","tr","ar"]}`)
	for _, l := range []string{"en", "tr", "ar"} {
		check(t, "PUT "+l, f.do("PUT", translationPath(s.sid, l), fmt.Sprintf(`{"elements":{"%d":{"title":"Which (%s)"}}}`, s.mc.ID, l)), 200, nil)
	}
	read := func(what string, want map[string]int) store.SurveyCollection {
		t.Helper()
		ctx, calls := awsenv.WithCalls(context.Background())
		c, err := f.st.PublicCollection(ctx, s.sid, false)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(calls.Ops()) != fmt.Sprint(want) {
			t.Errorf("%s: %v, want %v", what, calls.Ops(), want)
		}
		return c
	}
	c := read("a cold view", map[string]int{"DynamoDB.GetItem": 1, "DynamoDB.Query": 1})
	if len(c.Translations.Texts) != 3 || c.Translations.Texts["ar"].Elements[s.mc.ID].Fields["title"].V != "Which (ar)" {
		t.Errorf("the public read's translations: %+v", c.Translations)
	}
	read("a warm view", map[string]int{"DynamoDB.GetItem": 1})
	check(t, "PUT en again", f.do("PUT", translationPath(s.sid, "en"), fmt.Sprintf(`{"elements":{"%d":{"title":"Which now"}}}`, s.mc.ID)), 200, nil)
	c = read("after a PUT", map[string]int{"DynamoDB.GetItem": 1, "DynamoDB.Query": 1})
	if got := c.Translations.Texts["en"].Elements[s.mc.ID].Fields["title"].V; got != "Which now" {
		t.Errorf("the view after the PUT: %q", got)
	}
	read("warm again", map[string]int{"DynamoDB.GetItem": 1})
}

// TestTranslationsCopied: a copy (and a template start, the same copy
// from a template survey) keeps the languages and the texts, under the
// copy's own element and item ids; the source's are untouched.
func TestTranslationsCopied(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanPro)
	ctx := t.Context()
	s := f.langSurvey(t)
	f.do("PUT", languagesPath(s.sid), `{"languages":["en","ar"]}`)
	body := fmt.Sprintf(`{"survey":{"name":"Coffee (en)"},"elements":{"%d":{"title":"Which one?","choices":{"%d":"Tea (en)"}},"%d":{"rows":{"%d":"Taste (en)"}}}}`,
		s.mc.ID, s.choiceA, s.matrix.ID, s.other)
	check(t, "PUT en", f.do("PUT", translationPath(s.sid, "en"), body), 200, nil)
	src, err := f.st.CopySource(ctx, f.acct.ID, s.sid)
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.st.CopySurvey(ctx, src, store.CopySpec{AccountID: f.acct.ID, FolderID: f.folder, Name: "Copy", Plan: f.acct.Plan})
	if err != nil {
		t.Fatal(err)
	}
	cid := res.Survey.ID
	check(t, "the copy's languages", f.do("GET", languagesPath(cid), ""), 200, `{"default":"fa","languages":["fa","en","ar"]}`)
	got := decodeMap(t, f.do("GET", translationPath(cid, "en"), "").body)
	c := f.coll(t, cid)
	var mc, mx survey.Element
	for _, e := range c.Elements {
		switch e.Type {
		case survey.TypeMultipleChoice:
			mc = e
		case survey.TypeMatrix:
			mx = e
		}
	}
	if mc.ID == s.mc.ID || mc.ID == 0 {
		t.Fatalf("the copy's question %d (source %d)", mc.ID, s.mc.ID)
	}
	els := got["elements"].(map[string]any)
	q := els[fmt.Sprint(mc.ID)].(map[string]any)
	if q["title"] != "Which one?" || q["choices"].(map[string]any)[fmt.Sprint(mc.Choices[0].ID)] != "Tea (en)" || fmt.Sprint(q["stale"]) != "[]" {
		t.Errorf("the copy's question texts: %v", q)
	}
	if m := els[fmt.Sprint(mx.ID)].(map[string]any); m["rows"].(map[string]any)[fmt.Sprint(mx.Rows[0].ID)] != "Taste (en)" {
		t.Errorf("the copy's matrix texts: %v", m)
	}
	if sv := got["survey"].(map[string]any); sv["name"] != "Coffee (en)" || fmt.Sprint(sv["stale"]) != "[name]" {
		t.Errorf("the copy's name (another name than the source's, so stale): %v", sv)
	}
	check(t, "the source unchanged", f.do("GET", translationPath(s.sid, "en"), ""), 200, nil)
}

// TestTranslationsTooLarge: a language's texts beyond what one item of
// every language can hold are a 400 on elements, nothing written.
func TestTranslationsTooLarge(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanPro)
	s := f.langSurvey(t)
	f.do("PUT", languagesPath(s.sid), `{"languages":["en"]}`)
	long := strings.Repeat("x", survey.MaxTranslatedText)
	els := map[string]any{}
	for _, id := range []int64{s.mc.ID, s.matrix.ID, s.scale.ID} {
		els[fmt.Sprint(id)] = map[string]any{"title": long, "description": long, "html_description_text": long, "enter_text": long,
			"left_label": long, "right_label": long, "link_button_text": long}
	}
	r := f.do("PUT", translationPath(s.sid, "en"), mustJSON(t, map[string]any{"elements": els}))
	if r.code != 400 || !strings.Contains(string(r.body), `"elements":["The texts of one language take at most 90000 bytes`) {
		t.Errorf("too large: %v", r)
	}
	got := decodeMap(t, f.do("GET", translationPath(s.sid, "en"), "").body)
	if el := got["elements"].(map[string]any)[fmt.Sprint(s.mc.ID)].(map[string]any); el["title"] != nil {
		t.Error("the refused texts were written")
	}
}

// TestTranslationsTrimmed: a translated text is trimmed first, as every
// string field (contract section 3), so spaces around a text are not
// stored and a text of spaces alone is no translation: the page shows the
// default text (section 24), not a blank title, name or choice.
func TestTranslationsTrimmed(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanPro)
	s := f.langSurvey(t)
	f.do("PUT", languagesPath(s.sid), `{"languages":["en"]}`)
	mc, choiceA := fmt.Sprint(s.mc.ID), fmt.Sprint(s.choiceA)
	for _, tc := range []struct {
		name, body                string
		title, choice, surveyName any
	}{
		{"spaces around", fmt.Sprintf(`{"survey":{"name":"  Coffee (en) "},"elements":{%q:{"title":"\tWhich one? \n","choices":{%q:" Tea (en) "}}}}`, mc, choiceA),
			"Which one?", "Tea (en)", "Coffee (en)"},
		{"spaces alone", fmt.Sprintf(`{"survey":{"name":"   "},"elements":{%q:{"title":" \t ","choices":{%q:"\n"}}}}`, mc, choiceA),
			nil, nil, nil},
	} {
		check(t, tc.name, f.do("PUT", translationPath(s.sid, "en"), tc.body), 200, nil)
		got := decodeMap(t, f.do("GET", translationPath(s.sid, "en"), "").body)
		el := got["elements"].(map[string]any)[mc].(map[string]any)
		choice := el["choices"].(map[string]any)[choiceA]
		name := got["survey"].(map[string]any)["name"]
		if el["title"] != tc.title || choice != tc.choice || name != tc.surveyName {
			t.Errorf("%s: title %q, choice %q, name %q; want %q, %q, %q", tc.name, el["title"], choice, name, tc.title, tc.choice, tc.surveyName)
		}
	}
}
