package responses_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"surveyservice/internal/storetest"
	"surveyservice/shared/survey"
)

// TestResultsTableClients replays the results-table requests of the real
// service's public clients and reads the answer as their code does
// (contract section 21):
//   - matinkhosravi/porsline-sdk porsline/form.py 38-79: GET
//     .../results-table/?page_size=1000[&since=...]; without header it
//     keeps data[2:-2] and parses data[-1] as a Jalali YYYY/MM/DD-HH:MM:SS;
//     with header it walks the header objects (id, title, choices,
//     allow_multiple_select), taking len(choices) cells for a multi-select
//     one and one cell otherwise;
//   - omidrah/porsline SurveyApiService.cs 147-304 with ResponseHeader.cs:
//     col_type an integer, a null type a meta column, a multi-select
//     question a cell per choice (null where not chosen) whose names are
//     looked up in choices.
func TestResultsTableClients(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cs := f.clientSurvey(t)
	rs := []survey.Response{cs.response}

	for _, target := range []string{tablePath(f.sid) + "?page_size=1000", tablePath(f.sid) + "?page_size=1000&since=2026-05-01T11:00:00"} {
		r := f.do("GET", target)
		if r.code != 200 {
			t.Fatalf("%s: %v", target, r)
		}
		tb := decode[table](t, r)
		var raw struct {
			Header []map[string]any `json:"header"`
		}
		if err := json.Unmarshal(r.body, &raw); err != nil || len(tb.Body) != 1 || tb.RespondersCount != 1 {
			t.Fatalf("%s: %v (%v)", target, r, err)
		}
		data := tb.Body[0].Data
		// The SDK without header: data[2:-2] and jconvert(data[-1]).
		if at, _ := data[len(data)-1].(string); !regexp.MustCompile(`^\d{4}/\d{2}/\d{2}-\d{2}:\d{2}:\d{2}$`).MatchString(at) || at != "1405/02/11-15:30:00" {
			t.Errorf("data[-1] = %v, want the Jalali 1405/02/11-15:30:00", data[len(data)-1])
		}
		if answers := data[2 : len(data)-2]; fmt.Sprint(answers) != fmt.Sprint([]any{"خوب بود", "کیفیت", nil, "ارسال", "مرد", "", "", false, nil}) {
			t.Errorf("data[2:-2] = %v", answers)
		}
		// The SDK with header: every cell taken once, in step with the header.
		cell := 0
		byTitle := map[string]any{}
		for _, h := range raw.Header {
			choices, _ := h["choices"].([]any)
			if multi, _ := h["allow_multiple_select"].(bool); multi {
				byTitle[h["title"].(string)] = data[cell : cell+len(choices)]
				cell += len(choices)
			} else {
				byTitle[h["title"].(string)] = data[cell]
				cell++
			}
		}
		if cell != len(data) || fmt.Sprint(byTitle["بهترین ویژگی‌ها"]) != fmt.Sprint([]any{"کیفیت", nil, "ارسال"}) || byTitle["جنسیت"] != "مرد" ||
			byTitle["responder_id"] != float64(rs[0].ID) || byTitle["responder_code"] != "R-1" || byTitle["responding_duration"] != float64(42) {
			t.Errorf("the SDK's walk took %d of %d cells: %v", cell, len(data), byTitle)
		}
		// The C# reader: integer col_type and ids on questions, integer
		// choice ids, null type on meta columns, chosen names found among
		// the choices.
		bodyIndex := 0
		for _, h := range raw.Header {
			if _, ok := h["col_type"].(float64); !ok {
				t.Errorf("col_type %v is not an integer", h["col_type"])
			}
			if _, ok := h["cell_type"].(string); !ok {
				t.Errorf("cell_type %v is not a string", h["cell_type"])
			}
			if h["type"] == nil {
				bodyIndex++
				continue
			}
			if _, ok := h["id"].(float64); !ok {
				t.Errorf("a question's id %v", h["id"])
			}
			choices, _ := h["choices"].([]any)
			names := map[string]bool{}
			for _, c := range choices {
				c := c.(map[string]any)
				if _, ok := c["id"].(float64); !ok {
					t.Errorf("choice id %v", c["id"])
				}
				names[c["name"].(string)] = true
			}
			if h["allow_multiple_select"] == true {
				for range choices {
					if s, ok := data[bodyIndex].(string); ok && !names[s] {
						t.Errorf("cell %q is none of the choices", s)
					}
					bodyIndex++
				}
				continue
			}
			if h["type"] == float64(survey.TypeMultipleChoice) && data[bodyIndex] != "" && !names[data[bodyIndex].(string)] {
				t.Errorf("single choice %v is none of the choices", data[bodyIndex])
			}
			bodyIndex++
		}
		if bodyIndex != len(data) {
			t.Errorf("the C# reader took %d of %d cells", bodyIndex, len(data))
		}
	}
}

// TestResultsTableGroups: a question group is one header with its
// questions in sub_questions, each with a cell of its own (a multi-select
// one a cell per choice); a survey not in Persian dates its rows in ISO
// 8601 UTC.
func TestResultsTableGroups(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sv, err := f.st.CreateSurvey(ctx, survey.Survey{AccountID: f.acct.ID, FolderID: f.folder, Name: "Shop", Language: 4, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	create := func(e survey.Element, group *int64) survey.Element { return f.createElement(t, sv.ID, e, group) }
	g := survey.NewElement(survey.TypeGroup)
	g.Title = "Store"
	g = create(g, nil)
	region := survey.NewElement(survey.TypeText)
	region.Title = "Region"
	region = create(region, &g.ID)
	pick := survey.NewElement(survey.TypeMultipleChoice)
	pick.Title, pick.AllowMultipleSelect = "Visited", true
	pick.Choices = []survey.ChoiceItem{{Name: "North"}, {Name: "South"}}
	pick = create(pick, &g.ID)
	score := survey.NewElement(survey.TypeOpinionScale)
	score.Title = "Score"
	score = create(score, nil)
	rs, err := storetest.ImportResponses(ctx, f.st, []survey.Response{{SurveyID: sv.ID, SubmittedAt: t0, StartedAt: t0, Answers: map[int64]json.RawMessage{
		region.ID: json.RawMessage(`"East"`), pick.ID: json.RawMessage(fmt.Sprintf(`[%d]`, pick.Choices[1].ID)), score.ID: json.RawMessage(`7`)}}})
	if err != nil {
		t.Fatal(err)
	}
	tb := decode[table](t, f.do("GET", tablePath(sv.ID)))
	if want := []string{"responder_id", "responder_code", "Store", "Score", "spam", "language", "responding_duration", "submitted_date_time"}; fmt.Sprint(tb.titles()) != fmt.Sprint(want) {
		t.Fatalf("titles %q, want %q", tb.titles(), want)
	}
	group := tb.Header[2]
	if group.Type == nil || *group.Type != int(survey.TypeGroup) || len(group.SubQuestions) != 2 || *group.SubQuestions[0].Title != "Region" ||
		*group.SubQuestions[1].ID != pick.ID || !*group.SubQuestions[1].AllowMultipleSelect || len(group.SubQuestions[1].Choices) != 2 {
		t.Errorf("the group's header %+v", group)
	}
	want := []any{float64(rs[0].ID), nil, "East", nil, "South", "7", false, nil, float64(0), "2026-05-01T12:00:00.000000Z"}
	if len(tb.Body) != 1 || fmt.Sprint(tb.Body[0].Data) != fmt.Sprint(want) {
		t.Errorf("row %v, want %v", tb.Body, want)
	}
}

// clientSurvey is the fixture's Persian survey with a multi-select
// question of three choices and a single-choice one added, and one
// response (code R-1, 42 s) answering all three questions.
type clientSurvey struct {
	features, gender survey.Element
	response         survey.Response
}

func (f *fixture) clientSurvey(t *testing.T) clientSurvey {
	t.Helper()
	ctx := t.Context()
	create := func(e survey.Element) survey.Element { return f.createElement(t, f.sid, e, nil) }
	features := survey.NewElement(survey.TypeMultipleChoice)
	features.Title, features.AllowMultipleSelect = "بهترین ویژگی‌ها", true
	features.Choices = []survey.ChoiceItem{{Name: "کیفیت"}, {Name: "قیمت"}, {Name: "ارسال"}}
	features = create(features)
	gender := survey.NewElement(survey.TypeMultipleChoice)
	gender.Title = "جنسیت"
	gender.Choices = []survey.ChoiceItem{{Name: "زن"}, {Name: "مرد"}}
	gender = create(gender)
	answers := map[int64]json.RawMessage{
		f.text:      json.RawMessage(`"خوب بود"`),
		features.ID: json.RawMessage(fmt.Sprintf(`[%d,%d]`, features.Choices[0].ID, features.Choices[2].ID)),
		gender.ID:   json.RawMessage(fmt.Sprint(gender.Choices[1].ID)),
	}
	rs, err := storetest.ImportResponses(ctx, f.st, []survey.Response{{SurveyID: f.sid, SubmittedAt: t0, StartedAt: t0.Add(-42e9), Answers: answers, Code: "R-1"}})
	if err != nil {
		t.Fatal(err)
	}
	return clientSurvey{features: features, gender: gender, response: rs[0]}
}

// TestPorslineSDK runs the Python SDK's own code, unchanged
// (testdata/porsline-sdk: matinkhosravi/porsline-sdk's porsline/), against
// the handlers on a real HTTP server: Form.responses() without header
// (the answers between the meta cells and the Jalali submission time
// converted back to Gregorian by its jconvert), with since, and with
// header=True (the cells walked along the header objects). Needs python3
// with requests; the jdatetime it imports is a stand-in (testdata's
// README).
func TestPorslineSDK(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cs := f.clientSurvey(t)
	out := f.runPython(t, "testdata/porsline-sdk/run_sdk.py", "2026-05-01T11:00:00")
	var got struct {
		Plain  []map[string]any `json:"plain"`
		Since  []map[string]any `json:"since"`
		Header [][]struct {
			Head struct {
				ID       *int64 `json:"id"`
				Title    string `json:"title"`
				Choices  []any  `json:"choices"`
				Multiple bool   `json:"multiple"`
			} `json:"head"`
			Val any `json:"val"`
		} `json:"header"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the SDK printed %s: %v", out, err)
	}
	wantAnswers := fmt.Sprint([]any{"خوب بود", "کیفیت", nil, "ارسال", "مرد", "", "", false, nil})
	for name, rows := range map[string][]map[string]any{"responses()": got.Plain, "responses(since)": got.Since} {
		// submitted_at: 15:30 in Tehran, as jconvert gives it (no zone).
		if len(rows) != 1 || fmt.Sprint(rows[0]["response"]) != wantAnswers || rows[0]["submitted_at"] != "2026-05-01T15:30:00" {
			t.Errorf("%s = %v", name, rows)
		}
	}
	if len(got.Header) != 1 {
		t.Fatalf("responses(header=True) = %s", out)
	}
	vals := map[string]any{}
	for _, cell := range got.Header[0] {
		vals[cell.Head.Title] = cell.Val
		if cell.Head.Title == cs.features.Title && (!cell.Head.Multiple || cell.Head.ID == nil || *cell.Head.ID != cs.features.ID || len(cell.Head.Choices) != 3) {
			t.Errorf("the multi-select head %+v", cell.Head)
		}
	}
	if fmt.Sprint(vals[cs.features.Title]) != fmt.Sprint([]any{"کیفیت", nil, "ارسال"}) || vals[cs.gender.Title] != "مرد" || vals["What did you think?"] != "خوب بود" ||
		vals["responder_code"] != "R-1" || vals["responder_id"] != float64(cs.response.ID) || vals["submitted_date_time"] != "1405/02/11-15:30:00" {
		t.Errorf("responses(header=True) = %v", vals)
	}
}
