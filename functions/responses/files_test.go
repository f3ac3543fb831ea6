package responses_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/responses"
	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
)

// TestFileAnswers: with the uploads bucket the owner's list and detail
// show a file answer as {file_name, size, url}, the URL downloading the
// file for 10 minutes; the CSV shows its name and size; deleting the
// response deletes its file; deleting under a trashed survey answers as
// without files (409) and deletes nothing.
func TestFileAnswers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	bucket := testenv.Uploads(t)
	f.h = testenv.Conform(api.ServeAt(testenv.APIBase, responses.New(responses.Deps{Auth: api.NewAuthenticator(f.st), Store: f.st,
		Sealer: testenv.Sealer(t), Exports: testenv.Exports(t), Jobs: f.jobs.Queue, Now: f.clk.Now, Uploads: bucket})))
	e := survey.NewElement(survey.TypeFileUpload)
	e.Title = "CV"
	ch, err := f.st.CreateElement(t.Context(), f.acct.ID, f.sid, e, survey.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	fid := ch.Element.ID
	content := []byte("%PDF-1.4 owner's view")
	var rs []survey.Response
	for i := range 2 {
		u := uploads.NewUpload(fid, "session", uploads.File{FileName: fmt.Sprintf("cv-%d.pdf", i), Size: int64(len(content)), ContentType: "application/pdf"})
		post, err := bucket.PresignPost(t.Context(), f.sid, u)
		if err != nil {
			t.Fatal(err)
		}
		if code := testenv.PostFile(t, post, content); code/100 != 2 {
			t.Fatalf("POST: %d", code)
		}
		file := uploads.File{Upload: strings.TrimPrefix(u.Key(f.sid), fmt.Sprintf("uploads/%d/", f.sid)), FileName: u.FileName, Size: u.Size, ContentType: u.ContentType}
		stored, _ := json.Marshal(file)
		rs = append(rs, survey.Response{SurveyID: f.sid, SubmittedAt: t0.Add(time.Duration(i) * time.Second), StartedAt: t0,
			Answers: map[int64]json.RawMessage{fid: stored}})
	}
	rs, err = storetest.ImportResponses(t.Context(), f.st, rs)
	if err != nil {
		t.Fatal(err)
	}
	key := fmt.Sprint(fid)
	var detail struct {
		Answers map[string]struct {
			FileName string  `json:"file_name"`
			Size     int64   `json:"size"`
			URL      *string `json:"url"`
		} `json:"answers"`
	}
	r := f.do("GET", detailPath(f.sid, rs[0].ID))
	if err := json.Unmarshal(r.body, &detail); err != nil || r.code != 200 {
		t.Fatalf("detail: %v", r)
	}
	a := detail.Answers[key]
	if a.FileName != "cv-0.pdf" || a.Size != int64(len(content)) || a.URL == nil || !strings.Contains(*a.URL, "X-Amz-Expires=600") {
		t.Fatalf("detail answer %s", r.body)
	}
	if strings.Contains(string(r.body), "content_type") || strings.Contains(string(r.body), `"upload"`) {
		t.Errorf("the owner's view shows the stored form: %s", r.body)
	}
	resp, err := http.Get(*a.URL)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(got) != string(content) {
		t.Errorf("download %d %q", resp.StatusCode, got)
	}
	if r := f.do("GET", listPath(f.sid)+"?format=csv"); !strings.Contains(string(r.body), "cv-1.pdf (21 B)") {
		t.Errorf("CSV %s", r.body)
	}
	if r := f.do("DELETE", detailPath(f.sid, rs[0].ID)); r.code != 204 {
		t.Fatalf("DELETE: %v", r)
	}
	if keys := testenv.UploadKeys(t, bucket); len(keys) != 1 || !strings.HasSuffix(keys[0], "/"+mustFile(t, rs[1], fid).Upload) {
		t.Errorf("after the delete the bucket holds %v", keys)
	}
	if r := f.do("DELETE", detailPath(f.sid, rs[0].ID)); r.code != 404 {
		t.Errorf("second DELETE: %v", r)
	}
	if err := f.st.TrashSurvey(t.Context(), f.acct.ID, f.sid); err != nil {
		t.Fatal(err)
	}
	if r := f.do("DELETE", detailPath(f.sid, rs[1].ID)); r.code != 409 {
		t.Errorf("DELETE under a trashed survey: %v", r)
	}
	if r := f.do("DELETE", detailPath(f.sid, rs[0].ID)); r.code != 409 {
		t.Errorf("DELETE of a gone response under a trashed survey: %v", r)
	}
	if keys := testenv.UploadKeys(t, bucket); len(keys) != 1 {
		t.Errorf("a refused delete deleted files: %v", keys)
	}
}

func mustFile(t *testing.T, r survey.Response, fid int64) survey.FileAnswer {
	t.Helper()
	f, ok := survey.DecodeFileAnswer(r.Answers[fid])
	if !ok {
		t.Fatalf("no file answer in %v", r.Answers)
	}
	return f
}
