package responses_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"testing"

	"surveyservice/shared/survey"
)

// TestPythonClient runs a small client written against the real service's
// API (testdata/results_client.py: Python, standard library only) against
// the handlers on a real HTTP server: it walks the results table page by
// page, oldest first, until a short page, and downloads the export. What
// it reads must be every response, with the table's and the CSV's
// headers and cells.
func TestPythonClient(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rs := f.seed(t, f.sid, f.text, 25)
	out := f.runPython(t, "testdata/results_client.py", "10")
	var got struct {
		RespondersCount int64                     `json:"responders_count"`
		Header          []string                  `json:"header"`
		IDs             []int64                   `json:"ids"`
		Codes           map[string]string         `json:"codes"`
		Cells           map[string]map[string]any `json:"cells"`
		ExportIDs       []int64                   `json:"export_ids"`
		ExportHeader    []string                  `json:"export_header"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the client printed %s: %v", out, err)
	}
	sorted := append([]survey.Response(nil), rs...)
	sortResponses(sorted, true)
	var want []int64
	for _, r := range sorted {
		want = append(want, r.ID)
	}
	if got.RespondersCount != 25 || !slices.Equal(got.IDs, want) || !slices.Equal(got.ExportIDs, want) {
		t.Fatalf("the client read count %d, ids %v, export %v; want 25 and %v", got.RespondersCount, got.IDs, got.ExportIDs, want)
	}
	wantHeader := []string{"id", "submitted_at", "duration_seconds", "spam", "language", "What did you think?", "city", "age"}
	wantTitles := []string{"responder_id", "responder_code", "What did you think?", "city", "age", "spam", "language", "responding_duration", "submitted_date_time"}
	if !slices.Equal(got.Header, wantTitles) || !slices.Equal(got.ExportHeader, wantHeader) {
		t.Errorf("headers %q and %q, want %q and %q", got.Header, got.ExportHeader, wantTitles, wantHeader)
	}
	first := got.Cells[fmt.Sprint(rs[0].ID)]
	if first["What did you think?"] != "answer 0" || first["city"] != "Tabriz" || first["age"] != "20" || got.Codes[fmt.Sprint(rs[0].ID)] != "CODE-0" {
		t.Errorf("the first responder's cells %v, code %q", first, got.Codes[fmt.Sprint(rs[0].ID)])
	}
}

// runPython runs a Python client script against the fixture's handlers on
// a real HTTP server, as `script BASE_URL API_KEY SURVEY_ID args...`, and
// answers what it printed; a failure shows its stderr.
func (f *fixture) runPython(t *testing.T, script string, args ...string) []byte {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is not installed: this test needs it")
	}
	// The server's own address is the API's (API_BASE_URL): the client
	// follows the links the answers carry.
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	defer srv.Close()
	h = f.at(srv.URL)
	out, err := exec.CommandContext(t.Context(), python, append([]string{script, srv.URL, f.key, fmt.Sprint(f.sid)}, args...)...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s failed: %v\n%s", script, err, stderr)
	}
	return out
}
