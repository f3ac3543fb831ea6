package responses_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"surveyservice/internal/storetest"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// readCSV checks a CSV answer's framing and answers its rows.
func readCSV(t *testing.T, r reply) [][]string {
	t.Helper()
	if r.code != 200 || r.header.Get("Content-Type") != "text/csv; charset=utf-8" {
		t.Fatalf("CSV page: %v, Content-Type %q", r, r.header.Get("Content-Type"))
	}
	body, ok := bytes.CutPrefix(r.body, []byte("\xEF\xBB\xBF"))
	if !ok {
		t.Fatalf("no UTF-8 BOM: % x", r.body[:min(8, len(r.body))])
	}
	if !bytes.HasSuffix(body, []byte("\r\n")) {
		t.Errorf("rows do not end in CRLF")
	}
	rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v", err)
	}
	return rows
}

var linkNext = regexp.MustCompile(`^<(http://example\.com/[^>]+)>; rel="next"$`)

// TestCSVPages: ?format=csv answers the header and the rows, newest first,
// the next page in a Link header; following the links reads every
// response once; answers and variables are cells, and a cell a
// spreadsheet would run as a formula is defused.
func TestCSVPages(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rs := f.seed(t, f.sid, f.text, 7)
	tricky := []string{"=HYPERLINK(\"http://evil\")", "سلام، دنیا", "two\nlines, \"quoted\"", "-12", "@SUM(1)", ""}
	var extra []survey.Response
	for i, text := range tricky {
		answers := map[int64]json.RawMessage{}
		if text != "" {
			answers[f.text], _ = json.Marshal(text)
		}
		extra = append(extra, survey.Response{SurveyID: f.sid, SubmittedAt: t0.Add(time.Hour + time.Duration(i)*time.Second),
			StartedAt: t0.Add(time.Hour), Answers: answers, Variables: map[string]any{"city": "+98 21"}})
	}
	extra, err := storetest.ImportResponses(t.Context(), f.st, extra)
	if err != nil {
		t.Fatal(err)
	}
	all := append(append([]survey.Response(nil), rs...), extra...)
	var got [][]string
	target := listPath(f.sid) + "?format=csv&page_size=4"
	pages := 0
	for target != "" {
		r := f.do("GET", target)
		rows := readCSV(t, r)
		pages++
		if want := []string{"id", "submitted_at", "duration_seconds", "spam", "language", "What did you think?", "city", "age"}; !slices.Equal(rows[0], want) {
			t.Fatalf("header %q, want %q", rows[0], want)
		}
		if len(rows)-1 > 4 {
			t.Errorf("a page of %d rows, page_size 4", len(rows)-1)
		}
		if cd := r.header.Get("Content-Disposition"); cd != fmt.Sprintf(`attachment; filename="survey-%d-responses.csv"`, f.sid) {
			t.Errorf("Content-Disposition %q", cd)
		}
		got = append(got, rows[1:]...)
		target = ""
		if link := r.header.Get("Link"); link != "" {
			m := linkNext.FindStringSubmatch(link)
			if m == nil {
				t.Fatalf("Link %q", link)
			}
			target = relative(t, m[1])
			if !strings.Contains(target, "format=csv") || !strings.Contains(target, "page_size=4") {
				t.Errorf("the next link %q lost the request's parameters", target)
			}
		}
	}
	if pages != 4 {
		t.Errorf("%d pages of 13 responses at 4 a page", pages)
	}
	var ids []int64
	for _, row := range got {
		id, _ := strconv.ParseInt(row[0], 10, 64)
		ids = append(ids, id)
	}
	if want := newestFirst(all); !slices.Equal(ids, want) {
		t.Fatalf("CSV rows %v, want %v", ids, want)
	}
	byID := map[string][]string{}
	for _, row := range got {
		byID[row[0]] = row
	}
	first := byID[fmt.Sprint(rs[1].ID)]
	if want := []string{fmt.Sprint(rs[1].ID), "2026-05-01T12:00:01.000000Z", "90", "false", "", "answer 1", "Tabriz", "21"}; !slices.Equal(first, want) {
		t.Errorf("row %q, want %q", first, want)
	}
	wantCells := []string{"'=HYPERLINK(\"http://evil\")", "سلام، دنیا", "two\nlines, \"quoted\"", "-12", "'@SUM(1)", ""}
	for i, r := range extra {
		row := byID[fmt.Sprint(r.ID)]
		if row[5] != wantCells[i] || row[6] != "'+98 21" || row[7] != "" {
			t.Errorf("row of %q: %q, want the cell %q and city '+98 21", tricky[i], row, wantCells[i])
		}
	}
	if r := f.do("GET", listPath(f.sid)+"?format=csv&page_size=5000"); len(readCSV(t, r)) != 14 || r.header.Get("Link") != "" {
		t.Errorf("one page of 5000: %d rows, Link %q", len(readCSV(t, r)), r.header.Get("Link"))
	}
	if r := f.do("GET", listPath(f.sid)+"?format=csv&submitted_after=2026-05-01T12:59:59Z"); len(readCSV(t, r)) != 7 {
		t.Errorf("filtered CSV: %d rows, want the header and 6", len(readCSV(t, r)))
	}
	r := f.do("GET", listPath(f.sid)+"?format=csv&cursor=forged")
	if r.code != 400 || string(r.body) != `{"cursor":["Invalid cursor."]}` || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("CSV with a forged cursor: %v", r)
	}
}

// TestCSVEmptySurvey: a survey without responses is the header alone, no
// Link.
func TestCSVEmptySurvey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.do("GET", listPath(f.sid)+"?format=csv")
	if rows := readCSV(t, r); len(rows) != 1 || r.header.Get("Link") != "" {
		t.Errorf("empty survey: %q, Link %q", rows, r.header.Get("Link"))
	}
	if r.calls.DynamoDB() != 1+store.ResponseShards {
		t.Errorf("%d DynamoDB calls, want the survey's collection and the page (a Query a shard)", r.calls.DynamoDB())
	}
}
