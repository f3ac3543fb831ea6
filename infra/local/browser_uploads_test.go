package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"surveyservice/functions/pages"
	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
)

// uploadsServer is a pagesServer whose responders take files: an uploads
// bucket of its own on moto, reached by the browser through the CORS
// proxy (s3cors.go) as `make run` does.
type uploadsServer struct {
	pagesServer
	bucket *uploads.Bucket
}

func newUploadsServer(t *testing.T) uploadsServer {
	t.Helper()
	st := testenv.Store(t)
	_, key := testenv.NewAccount(t, survey.PlanEnterprise)
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	env := map[string]string{"AWS_ENDPOINT_URL": testenv.Endpoint(t), "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": testenv.AccessKey(t), "AWS_SECRET_ACCESS_KEY": "test"}
	cfg, err := localaws.Load(context.Background(), awsenv.FromEnv(func(k string) string { return env[k] }))
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := newS3CORS(testenv.Endpoint(t), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	at, stop, err := proxy.listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	bucket := localaws.UploadsAt(cfg, fmt.Sprintf("browser-uploads-%d", time.Now().UnixNano()), at)
	if err := localaws.EnsureUploads(context.Background(), bucket, srv.URL); err != nil {
		t.Fatal(err)
	}
	h = serve(routers(st, config{sealer: testenv.Sealer(t), surveyURL: srv.URL, exports: testenv.Exports(t),
		uploads: bucket, pages: pages.Config{PublicURL: srv.URL, UploadsOrigin: bucket.Origin()}}))
	return uploadsServer{pagesServer: pagesServer{srv: srv, api: apiClient{h: h, key: key}}, bucket: bucket}
}

// fileSurvey is a survey with one required file-upload question (PDF and
// PNG, up to 1 MB) and an appreciation page.
func fileSurvey(name string, settings map[string]any) surveySpec {
	return surveySpec{Name: name, Language: 4, Settings: settings, Elements: []map[string]any{
		{"type": 11, "title": "Your CV", "answer_required": true, "max_file_size_mb": 1, "allowed_file_types": []string{"pdf", "png"}},
		{"type": 9, "title": "Thanks!"},
	}}
}

// choose sets the file input's file, as a person picking it does.
func choose(t *testing.T, ctx context.Context, sel, path string) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.SetUploadFiles(sel, []string{path}, chromedp.ByQuery)); err != nil {
		t.Fatalf("choose %s: %v", path, err)
	}
}

// waitText polls a JavaScript expression until it is a non-empty string.
func waitText(t *testing.T, ctx context.Context, js string) string {
	t.Helper()
	for range 1200 {
		if v := evalJS[string](t, ctx, js); v != "" {
			return v
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s stayed empty", js)
	return ""
}

func writeFile(t *testing.T, name string, content []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBrowserUpload: a file chosen on the page is uploaded to S3 (moto)
// with the presigned POST, the response answers it, and the owner sees
// {file_name, size, url}, the URL downloading the file, and its name and
// size in the CSV; deleting the response deletes the file.
func TestBrowserUpload(t *testing.T) {
	p := newUploadsServer(t)
	sv := p.build(t, fileSurvey("upload", nil))
	qid := elementID(sv, 0)
	// The page may reach the bucket (connect-src), and only a page with
	// a file question.
	plain := p.build(t, oneQuestion("no file", nil))
	for slug, want := range map[string]bool{sv.URLSlug: true, plain.URLSlug: false} {
		resp, err := http.Get(p.srv.URL + "/s/" + slug + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		if strings.Contains(csp, "connect-src 'self' "+p.bucket.Origin()+";") != want {
			t.Errorf("%s: CSP %q, want the bucket's origin %v", slug, csp, want)
		}
	}
	content := append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("survey "), 3000)...)
	path := writeFile(t, "résumé.pdf", content)
	ctx := browser(t, true)
	open(t, ctx, p.pagesServer, sv.URLSlug)
	sel := fmt.Sprintf("#a%d", qid)
	visible(t, ctx, sel)
	// The file input's button is drawn as the page's buttons are.
	if got := evalJS[string](t, ctx, `(() => { const f = getComputedStyle(document.querySelector("`+sel+`"), "::file-selector-button"), b = getComputedStyle(document.getElementById("next"));
		return [f.backgroundColor === b.backgroundColor, f.color === b.color, f.paddingTop === b.paddingTop, f.borderRadius === b.borderRadius].join(" "); })()`); got != "true true true true" {
		t.Errorf("the file input's button is not styled as the page's buttons (colour, text, padding, corners): %s", got)
	}
	choose(t, ctx, sel, path)
	q := fmt.Sprintf(`document.querySelector('.q[data-id="%d"]')`, qid)
	waitText(t, ctx, q+`.getAttribute("data-upload")||""`)
	if status := evalJS[string](t, ctx, q+`.querySelector(".upload-status").textContent`); status != "Uploaded: résumé.pdf" {
		t.Errorf("status %q", status)
	}
	shot(t, ctx, "upload-chosen")
	checkAxe(t, ctx, "file question, uploaded")
	// Reloaded, the page keeps no file (contract section 20): the question
	// shows the upload made, by name, and answers it.
	upload := evalJS[string](t, ctx, q+`.getAttribute("data-upload")`)
	reload(t, ctx)
	if got := evalJS[string](t, ctx, q+`.getAttribute("data-upload") + " " + `+q+`.querySelector(".upload-status").textContent`); got != upload+" Uploaded: résumé.pdf" {
		t.Errorf("after a reload the file question shows %q, want %q", got, upload+" Uploaded: résumé.pdf")
	}
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#thanks")

	var page struct {
		Results []struct {
			ID      int64                      `json:"id"`
			Answers map[string]json.RawMessage `json:"answers"`
		} `json:"results"`
	}
	if err := p.api.call("GET", fmt.Sprintf("/api/surveys/%d/responses/", sv.ID), nil, &page); err != nil || len(page.Results) != 1 {
		t.Fatalf("responses %+v: %v", page, err)
	}
	var file struct {
		FileName string `json:"file_name"`
		Size     int64  `json:"size"`
		URL      string `json:"url"`
	}
	raw := page.Results[0].Answers[fmt.Sprint(qid)]
	if err := json.Unmarshal(raw, &file); err != nil || file.FileName != "résumé.pdf" || file.Size != int64(len(content)) || !strings.Contains(file.URL, "X-Amz-Expires=600") {
		t.Fatalf("the owner's answer %s: %v", raw, err)
	}
	var detail map[string]any
	if err := p.api.call("GET", fmt.Sprintf("/api/surveys/%d/responses/%d/", sv.ID, page.Results[0].ID), nil, &detail); err != nil {
		t.Fatal(err)
	}
	if a := detail["answers"].(map[string]any)[fmt.Sprint(qid)].(map[string]any); a["file_name"] != "résumé.pdf" || len(a) != 3 {
		t.Errorf("detail answer %v, want {file_name, size, url}", a)
	}
	resp, err := http.Get(file.URL)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(got, content) {
		t.Errorf("download: %d, %d bytes", resp.StatusCode, len(got))
	}
	req := httptest.NewRequest("GET", fmt.Sprintf("/api/surveys/%d/responses/?format=csv", sv.ID), nil)
	req.Header.Set("Authorization", "Api-Key "+p.api.key)
	rec := httptest.NewRecorder()
	p.api.h.ServeHTTP(rec, req)
	if !strings.Contains(rec.Body.String(), "résumé.pdf (20.5 KB)") {
		t.Errorf("CSV %s: want the file's name and size", rec.Body)
	}
	if keys := testenv.UploadKeys(t, p.bucket); len(keys) != 1 {
		t.Fatalf("bucket holds %v", keys)
	}
	if err := p.api.call("DELETE", fmt.Sprintf("/api/surveys/%d/responses/%d/", sv.ID, page.Results[0].ID), nil, nil); err != nil {
		t.Fatal(err)
	}
	if keys := testenv.UploadKeys(t, p.bucket); len(keys) != 0 {
		t.Errorf("the deleted response's file is still there: %v", keys)
	}
}

// TestBrowserUploadRefused: a file of a type or size the question does
// not take is refused on the page before anything is sent; the API
// refuses it too (the presign), and a submission whose upload answer is
// not a real upload is refused with the message shown on the page.
func TestBrowserUploadRefused(t *testing.T) {
	p := newUploadsServer(t)
	sv := p.build(t, fileSurvey("refused", nil))
	qid := elementID(sv, 0)
	ctx := browser(t, true)
	open(t, ctx, p.pagesServer, sv.URLSlug)
	sel := fmt.Sprintf("#a%d", qid)
	visible(t, ctx, sel)
	q := fmt.Sprintf(`document.querySelector('.q[data-id="%d"]')`, qid)
	status := q + `.querySelector(".upload-status").textContent`
	for _, tc := range []struct{ name, want string }{
		{writeFile(t, "virus.exe", []byte("MZ")), "Files of this type are not accepted."},
		{writeFile(t, "big.pdf", bytes.Repeat([]byte{'x'}, uploads.MiB+1)), "The file is larger than 1 MB."},
	} {
		choose(t, ctx, sel, tc.name)
		if got := waitText(t, ctx, status); got != tc.want {
			t.Errorf("%s: status %q, want %q", filepath.Base(tc.name), got, tc.want)
		}
		if evalJS[string](t, ctx, `document.querySelector("`+sel+`").getAttribute("aria-invalid")||""`) != "true" {
			t.Errorf("%s: the input is not marked invalid", filepath.Base(tc.name))
		}
	}
	shot(t, ctx, "upload-refused")
	checkAxe(t, ctx, "file question, refused")
	if keys := testenv.UploadKeys(t, p.bucket); len(keys) != 0 {
		t.Fatalf("refused files reached the bucket: %v", keys)
	}
	// The API refuses the same files.
	session := evalJS[string](t, ctx, `document.getElementById("survey").elements.session.value`)
	virus := fmt.Sprintf(`{"session":%q,"element":%d,"file_name":"virus.exe","content_type":"application/octet-stream","size":2}`, session, qid)
	big := fmt.Sprintf(`{"session":%q,"element":%d,"file_name":"big.pdf","content_type":"application/pdf","size":%d}`, session, qid, uploads.MiB+1)
	for body, want := range map[string]string{
		virus: `{"file_name":["Files of this type are not accepted. Allowed: pdf, png."]}`,
		big:   `{"size":["The file must be from 1 byte to 1 MB."]}`,
	} {
		resp, err := http.Post(p.srv.URL+"/api/public/surveys/"+sv.URLSlug+"/uploads/", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || string(got) != want {
			t.Errorf("presign %s: %d %s, want 400 %s", body, resp.StatusCode, got, want)
		}
	}
	// Submitting anyway: without an upload the required question stops
	// the page; with an answer that is no upload of this session, the
	// submission is refused and the page says so.
	evalJS[bool](t, ctx, q+`.setAttribute("data-upload", "not-an-upload") || true`)
	tabTo(t, ctx, "submit")
	msg := waitText(t, ctx, `document.getElementById("errors").innerText`)
	if msg != "\u2068Your CV\u2069: Invalid upload." { // the title quoted isolated (functions/pages, messages.go)
		t.Errorf("the page shows %q", msg)
	}
	shot(t, ctx, "upload-refused-at-submission")
	if rs := p.responses(t, sv.ID); len(rs) != 0 {
		t.Fatalf("%d responses recorded", len(rs))
	}
}
