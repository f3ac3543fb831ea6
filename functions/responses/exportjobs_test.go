package responses_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"surveyservice/functions/responses"
	"surveyservice/functions/responses/workbook"
	"surveyservice/internal/testenv"
	"surveyservice/shared/exports"
	"surveyservice/shared/store"
)

func exportJobsPath(sid int64) string {
	return fmt.Sprintf("/api/v2/surveys/%d/responses/exports/", sid)
}

// job is an export job as the API answers it.
type job struct {
	ID         string  `json:"id"`
	Status     string  `json:"status"`
	CreatedAt  string  `json:"created_at"`
	FinishedAt *string `json:"finished_at"`
	Rows       *int64  `json:"rows"`
	Export     *string `json:"export"`
}

func decodeJob(t *testing.T, r reply) job {
	t.Helper()
	var j job
	if err := json.Unmarshal(r.body, &j); err != nil {
		t.Fatalf("job %v: %v", r, err)
	}
	return j
}

func (f *fixture) exporter(t testing.TB) *responses.Exporter {
	return responses.NewExporter(responses.ExporterDeps{Store: f.st, Exports: testenv.Exports(t), Workbook: responses.Workbooks(workbook.New), MaxAttempts: exports.MaxReceives})
}

// TestExportJob: POST .../exports/ answers 202 and a pending job at once;
// the export function (run from the queue) writes every response to the
// file; the job then answers succeeded, its rows and a link to the file;
// a message delivered again changes nothing.
func TestExportJob(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rs := f.seed(t, f.sid, f.text, 25)
	r := f.do("POST", exportJobsPath(f.sid))
	if r.code != http.StatusAccepted {
		t.Fatalf("POST exports: %v", r)
	}
	started := decodeJob(t, r)
	if started.Status != "pending" || len(started.ID) != 32 || started.Export != nil || started.Rows != nil || started.FinishedAt != nil {
		t.Errorf("started job %+v", started)
	}
	if loc := r.header.Get("Location"); loc != "http://example.com"+exportJobsPath(f.sid)+started.ID+"/" {
		t.Errorf("Location %q", loc)
	}
	if got := decodeJob(t, f.do("GET", exportJobsPath(f.sid)+started.ID+"/")); got.Status != "pending" {
		t.Errorf("before the run: %+v", got)
	}
	if handled, failed := f.jobs.run(t, f.exporter(t)); handled != 1 || failed != 0 {
		t.Fatalf("the export function handled %d messages, %d failed", handled, failed)
	}
	r = f.do("GET", exportJobsPath(f.sid)+started.ID+"/")
	done := decodeJob(t, r)
	if r.code != 200 || done.Status != "succeeded" || done.Rows == nil || *done.Rows != int64(len(rs)) || done.Export == nil || done.FinishedAt == nil {
		t.Fatalf("after the run: %v", r)
	}
	rows := readCSV(t, reply{code: 200, body: f.download(t, relative(t, *done.Export)), header: http.Header{"Content-Type": {"text/csv; charset=utf-8"}}})
	if len(rows) != len(rs)+1 {
		t.Fatalf("the file has %d rows, want a header and %d", len(rows), len(rs))
	}
	seen := map[int64]bool{}
	for _, row := range rows[1:] {
		id, _ := strconv.ParseInt(row[0], 10, 64)
		seen[id] = true
	}
	for _, resp := range rs {
		if !seen[resp.ID] {
			t.Errorf("response %d missing from the file", resp.ID)
		}
	}
	// The same message again (SQS delivers at least once): nothing to do.
	if err := f.jobs.Send(t.Context(), exports.Job{SurveyID: f.sid, AccountID: f.acct.ID, JobID: started.ID}); err != nil {
		t.Fatal(err)
	}
	if handled, failed := f.jobs.run(t, f.exporter(t)); handled != 1 || failed != 0 {
		t.Fatalf("redelivery: %d handled, %d failed", handled, failed)
	}
	if again := decodeJob(t, f.do("GET", exportJobsPath(f.sid)+started.ID+"/")); again.Status != "succeeded" || *again.FinishedAt != *done.FinishedAt {
		t.Errorf("after a redelivery: %+v", again)
	}
}

// TestExportJobRefusals: jobs of unknown or foreign surveys, unknown or
// malformed ids, and other accounts' jobs answer 404; without a key 401;
// a malformed message is dropped.
func TestExportJobRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other := newFixture(t)
	if r := f.do("POST", exportJobsPath(other.sid)); r.code != 404 {
		t.Errorf("POST for another account's survey: %v", r)
	}
	if r := serve(f.h, "POST", exportJobsPath(f.sid), ""); r.code != 401 {
		t.Errorf("POST without a key: %v", r)
	}
	started := decodeJob(t, f.do("POST", exportJobsPath(f.sid)))
	for name, path := range map[string]string{
		"unknown id":       exportJobsPath(f.sid) + strings.Repeat("0", 32) + "/",
		"malformed id":     exportJobsPath(f.sid) + "nothing/",
		"upper-case id":    exportJobsPath(f.sid) + strings.ToUpper(started.ID) + "/",
		"another survey's": exportJobsPath(other.sid) + started.ID + "/",
	} {
		if r := f.do("GET", path); r.code != 404 || string(r.body) != `{"detail":"Not found."}` {
			t.Errorf("%s: %v", name, r)
		}
	}
	if r := other.do("GET", exportJobsPath(f.sid)+started.ID+"/"); r.code != 404 {
		t.Errorf("another account's key: %v", r)
	}
	if err := f.jobs.Send(t.Context(), exports.Job{SurveyID: 1, AccountID: 1, JobID: "x"}); err != nil {
		t.Fatal(err)
	}
	if handled, failed := f.jobs.run(t, f.exporter(t)); handled != 2 || failed != 0 {
		t.Fatalf("%d handled, %d failed", handled, failed)
	}
	j, err := f.st.ExportJobOf(t.Context(), f.acct.ID, f.sid, started.ID)
	if err != nil || j.Status != store.ExportSucceeded || j.Rows != 0 {
		t.Errorf("the job of a survey without responses: %+v, %v", j, err)
	}
}
