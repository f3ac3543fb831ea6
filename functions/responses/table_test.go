package responses

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestTableColumns: the header is id, submitted_at, duration_seconds, a
// column per answerable element in survey order (groups' members in their
// place; welcome and appreciation pages, groups and statements none), then
// one per variable; each answer renders as people read it (choices by
// name, ranking in order, matrix row by row, numbers as numbers, a removed
// choice by its number).
func TestTableColumns(t *testing.T) {
	t.Parallel()
	el := func(id int64, typ survey.ElementType, title string) survey.Element {
		e := survey.NewElement(typ)
		e.ID, e.Title = id, title
		return e
	}
	text := el(10, survey.TypeText, "Name")
	multi := el(11, survey.TypeMultipleChoice, "Colours")
	multi.Choices = []survey.ChoiceItem{{ID: 101, Name: "Red"}, {ID: 102, Name: "Green"}, {ID: 103, Name: "Blue"}}
	rank := el(12, survey.TypeRanking, "Rank them")
	rank.Choices = []survey.ChoiceItem{{ID: 201, Name: "Tea"}, {ID: 202, Name: "Coffee"}}
	drop := el(13, survey.TypeDropdown, "City")
	drop.Choices = []survey.ChoiceItem{{ID: 301, Name: "تهران"}, {ID: 302, Name: "Yazd"}}
	matrix := el(14, survey.TypeMatrix, "Grid")
	matrix.Rows = []survey.NamedItem{{ID: 401, Name: "Speed"}, {ID: 402, Name: "Price"}}
	matrix.Columns = []survey.NamedItem{{ID: 501, Name: "Good"}, {ID: 502, Name: "Bad"}}
	scale := el(15, survey.TypeOpinionScale, "Recommend?")
	group := el(16, survey.TypeGroup, "A group")
	statement := el(17, survey.TypeStatement, "Read this")
	welcome := el(18, survey.TypeWelcome, "Hello")
	rating := el(19, survey.TypeRating, "Stars")
	coll := store.SurveyCollection{
		Layout: survey.Layout{Welcome: []int64{18}, Questions: []int64{10, 16, 11, 12, 17, 13, 14, 15, 19}, Groups: []int64{16},
			Members: map[int64]int64{11: 16, 12: 16}},
		Elements:  map[int64]survey.Element{10: text, 11: multi, 12: rank, 13: drop, 14: matrix, 15: scale, 16: group, 17: statement, 18: welcome, 19: rating},
		Variables: []survey.Variable{{Name: "source"}, {Name: "n", Type: survey.VariableInteger}},
	}
	tb := newTable(coll)
	want := []string{"id", "submitted_at", "duration_seconds", "spam", "language", "Name", "Colours", "Rank them", "City", "Grid", "Recommend?", "Stars", "source", "n"}
	if !slices.Equal(tb.header, want) {
		t.Fatalf("header %q, want %q", tb.header, want)
	}
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	r := survey.Response{ID: 7, SubmittedAt: at, StartedAt: at.Add(-75 * time.Second), Answers: map[int64]json.RawMessage{
		10: raw(`"Ana"`), 11: raw(`[101,103,999]`), 12: raw(`[202,201]`), 13: raw(`301`), 14: raw(`{"402":501,"401":502}`), 15: raw(`9`),
	}, Variables: map[string]any{"source": "mail", "n": json.Number("3")}}
	got := tb.row(r, nil)
	wantRow := []string{"7", "2026-05-01T12:00:00.000000Z", "75", "false", "", "Ana", "Red; Blue; 999", "Coffee; Tea", "تهران", "Speed: Bad; Price: Good", "9", "", "mail", "3"}
	if !slices.Equal(got, wantRow) {
		t.Errorf("row %q\nwant %q", got, wantRow)
	}
	line := string(newCSVWriter().encode(got))
	if !strings.HasSuffix(line, "\r\n") || !strings.Contains(line, `,Red; Blue; 999,`) {
		t.Errorf("CSV line %q", line)
	}
}
