package responses_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"surveyservice/internal/storetest"
	"surveyservice/shared/survey"
)

// langSurvey is a fa survey with an en translation: a multiple choice
// question (its title and one of its two choices translated) and a text
// question left untranslated; three responses choosing by id, given in
// fa, in en, and before languages (no language).
type langSurvey struct {
	sid       int64
	choice    survey.Element
	responses []survey.Response // fa, en, none: oldest first
}

func (f *fixture) langSurvey(t *testing.T) langSurvey {
	t.Helper()
	ctx := t.Context()
	sid, text := f.newSurvey(t, "چندزبانه")
	ids, err := f.st.NewIDs(ctx, "choice", 2)
	if err != nil {
		t.Fatal(err)
	}
	e := survey.NewElement(survey.TypeMultipleChoice)
	e.Title = "رنگ؟"
	e.Choices = []survey.ChoiceItem{{ID: ids[0], Name: "قرمز", Order: 1}, {ID: ids[1], Name: "آبی", Order: 2}}
	e = f.createElement(t, sid, e, nil)
	if err := f.st.SetLanguages(ctx, f.acct.ID, sid, []string{"en"}); err != nil {
		t.Fatal(err)
	}
	c, err := f.st.SurveyCollection(ctx, f.acct.ID, sid)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"elements": map[string]any{fmt.Sprint(e.ID): map[string]any{
		"title": "Colour?", "choices": map[string]any{fmt.Sprint(ids[0]): "Red"}}}})
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatal(err)
	}
	tr, err := survey.DecodeTranslation(raw, c.Survey.Name, c.Elements)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.PutTranslation(ctx, f.acct.ID, sid, "en", tr); err != nil {
		t.Fatal(err)
	}
	var rs []survey.Response
	for i, lang := range []string{"fa", "en", ""} {
		at := t0.Add(time.Duration(i) * time.Minute)
		choice, _ := json.Marshal([]int64{ids[0]})
		answer, _ := json.Marshal("x")
		rs = append(rs, survey.Response{SurveyID: sid, SubmittedAt: at, StartedAt: at.Add(-time.Minute), Language: lang,
			Answers: map[int64]json.RawMessage{e.ID: choice, text: answer}, Variables: map[string]any{}})
	}
	rs, err = storetest.ImportResponses(ctx, f.st, rs)
	if err != nil {
		t.Fatal(err)
	}
	return langSurvey{sid: sid, choice: e, responses: rs}
}

// TestOwnerReadsLanguage: contract section 24, the owner's side. Every
// response records its language: `language` in the JSON list, a
// `language` meta column in the CSV (after the other meta columns) and in
// the results table (col_type 12, after spam), its code, empty or null on
// a response from before languages. ?lang= reads the titles and choice
// names in one of the survey's languages (untranslated ones in the
// default), the same choice column for every response whatever its
// language; any other lang answers 400 on lang, on every read.
func TestOwnerReadsLanguage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ls := f.langSurvey(t)
	sid := ls.sid

	// The JSON list: language per response, with or without ?lang=.
	for _, q := range []string{"", "?lang=en", "?lang=fa"} {
		r := f.do("GET", listPath(sid)+q)
		if r.code != 200 {
			t.Fatalf("list %s: %v", q, r)
		}
		var got []string
		for _, v := range decode[page](t, r).Results {
			l := "null"
			if v.Language != nil {
				l = *v.Language
			}
			got = append(got, l)
		}
		if fmt.Sprint(got) != "[null en fa]" { // newest first
			t.Errorf("list %s: languages %v", q, got)
		}
	}

	// The CSV, in the default and in en: the same rows, the labels in
	// the language read.
	for _, tc := range []struct {
		query        string
		title, label string
	}{
		{"", "رنگ؟", "قرمز"},
		{"&lang=fa", "رنگ؟", "قرمز"},
		{"&lang=en", "Colour?", "Red"},
	} {
		rows := readCSV(t, f.do("GET", listPath(sid)+"?format=csv"+tc.query))
		wantHeader := []string{"id", "submitted_at", "duration_seconds", "spam", "language", "What did you think?", tc.title, "city", "age"}
		if !slices.Equal(rows[0], wantHeader) {
			t.Errorf("CSV%s header %q, want %q", tc.query, rows[0], wantHeader)
		}
		var langs, labels []string
		for _, row := range rows[1:] {
			langs, labels = append(langs, row[4]), append(labels, row[6])
		}
		if fmt.Sprint(langs) != "[ en fa]" || fmt.Sprint(labels) != fmt.Sprint([]string{tc.label, tc.label, tc.label}) {
			t.Errorf("CSV%s: languages %q, choice cells %q", tc.query, langs, labels)
		}
	}

	// The results table: a language column, the header's labels in ?lang=.
	tb := decode[table](t, f.do("GET", tablePath(sid)+"?lang=en&sort=asc"))
	want := []string{"responder_id", "responder_code", "What did you think?", "Colour?", "city", "age", "spam", "language", "responding_duration", "submitted_date_time"}
	if !slices.Equal(tb.titles(), want) {
		t.Errorf("results table header %q, want %q", tb.titles(), want)
	}
	for _, h := range tb.Header {
		if *h.Title == "language" && (*h.ColType != 12 || *h.ID != 12) {
			t.Errorf("the language column: col_type %d, id %d", *h.ColType, *h.ID)
		}
		if *h.Title == "Colour?" && (len(h.Choices) != 2 || h.Choices[0].Name != "Red" || h.Choices[1].Name != "آبی") {
			t.Errorf("the choices in en: %+v (the untranslated one in the default)", h.Choices)
		}
	}
	var langs, labels []any
	for _, row := range tb.Body {
		d := row.Data
		langs, labels = append(langs, d[len(d)-3]), append(labels, d[3])
	}
	if fmt.Sprint(langs) != "[fa en <nil>]" || fmt.Sprint(labels) != "[Red Red Red]" {
		t.Errorf("results table: languages %v, choice cells %v", langs, labels)
	}
	if def := decode[table](t, f.do("GET", tablePath(sid))); !slices.Contains(def.titles(), "رنگ؟") {
		t.Errorf("the results table without ?lang=: %q", def.titles())
	}

	// The export (CSV and workbook) in en.
	link := func(query string) string {
		t.Helper()
		r := f.do("GET", exportPath(sid)+"?"+query)
		var out map[string]string
		if r.code != 200 || json.Unmarshal(r.body, &out) != nil || out["export"] == "" {
			t.Fatalf("export ?%s: %v", query, r)
		}
		return relative(t, out["export"])
	}
	if csv := string(f.download(t, link("lang=en"))); !strings.Contains(csv, ",language,What did you think?,Colour?,") || strings.Count(csv, ",Red,") != 3 {
		t.Errorf("the CSV export in en: %q", csv)
	}
	rows, rtl := openXLSX(t, f.downloadAs(t, link("export_format=1&lang=en"), xlsxType))
	if len(rows) != 4 || rows[0][6] != "Colour?" || rows[2][4] != "en" || rows[2][6] != "Red" || rtl {
		t.Errorf("the workbook in en (left to right): rows %q, rtl %v", rows, rtl)
	}
	if rows, rtl := openXLSX(t, f.downloadAs(t, link("export_format=1"), xlsxType)); rows[0][6] != "رنگ؟" || !rtl {
		t.Errorf("the workbook in the default (right to left): %q, rtl %v", rows[0], rtl)
	}

	// A lang that is not one of the survey's: 400 on lang, every read.
	const notOurs = `{"lang":["Not one of this survey's languages."]}`
	for _, lang := range []string{"tr", "ar", "de", "", "EN", "en-US"} {
		for _, target := range []string{
			listPath(sid) + "?lang=" + lang,
			listPath(sid) + "?format=csv&lang=" + lang,
			listPath(sid) + "?status=partial&lang=" + lang,
			tablePath(sid) + "?lang=" + lang,
			exportPath(sid) + "?lang=" + lang,
			exportPath(sid) + "?export_format=1&lang=" + lang,
		} {
			if r := f.do("GET", target); r.code != 400 || string(r.body) != notOurs {
				t.Errorf("GET %s: %v, want 400 %s", target, r, notOurs)
			}
		}
		jobs := fmt.Sprintf("/api/v2/surveys/%d/responses/exports/?lang=%s", sid, lang)
		if r := f.do("POST", jobs); r.code != 400 || string(r.body) != notOurs {
			t.Errorf("POST %s: %v, want 400 %s", jobs, r, notOurs)
		}
	}
	// Another account's survey stays a 404, whatever the lang.
	other := newFixture(t)
	if r := serve(f.h, "GET", listPath(other.sid)+"?lang=de", f.key); r.code != http.StatusNotFound {
		t.Errorf("another account's survey with a bad lang: %v", r)
	}
	// A survey of one language: its own lang is fine.
	if r := f.do("GET", listPath(f.sid)+"?format=csv&lang=fa"); r.code != 200 {
		t.Errorf("a one-language survey in its own language: %v", r)
	}
}
