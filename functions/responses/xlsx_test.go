package responses_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"surveyservice/internal/storetest"
	"surveyservice/shared/survey"
)

const (
	xlsxType      = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	xlsxSheetName = "Responses"
)

// openXLSX opens a workbook and answers its one sheet's rows and whether
// the sheet reads right to left.
func openXLSX(t *testing.T, body []byte) (rows [][]string, rtl bool) {
	t.Helper()
	wb, err := excelize.OpenReader(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("the export is no workbook: %v (%.40q)", err, body)
	}
	defer wb.Close()
	sheets := wb.GetSheetList()
	if len(sheets) != 1 {
		t.Fatalf("sheets %q, want one", sheets)
	}
	rows, err = wb.GetRows(sheets[0])
	if err != nil {
		t.Fatal(err)
	}
	view, err := wb.GetSheetView(sheets[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	return rows, view.RightToLeft != nil && *view.RightToLeft
}

// TestExportXLSX: export_format=1 (the real service's xlsx, as the API
// reference documents it) answers a link to a workbook of one sheet with
// the CSV's columns, Persian text intact, right to left on a Persian
// survey, left to right on an English one; since and until (included)
// filter both formats; a format other than 1 or 2 is a 400.
func TestExportXLSX(t *testing.T) {
	t.Parallel()
	f := newFixture(t) // Persian
	ctx := t.Context()
	rs := make([]survey.Response, 4)
	for i := range rs {
		at := t0.Add(time.Duration(i) * time.Minute)
		answer, _ := json.Marshal(fmt.Sprintf("پاسخ شماره %d =SUM(A1)", i))
		rs[i] = survey.Response{SurveyID: f.sid, SubmittedAt: at, StartedAt: at.Add(-time.Minute),
			Answers: map[int64]json.RawMessage{f.text: answer}, Variables: map[string]any{"city": "تبریز"}}
	}
	rs, err := storetest.ImportResponses(ctx, f.st, rs)
	if err != nil {
		t.Fatal(err)
	}
	link := func(query string) string {
		t.Helper()
		r := f.do("GET", exportPath(f.sid)+"?"+query)
		var out map[string]string
		if r.code != 200 || json.Unmarshal(r.body, &out) != nil || out["export"] == "" {
			t.Fatalf("export ?%s: %v", query, r)
		}
		return relative(t, out["export"])
	}
	rows, rtl := openXLSX(t, f.downloadAs(t, link("export_format=1"), xlsxType))
	wantHeader := []string{"id", "submitted_at", "duration_seconds", "spam", "language", "What did you think?", "city", "age"}
	if len(rows) != 5 || fmt.Sprint(rows[0]) != fmt.Sprint(wantHeader) {
		t.Fatalf("the sheet's rows %q", rows)
	}
	want := []string{fmt.Sprint(rs[0].ID), "2026-05-01T12:00:00.000000Z", "60", "false", "", "پاسخ شماره 0 =SUM(A1)", "تبریز"}
	if fmt.Sprint(rows[1]) != fmt.Sprint(want) {
		t.Errorf("the first row %q, want %q", rows[1], want)
	}
	if !rtl {
		t.Error("a Persian survey's sheet is not right to left")
	}
	since, until := url.QueryEscape(t0.Add(time.Minute).Format(time.RFC3339)), url.QueryEscape(t0.Add(2*time.Minute).Format(time.RFC3339))
	rows, _ = openXLSX(t, f.downloadAs(t, link("export_format=1&since="+since+"&until="+until), xlsxType))
	if len(rows) != 3 || rows[1][0] != fmt.Sprint(rs[1].ID) || rows[2][0] != fmt.Sprint(rs[2].ID) {
		t.Errorf("since..until in the workbook: %q", rows)
	}
	csv := string(f.download(t, link("export_format=2&since="+since)))
	if strings.Count(csv, "\r\n") != 4 || strings.Contains(csv, fmt.Sprint(rs[0].ID)+",") {
		t.Errorf("since in the CSV: %q", csv)
	}
	for _, q := range []string{"export_format=3", "export_format=xlsx"} {
		if r := f.do("GET", exportPath(f.sid)+"?"+q); r.code != 400 || !strings.Contains(string(r.body), `"export_format":["`) {
			t.Errorf("?%s: %v", q, r)
		}
	}
	if r := f.do("GET", exportPath(f.sid)+"?since=yesterday"); r.code != 400 || string(r.body) != `{"since":["`+dtMsg+`"]}` {
		t.Errorf("?since=yesterday: %v", r)
	}

	en, err := f.st.CreateSurvey(ctx, survey.Survey{AccountID: f.acct.ID, FolderID: f.folder, Name: "English", Language: 4, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	f.seed(t, en.ID, 0, 2)
	r := f.do("GET", exportPath(en.ID)+"?export_format=1")
	var out map[string]string
	if r.code != 200 || json.Unmarshal(r.body, &out) != nil {
		t.Fatalf("export of the English survey: %v", r)
	}
	if rows, rtl := openXLSX(t, f.downloadAs(t, relative(t, out["export"]), xlsxType)); len(rows) != 3 || rtl {
		t.Errorf("an English survey's workbook: rtl %v, rows %q", rtl, rows)
	}
}

// TestExportJobXLSX: an export job with export_format=1, since and until
// writes a workbook of the responses in that span.
func TestExportJobXLSX(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rs := f.seed(t, f.sid, f.text, 12)
	since := url.QueryEscape(rs[3].SubmittedAt.Format(time.RFC3339Nano))
	r := f.do("POST", exportJobsPath(f.sid)+"?export_format=1&since="+since)
	if r.code != http.StatusAccepted {
		t.Fatalf("POST exports: %v", r)
	}
	started := decodeJob(t, r)
	if handled, failed := f.jobs.run(t, f.exporter(t)); handled != 1 || failed != 0 {
		t.Fatalf("the export function handled %d messages, %d failed", handled, failed)
	}
	done := decodeJob(t, f.do("GET", exportJobsPath(f.sid)+started.ID+"/"))
	want := 0
	for _, resp := range rs {
		if !resp.SubmittedAt.Before(rs[3].SubmittedAt) {
			want++
		}
	}
	if done.Status != "succeeded" || done.Rows == nil || *done.Rows != int64(want) {
		t.Fatalf("the job %+v, want %d rows", done, want)
	}
	rows, rtl := openXLSX(t, f.downloadAs(t, relative(t, *done.Export), xlsxType))
	if len(rows) != want+1 || !rtl || rows[1][5] != "answer 3" {
		t.Errorf("the job's workbook: rtl %v, rows %q", rtl, rows)
	}
	if r := f.do("POST", exportJobsPath(f.sid)+"?export_format=0"); r.code != 400 {
		t.Errorf("export_format=0: %v", r)
	}
}

// TestOnlyTheExportFunctionLinksTheXLSXLibrary: the responses function's
// Lambda does not link excelize (it doubled its bootstrap, 11.5 -> 25.6
// MB, and its cold start; issue 42): its synchronous workbook exports are
// the export function's jobs, and that function does link it.
func TestOnlyTheExportFunctionLinksTheXLSXLibrary(t *testing.T) {
	t.Parallel()
	const lib = "github.com/xuri/excelize/v2"
	for _, c := range []struct {
		main  string
		links bool
	}{
		{"surveyservice/functions/responses/lambda", false},
		{"surveyservice/functions/exports/lambda", true},
	} {
		out, err := exec.Command("go", "list", "-deps", "-tags", "lambda.norpc", c.main).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", c.main, err, out)
		}
		deps := strings.Fields(string(out))
		if !slices.Contains(deps, c.main) {
			t.Fatalf("go list -deps %s does not list it: %q", c.main, out)
		}
		if got := slices.Contains(deps, lib); got != c.links {
			t.Errorf("%s links %s: %v, want %v", c.main, lib, got, c.links)
		}
	}
}
