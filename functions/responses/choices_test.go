package responses_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"surveyservice/internal/storetest"
	"surveyservice/shared/survey"
)

// TestCSVWithChoices: elements stored with choices, rows and columns (the
// store gives them ids): the CSV page and the results table name the
// choices, "; " between several, a matrix row by row, a scale as its
// number, in survey order after the text question; the results table
// gives a multi-select question a cell per choice.
func TestCSVWithChoices(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	create := func(e survey.Element) survey.Element { return f.createElement(t, f.sid, e, nil) }
	multi := survey.NewElement(survey.TypeMultipleChoice)
	multi.Title, multi.AllowMultipleSelect = "Colours", true
	multi.Choices = []survey.ChoiceItem{{Name: "Red"}, {Name: "Green"}, {Name: "آبی"}}
	multi = create(multi)
	grid := survey.NewElement(survey.TypeMatrix)
	grid.Title = "Grid"
	grid.Rows = []survey.NamedItem{{Name: "Speed"}, {Name: "Price"}}
	grid.Columns = []survey.NamedItem{{Name: "Good"}, {Name: "Bad"}}
	grid = create(grid)
	scale := survey.NewElement(survey.TypeOpinionScale)
	scale.Title = "Recommend?"
	scale = create(scale)
	statement := survey.NewElement(survey.TypeStatement)
	statement.Title = "Thanks"
	create(statement)
	if multi.Choices[2].ID == 0 || grid.Rows[1].ID == 0 {
		t.Fatalf("the store gave no ids: %+v %+v", multi.Choices, grid.Rows)
	}
	answers := map[int64]json.RawMessage{
		f.text:   json.RawMessage(`"ok"`),
		multi.ID: json.RawMessage(fmt.Sprintf(`[%d,%d]`, multi.Choices[0].ID, multi.Choices[2].ID)),
		grid.ID:  json.RawMessage(fmt.Sprintf(`{"%d":%d,"%d":%d}`, grid.Rows[1].ID, grid.Columns[0].ID, grid.Rows[0].ID, grid.Columns[1].ID)),
		scale.ID: json.RawMessage(`8`),
	}
	rs, err := storetest.ImportResponses(ctx, f.st, []survey.Response{{SurveyID: f.sid, SubmittedAt: t0, StartedAt: t0, Answers: answers}})
	if err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, f.do("GET", listPath(f.sid)+"?format=csv"))
	wantHeader := []string{"id", "submitted_at", "duration_seconds", "spam", "language", "What did you think?", "Colours", "Grid", "Recommend?", "city", "age"}
	wantRow := []string{fmt.Sprint(rs[0].ID), "2026-05-01T12:00:00.000000Z", "0", "false", "", "ok", "Red; آبی", "Speed: Bad; Price: Good", "8", "", ""}
	if len(rows) != 2 || !slices.Equal(rows[0], wantHeader) || !slices.Equal(rows[1], wantRow) {
		t.Fatalf("CSV %q\nwant %q and %q", rows, wantHeader, wantRow)
	}
	tb := decode[table](t, f.do("GET", tablePath(f.sid)))
	// The results table (contract section 21): meta cells around the
	// answers, a cell per choice of the multi-select question (its name
	// where chosen, null otherwise), the choices in its header.
	wantTitles := []string{"responder_id", "responder_code", "What did you think?", "Colours", "Grid", "Recommend?", "city", "age", "spam", "language", "responding_duration", "submitted_date_time"}
	wantData := []any{float64(rs[0].ID), nil, "ok", "Red", nil, "آبی", "Speed: Bad; Price: Good", "8", "", "", false, nil, float64(0), "1405/02/11-15:30:00"}
	if !slices.Equal(tb.titles(), wantTitles) || len(tb.Body) != 1 || fmt.Sprint(tb.Body[0].Data) != fmt.Sprint(wantData) {
		t.Fatalf("results table %q %v\nwant %q %v", tb.titles(), tb.Body, wantTitles, wantData)
	}
	colours := tb.Header[3]
	if colours.AllowMultipleSelect == nil || !*colours.AllowMultipleSelect || len(colours.Choices) != 3 || colours.Choices[2].Name != "آبی" || colours.Choices[2].ID != multi.Choices[2].ID {
		t.Errorf("the multi-select header %+v", colours)
	}
}
