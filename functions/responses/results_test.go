package responses_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"surveyservice/internal/storetest"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// table is the results-table answer.
type table struct {
	Header []tableColumn `json:"header"`
	Body   []struct {
		ResponderID   int64   `json:"responder_id"`
		ResponderCode *string `json:"responder_code"`
		Data          []any   `json:"data"`
	} `json:"body"`
	RespondersCount          int64 `json:"responders_count"`
	InvisibleRespondersCount *int  `json:"invisible_responders_count"`
}

// tableColumn is a header object, every field nullable so that a missing
// one shows.
type tableColumn struct {
	ID                  *int64  `json:"id"`
	Title               *string `json:"title"`
	ColType             *int    `json:"col_type"`
	CellType            *string `json:"cell_type"`
	Type                *int    `json:"type"`
	AllowMultipleSelect *bool   `json:"allow_multiple_select"`
	Choices             []struct {
		ID      int64   `json:"id"`
		Name    string  `json:"name"`
		AltName *string `json:"alt_name"`
	} `json:"choices"`
	SubQuestions []tableColumn `json:"sub_questions"`
}

func (tb table) titles() []string {
	var out []string
	for _, h := range tb.Header {
		if h.Title != nil {
			out = append(out, *h.Title)
		}
	}
	return out
}

func (tb table) ids() []int64 {
	var ids []int64
	for _, row := range tb.Body {
		ids = append(ids, row.ResponderID)
	}
	return ids
}

// TestResultsTable: the real service's shape: the CSV's header, each
// response's cells in that order with its id and code, the survey's count
// and 0 invisible; newest first by default, oldest first with sort=asc;
// pages by number cover every response once; since and until include
// their instant.
func TestResultsTable(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rs := f.seed(t, f.sid, f.text, 11)
	r := f.do("GET", tablePath(f.sid))
	tb := decode[table](t, r)
	if r.code != 200 || tb.RespondersCount != 11 || tb.InvisibleRespondersCount == nil || *tb.InvisibleRespondersCount != 0 {
		t.Fatalf("results table: %v", r)
	}
	if want := []string{"responder_id", "responder_code", "What did you think?", "city", "age", "spam", "language", "responding_duration", "submitted_date_time"}; !slices.Equal(tb.titles(), want) {
		t.Errorf("header %q, want %q", tb.titles(), want)
	}
	if !slices.Equal(tb.ids(), newestFirst(rs)) {
		t.Errorf("default order %v, want newest first %v", tb.ids(), newestFirst(rs))
	}
	row := tb.Body[len(tb.Body)-1] // the oldest: rs[0], with a code
	if row.ResponderID != rs[0].ID || row.ResponderCode == nil || *row.ResponderCode != "CODE-0" ||
		fmt.Sprint(row.Data) != fmt.Sprint([]any{float64(rs[0].ID), "CODE-0", "answer 0", "Tabriz", "20", false, nil, float64(90), "1405/02/11-15:30:00"}) {
		t.Errorf("row %+v", row)
	}
	if tb.Body[0].ResponderCode != nil {
		t.Errorf("a response without a code: responder_code %q", *tb.Body[0].ResponderCode)
	}
	for _, sort := range []string{"asc", "desc", "6,,asc", "6,null,desc", "3,6,asc", "6,6,desc"} {
		t.Run("sort="+sort, func(t *testing.T) {
			want := append([]survey.Response(nil), rs...)
			sortResponses(want, strings.HasSuffix(sort, "asc"))
			var got []int64
			for p := 1; ; p++ {
				r := f.do("GET", fmt.Sprintf("%s?sort=%s&page_size=4&page=%d", tablePath(f.sid), sort, p))
				if p == 4 {
					if r.code != 404 || string(r.body) != `{"detail":"Invalid page."}` {
						t.Errorf("page past the end: %v", r)
					}
					break
				}
				tb := decode[table](t, r)
				if r.code != 200 || len(tb.Body) != min(4, 11-4*(p-1)) {
					t.Fatalf("page %d: %v", p, r)
				}
				got = append(got, tb.ids()...)
			}
			var wantIDs []int64
			for _, r := range want {
				wantIDs = append(wantIDs, r.ID)
			}
			if !slices.Equal(got, wantIDs) {
				t.Errorf("pages %v, want %v", got, wantIDs)
			}
		})
	}
	since, until := t0.Add(3*time.Second), t0.Add(7*time.Second)
	tb = decode[table](t, f.do("GET", tablePath(f.sid)+"?sort=asc&since="+url.QueryEscape(since.Format(time.RFC3339))+"&until="+url.QueryEscape(until.Format(time.RFC3339))))
	var want []int64
	for _, r := range rs {
		if !r.SubmittedAt.Before(since) && !r.SubmittedAt.After(until) {
			want = append(want, r.ID)
		}
	}
	sortIDs := append([]int64(nil), tb.ids()...)
	if len(want) == 0 || !slices.Equal(sortIDs, ascendingIDs(rs, want)) {
		t.Errorf("since..until: %v, want %v", tb.ids(), want)
	}
	for _, tc := range []struct{ query, want string }{
		{"page=0", `{"detail":"Invalid page."}`},
		{"page=x", `{"detail":"Invalid page."}`},
		{"page=99", `{"detail":"Invalid page."}`},
		{"page_size=1001", `{"page_size":["Ensure this value is less than or equal to 1000."]}`},
		{"sort=newest", `{"sort":["\"newest\" is not a valid choice."]}`},
		{"sort=3,,asc", `{"sort":["Responses sort by their submission time only: \"asc\", \"desc\", or the column form \"{col_type},6,asc\" / \"{col_type},6,desc\" (e.g. \"3,6,asc\")."]}`},
		{"sort=1,5,desc", `{"sort":["Responses sort by their submission time only: \"asc\", \"desc\", or the column form \"{col_type},6,asc\" / \"{col_type},6,desc\" (e.g. \"3,6,asc\")."]}`},
		{"since=soon&until=later", `{"since":["` + dtMsg + `"],"until":["` + dtMsg + `"]}`},
	} {
		if r := f.do("GET", tablePath(f.sid)+"?"+tc.query); string(r.body) != tc.want {
			t.Errorf("%s: %v, want %s", tc.query, r, tc.want)
		}
	}
	empty, _ := f.newSurvey(t, "Empty")
	if r := f.do("GET", tablePath(empty)); r.code != 200 || len(decode[table](t, r).Body) != 0 {
		t.Errorf("an empty survey's page 1: %v", r)
	}
}

// ascendingIDs is want in the order of rs sorted oldest first.
func ascendingIDs(rs []survey.Response, want []int64) []int64 {
	sorted := append([]survey.Response(nil), rs...)
	sortResponses(sorted, true)
	var out []int64
	for _, r := range sorted {
		if slices.Contains(want, r.ID) {
			out = append(out, r.ID)
		}
	}
	return out
}

// TestResultsTablePageStarts: a walk by page numbers reads each page's own
// items once the container knows where the page starts (one Query, no
// skipping), and a page asked for out of turn (skipping from the nearest
// known start) answers the same rows as in turn.
func TestResultsTablePageStarts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.seed(t, f.sid, f.text, 30)
	pageOf := func(p int) (table, reply) {
		r := f.do("GET", fmt.Sprintf("%s?page_size=5&page=%d", tablePath(f.sid), p))
		if r.code != 200 {
			t.Fatalf("page %d: %v", p, r)
		}
		return decode[table](t, r), r
	}
	cold, r := pageOf(4) // nothing known yet: skips 15 keys, then reads the page
	// The shards are merged lazily (a Query a shard, then again only for a
	// shard whose items were used up): the skip and the page are each 16
	// Queries and a few.
	if q := r.calls.Ops()["DynamoDB.Query"]; q < 1+2*store.ResponseShards || q > 1+4*store.ResponseShards {
		t.Errorf("page 4, cold: %d Queries (%v), want the collection, one skip and the page (a Query a shard each, and a few)", q, r.calls.Ops())
	}
	for p := 1; p <= 6; p++ {
		tb, r := pageOf(p)
		if p == 4 && !slices.Equal(tb.ids(), cold.ids()) {
			t.Errorf("page 4 in turn %v, out of turn %v", tb.ids(), cold.ids())
		}
		if q := r.calls.Ops()["DynamoDB.Query"]; p > 1 && (q < 1+store.ResponseShards || q > 1+2*store.ResponseShards) {
			t.Errorf("page %d in turn: %d Queries (%v), want the collection and the page (a Query a shard, and a few: no skip)", p, q, r.calls.Ops())
		}
	}
}

// TestResultsTableSpamScoreAndIDs (contract sections 15, 16 and 21
// amended): the results table carries the CSV's spam and score columns
// (spam always, score on a scored survey, "correct/total" or ""), after the
// variables and before the last two meta cells; every header's id is an
// integer (a C# reader types int Id), the meta columns' unique among them
// and equal to their col_type; sort's real form names the submission time
// by its id, "3,6,asc" as the published reference writes it.
func TestResultsTableSpamScoreAndIDs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sid, text := f.newSurvey(t, "Quiz")
	if err := f.st.UpdateSettings(ctx, f.acct.ID, sid, store.SettingsUpdate{Set: map[string]any{"show_answer_sheet_enabled": true}}); err != nil {
		t.Fatal(err)
	}
	rs := f.seed(t, sid, text, 3)
	// The seed's three are neither spam nor scored; two more are.
	more, err := storetest.ImportResponses(ctx, f.st, []survey.Response{
		{SurveyID: sid, SubmittedAt: t0.Add(time.Minute), StartedAt: t0, Spam: true, Score: &survey.Score{Correct: 2, Total: 3},
			Answers: map[int64]json.RawMessage{text: json.RawMessage(`"late"`)}, Variables: map[string]any{}},
		{SurveyID: sid, SubmittedAt: t0.Add(2 * time.Minute), StartedAt: t0, Score: &survey.Score{Correct: 0, Total: 3},
			Answers: map[int64]json.RawMessage{}, Variables: map[string]any{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	rs = append(rs, more...)
	r := f.do("GET", tablePath(sid)+"?sort=3,6,asc")
	tb := decode[table](t, r)
	if r.code != 200 || len(tb.Body) != 5 {
		t.Fatalf("sort=3,6,asc: %v", r)
	}
	want := []string{"responder_id", "responder_code", "What did you think?", "city", "age", "spam", "score", "language", "responding_duration", "submitted_date_time"}
	if !slices.Equal(tb.titles(), want) {
		t.Errorf("header %q, want %q", tb.titles(), want)
	}
	metaIDs := map[int64]string{}
	for _, h := range tb.Header {
		if h.ID == nil || h.ColType == nil {
			t.Errorf("column %q: id %v, col_type %v; want integers", *h.Title, h.ID, h.ColType)
			continue
		}
		if h.Type != nil || *h.ColType == 2 { // a question's or a variable's id is its object's
			continue
		}
		if other, dup := metaIDs[*h.ID]; dup || *h.ID != int64(*h.ColType) {
			t.Errorf("meta column %q: id %d (col_type %d), also %q's", *h.Title, *h.ID, *h.ColType, other)
		}
		metaIDs[*h.ID] = *h.Title
	}
	if !slices.Equal(tb.ids(), ascendingIDs(rs, tb.ids())) || tb.ids()[4] != more[1].ID {
		t.Errorf("sort=3,6,asc: %v, want oldest first", tb.ids())
	}
	cells := func(row int) string { d := tb.Body[row].Data; return fmt.Sprint(d[len(d)-5 : len(d)-3]) }
	if got := []string{cells(0), cells(3), cells(4)}; fmt.Sprint(got) != "[[false ] [true 2/3] [false 0/3]]" {
		t.Errorf("spam and score cells %v", got)
	}
	csv := string(f.do("GET", listPath(sid)+"?format=csv").body)
	if !strings.Contains(csv, "duration_seconds,spam,score,") || !strings.Contains(csv, ",true,2/3,") {
		t.Errorf("the CSV's spam and score: %s", csv)
	}
	// An unscored survey has no score column; every survey a spam column.
	tb = decode[table](t, f.do("GET", tablePath(f.sid)))
	if got := tb.titles(); !slices.Contains(got, "spam") || slices.Contains(got, "score") {
		t.Errorf("an unscored survey's header %q", got)
	}
	for _, sort := range []string{"6,6,desc", "7,6,desc", "6,,desc"} {
		if r := f.do("GET", tablePath(sid)+"?sort="+sort); r.code != 200 || decode[table](t, r).Body[0].ResponderID != more[1].ID {
			t.Errorf("sort=%s: %v", sort, r)
		}
	}
	msg := `{"sort":["Responses sort by their submission time only: \"asc\", \"desc\", or the column form \"{col_type},6,asc\" / \"{col_type},6,desc\" (e.g. \"3,6,asc\")."]}`
	for _, sort := range []string{"1,6,asc", "2,6,asc", "3,3,asc", "6,5,asc", "3,06,asc", "13,6,asc", "3,6,up"} {
		if r := f.do("GET", tablePath(sid)+"?sort="+sort); r.code != 400 || string(r.body) != msg {
			t.Errorf("sort=%s: %v", sort, r)
		}
	}
}
