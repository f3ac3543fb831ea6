package responses_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"surveyservice/internal/storetest"
	"surveyservice/shared/survey"
)

// exportLink asks for an export and answers its link, relative.
func (f *fixture) exportLink(t *testing.T, sid int64) (string, reply) {
	t.Helper()
	r := f.do("GET", exportPath(sid))
	if r.code != 200 {
		t.Fatalf("export: %v", r)
	}
	var out map[string]string
	if err := json.Unmarshal(r.body, &out); err != nil || len(out) != 1 || out["export"] == "" {
		t.Fatalf("export answer %s", r.body)
	}
	return relative(t, out["export"]), r
}

// download follows an export link as a client does: the service's
// redirect, then the presigned link on S3.
func (f *fixture) download(t *testing.T, link string) []byte {
	t.Helper()
	return f.downloadAs(t, link, "text/csv; charset=utf-8")
}

// downloadAs is download of a file of that Content-Type.
func (f *fixture) downloadAs(t *testing.T, link, contentType string) []byte {
	t.Helper()
	r := serve(f.h, "GET", link, "") // no API key: the link is the capability
	if r.code != http.StatusFound || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("export link: %v", r)
	}
	resp, err := http.Get(r.header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET the file: %d %v %.200s", resp.StatusCode, err, body)
	}
	if resp.Header.Get("Content-Type") != contentType {
		t.Errorf("the file's Content-Type %q", resp.Header.Get("Content-Type"))
	}
	return body
}

// TestExport: the export link answers a CSV file of every response,
// oldest first, as the CSV pages show them (the export reads as many
// Queries as the responses' megabytes); the link works without a key for
// an hour and then answers 410; a forged link or one of another survey is
// 404.
func TestExport(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rs := f.seed(t, f.sid, f.text, 5)
	big := make([]survey.Response, 40) // 40 × 30 KB: two Queries of 1 MB
	for i := range big {
		answer, _ := json.Marshal(strings.Repeat(fmt.Sprint(i%10), 30_000))
		big[i] = survey.Response{SurveyID: f.sid, SubmittedAt: t0.Add(time.Hour + time.Duration(i)*time.Second), StartedAt: t0.Add(time.Hour),
			Answers: map[int64]json.RawMessage{f.text: answer}}
	}
	big, err := storetest.ImportResponses(t.Context(), f.st, big)
	if err != nil {
		t.Fatal(err)
	}
	link, r := f.exportLink(t, f.sid)
	if q := r.calls.Ops()["DynamoDB.Query"]; q < 3 {
		t.Errorf("the export made %d Queries (%v): want the collection and two pages", q, r.calls.Ops())
	}
	if !strings.HasPrefix(link, exportPath(f.sid)) || strings.Count(strings.TrimPrefix(link, exportPath(f.sid)), "/") != 1 {
		t.Errorf("export link %q is not under %s", link, exportPath(f.sid))
	}
	rows := readCSV(t, reply{code: 200, body: f.download(t, link), header: http.Header{"Content-Type": {"text/csv; charset=utf-8"}}})
	if want := []string{"id", "submitted_at", "duration_seconds", "spam", "language", "What did you think?", "city", "age"}; !slices.Equal(rows[0], want) {
		t.Errorf("header %q", rows[0])
	}
	all := append(append([]survey.Response(nil), rs...), big...)
	sortResponses(all, true)
	var got, want []int64
	for _, row := range rows[1:] {
		id, _ := strconv.ParseInt(row[0], 10, 64)
		got = append(got, id)
	}
	for _, r := range all {
		want = append(want, r.ID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("export rows %v, want every response oldest first %v", got, want)
	}
	if row := rows[len(rows)-1]; len(row[5]) != 30_000 {
		t.Errorf("a 30 KB answer is %d bytes in the file", len(row[5]))
	}
	other, _ := f.newSurvey(t, "Other")
	token := strings.TrimSuffix(strings.TrimPrefix(link, exportPath(f.sid)), "/")
	for name, path := range map[string]string{
		"another survey's": exportPath(other) + token + "/",
		"forged":           exportPath(f.sid) + "AAAA" + token[4:] + "/",
		"garbage":          exportPath(f.sid) + "nothing/",
	} {
		if r := serve(f.h, "GET", path, ""); r.code != 404 || string(r.body) != `{"detail":"Not found."}` {
			t.Errorf("%s link: %v", name, r)
		}
	}
	if r := serve(f.h, "GET", exportPath(f.sid), ""); r.code != 401 {
		t.Errorf("export without a key: %v", r)
	}
	f.clk.Add(59 * time.Minute)
	f.download(t, link)
	f.clk.Add(time.Minute)
	if r := serve(f.h, "GET", link, ""); r.code != 410 || string(r.body) != `{"detail":"This export link has expired."}` {
		t.Errorf("an hour later: %v", r)
	}
}

// TestExportEmptySurvey: the file of a survey without responses is its
// header.
func TestExportEmptySurvey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	link, _ := f.exportLink(t, f.sid)
	if body := string(f.download(t, link)); body != "\uFEFFid,submitted_at,duration_seconds,spam,language,What did you think?,city,age\r\n" {
		t.Errorf("empty export %q", body)
	}
}
