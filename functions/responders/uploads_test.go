package responders_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"surveyservice/functions/responders"
	"surveyservice/internal/testenv"
	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
)

func uploadsPath(slug string) string { return "/api/public/surveys/" + slug + "/uploads/" }

// fileQuestion adds a file-upload question to the survey.
func (f fixture) fileQuestion(tb testing.TB, sid int64, maxMB int64, types []string, required bool) int64 {
	tb.Helper()
	e := survey.NewElement(survey.TypeFileUpload)
	e.Title, e.AnswerRequired, e.MaxFileSizeMB, e.AllowedFileTypes = "Your CV", required, maxMB, types
	ch, err := f.st.CreateElement(context.Background(), f.aid, sid, e, survey.Placement{})
	if err != nil {
		tb.Fatal(err)
	}
	return ch.Element.ID
}

// presign asks for a presigned POST; on 201 it answers the upload id and
// the POST.
func presign(tb testing.TB, f fixture, slug string, body map[string]any) (reply, string, uploads.Post) {
	tb.Helper()
	r := send(tb, f.h, "POST", uploadsPath(slug), mustJSON(tb, body), js...)
	var out struct {
		Upload string `json:"upload"`
		uploads.Post
	}
	if r.code == 201 {
		if err := json.Unmarshal([]byte(r.body), &out); err != nil || out.Upload == "" || out.URL == "" {
			tb.Fatalf("201 %s: %v", r.body, err)
		}
	}
	return r, out.Upload, out.Post
}

// uploadsFixture is newFixture with the uploads bucket.
func uploadsFixture(t *testing.T) (fixture, *uploads.Bucket) {
	t.Helper()
	f := newFixture(t)
	bucket := testenv.Uploads(t)
	now := func() time.Time { return f.st.Now() }
	f.h = testenv.Conform(responders.New(responders.Deps{Store: f.st, Sealer: f.sealer, Now: now, Uploads: bucket}))
	return f, bucket
}

// uploaded presigns a PNG of the session for a file question and posts
// it; it answers the upload id and the object's key.
func uploaded(t *testing.T, f fixture, slug, session string, element int64, name string, content []byte) (id, key string) {
	t.Helper()
	r, id, post := presign(t, f, slug, map[string]any{"session": session, "element": element, "file_name": name, "content_type": "image/png", "size": len(content)})
	if r.code != 201 {
		t.Fatalf("presign: %d %s", r.code, r.body)
	}
	if code := testenv.PostFile(t, post, content); code/100 != 2 {
		t.Fatalf("POST: %d", code)
	}
	return id, post.Fields["key"]
}

// TestUploads: the uploads route presigns a POST for a file the element's
// rules allow (one Query, the presign and seal local), and refuses every
// other request with a 400 on its field that stores nothing; the
// submission accepts the upload id of a file that is in the bucket as
// declared, made for this session and element (one HeadObject per upload
// answer, and no other call), and refuses every other. The dispatch
// function, reading the response's INSERT from the stream, keeps the file
// (removes its pending tag); a retried batch keeps it again harmlessly.
func TestUploads(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	bucket := testenv.Uploads(t)
	now := func() time.Time { return f.st.Now() }
	f.h = testenv.Conform(responders.New(responders.Deps{Store: f.st, Sealer: f.sealer, Now: now, Uploads: bucket}))
	slug, sid := f.survey(t, nil)
	file := f.fileQuestion(t, sid, 1, []string{"pdf", "png"}, true)
	text := f.textQuestion(t, sid, "Say", false)
	session := f.session(t, slug, nil)
	other := f.session(t, slug, nil)
	content := []byte("%PDF-1.4 a small file")
	good := map[string]any{"session": session, "element": file, "file_name": "cv.PDF", "content_type": "application/pdf", "size": len(content)}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for a, b := range good {
			m[a] = b
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}

	for _, tc := range []struct {
		name string
		body map[string]any
		want string
	}{
		{"no session", with("session", nil), `{"session":["This field is required."]}`},
		{"bad session", with("session", "forged"), `{"session":["Invalid session."]}`},
		{"no element", with("element", nil), `{"element":["This field is required."]}`},
		{"a text question", with("element", text), `{"element":["Invalid pk \"` + strconv.FormatInt(text, 10) + `\" - object does not exist."]}`},
		{"unknown element", with("element", 999999), `{"element":["Invalid pk \"999999\" - object does not exist."]}`},
		{"type not allowed", with("file_name", "cv.exe"), `{"file_name":["Files of this type are not accepted. Allowed: pdf, png."]}`},
		{"no extension", with("file_name", "cv"), `{"file_name":["Files of this type are not accepted. Allowed: pdf, png."]}`},
		{"content type mismatch", with("content_type", "image/png"), `{"content_type":["The content type does not match a .pdf file."]}`},
		{"too big", with("size", uploads.MiB+1), `{"size":["The file must be from 1 byte to 1 MB."]}`},
		{"empty", with("size", 0), `{"size":["Ensure this value is greater than or equal to 1."]}`},
		{"size a string", with("size", "12"), `{"size":["A valid integer is required."]}`},
	} {
		r, _, _ := presign(t, f, slug, tc.body)
		if r.code != 400 || r.body != tc.want {
			t.Errorf("%s: %d %s, want 400 %s", tc.name, r.code, r.body, tc.want)
		}
	}
	if keys := testenv.UploadKeys(t, bucket); len(keys) != 0 {
		t.Fatalf("refused presigns left objects %v", keys)
	}

	r, id, post := presign(t, f, slug, good)
	if r.code != 201 {
		t.Fatalf("presign: %d %s", r.code, r.body)
	}
	t.Logf("presign: %d DynamoDB calls %v", r.calls, r.ops)
	if r.calls > 2 || r.ops["KMS.Decrypt"]+r.ops["KMS.GenerateDataKey"] > 0 && r.calls > 1 {
		t.Errorf("presign: %d DynamoDB calls %v; want the survey's Query (and the slug's read when cold)", r.calls, r.ops)
	}
	if post.Fields["key"] == "" || post.Fields["Content-Type"] != "application/pdf" {
		t.Errorf("POST fields %v", post.Fields)
	}
	// On another survey: the same element id is unknown there.
	slug2, _ := f.survey(t, nil)
	if r, _, _ := presign(t, f, slug2, with("session", f.session(t, slug2, nil))); r.code != 400 {
		t.Errorf("another survey's element: %d %s", r.code, r.body)
	}

	answer := func(sess, upload string) reply {
		return f.respond(t, slug, sess, map[string]any{strconv.FormatInt(file, 10): upload})
	}
	fileErr := func(msg string) string {
		return `{"answers":{"` + strconv.FormatInt(file, 10) + `":["` + msg + `"]}}`
	}
	// Required: no answer is refused.
	if r := f.respond(t, slug, session, nil); r.code != 400 || r.body != fileErr(survey.MsgAnswerRequired) {
		t.Errorf("no file: %d %s", r.code, r.body)
	}
	// Not in the bucket yet.
	if r := answer(session, id); r.code != 400 || r.body != fileErr(uploads.MsgNotUploaded) {
		t.Errorf("before the upload: %d %s", r.code, r.body)
	}
	if code := testenv.PostFile(t, post, content); code/100 != 2 {
		t.Fatalf("POST to S3: %d", code)
	}
	for _, tc := range []struct{ name, session, id, want string }{
		{"another session", other, id, uploads.MsgInvalidUpload},
		{"forged", session, "forged", uploads.MsgInvalidUpload},
		{"not a string", session, "", survey.MsgAnswerRequired},
	} {
		if r := answer(tc.session, tc.id); r.code != 400 || r.body != fileErr(tc.want) {
			t.Errorf("%s: %d %s, want %s", tc.name, r.code, r.body, fileErr(tc.want))
		}
	}
	// A file of another size than declared (S3 holds a POST to its
	// policy; the emulator does not): refused at submission.
	_, id2, post2 := presign(t, f, slug, good)
	testenv.PostFile(t, post2, append(bytes.Clone(content), '!'))
	if r := answer(session, id2); r.code != 400 || r.body != fileErr(uploads.MsgMismatch) {
		t.Errorf("another size: %d %s", r.code, r.body)
	}
	f.wantStored(t, "after the refusals", sid, 0)

	r = answer(session, id)
	if r.code != 201 {
		t.Fatalf("submit: %d %s", r.code, r.body)
	}
	t.Logf("submission with one upload answer: %d DynamoDB calls, ops %v", r.calls, r.ops)
	// The container's first submission leases its response ids (one
	// UpdateItem, once per lease); the submission itself is 3 calls.
	if r.calls-r.ops["DynamoDB.UpdateItem"] != 3 || r.ops["DynamoDB.UpdateItem"] > 1 || s3Calls(r.ops) != 1 || r.ops["S3.HeadObject"] != 1 {
		t.Errorf("%d DynamoDB calls, ops %v; want 3 DynamoDB calls (and the ids' lease) and one S3 call, the HeadObject", r.calls, r.ops)
	}
	f.wantStored(t, "after the submission", sid, 1)
	// The file is pending until the stream's consumer keeps it (the
	// emulator ignores the POST's tagging field: the tag is put here).
	tagPending(t, bucket, post.Fields["key"])
	tagPending(t, bucket, post2.Fields["key"])
	recs := streamOfSurvey(t, sid)
	if kept := dispatchStream(t, f.st, bucket, recs); len(kept) != 1 || kept[0] != post.Fields["key"] {
		t.Errorf("the dispatch kept %v; want %s", kept, post.Fields["key"])
	}
	if pending(t, bucket, post.Fields["key"]) {
		t.Errorf("the answered file is still pending after the stream's consumer ran")
	}
	if !pending(t, bucket, post2.Fields["key"]) {
		t.Errorf("a file never answered was kept")
	}
	// Lambda retries a batch (a failure elsewhere in it, a timeout): the
	// file is kept again, which changes nothing and fails nothing.
	dispatchStream(t, f.st, bucket, recs)
	if pending(t, bucket, post.Fields["key"]) || len(testenv.UploadKeys(t, bucket)) != 2 {
		t.Errorf("after a retried batch: pending %v, objects %v", pending(t, bucket, post.Fields["key"]), testenv.UploadKeys(t, bucket))
	}
	var created struct{ ID int64 }
	json.Unmarshal([]byte(r.body), &created)
	resp, err := f.st.ResponseOfSurvey(context.Background(), sid, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := survey.DecodeFileAnswer(resp.Answers[file])
	if !ok || got.FileName != "cv.PDF" || got.Size != int64(len(content)) || got.ContentType != "application/pdf" || uploads.FileKey(sid, got) != post.Fields["key"] {
		t.Errorf("stored answer %s", resp.Answers[file])
	}
}

// TestUploadsWithoutBucket: a container without the uploads bucket has no
// uploads route and refuses upload answers (400, nothing stored).
func TestUploadsWithoutBucket(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid := f.survey(t, nil)
	file := f.fileQuestion(t, sid, 0, nil, false)
	session := f.session(t, slug, nil)
	if r := send(t, f.h, "POST", uploadsPath(slug), `{}`, js...); r.code != 404 {
		t.Errorf("uploads route without a bucket: %d", r.code)
	}
	key := strconv.FormatInt(file, 10)
	if r := f.respond(t, slug, session, map[string]any{key: "some-id"}); r.code != 400 || r.body != `{"answers":{"`+key+`":["Invalid upload."]}}` {
		t.Errorf("upload answer without a bucket: %d %s", r.code, r.body)
	}
	f.wantStored(t, "refused", sid, 0)
}

// TestEditUploads: an edit may answer a file-upload question with a new
// upload of the page's session (sent with the edit); the file it replaces
// is deleted, and the one it keeps stays. The new file is kept by the
// dispatch from the edit's MODIFY record (only the file the edit added).
// Without the session, an upload answer is refused and nothing changes.
func TestEditUploads(t *testing.T) {
	t.Parallel()
	f, bucket := uploadsFixture(t)
	slug, sid := f.survey(t, map[string]any{"edit_response_enabled": true})
	file := f.fileQuestion(t, sid, 0, nil, true)
	session := f.session(t, slug, nil)
	upload := func(name string, content []byte) (string, string) {
		t.Helper()
		return uploaded(t, f, slug, session, file, name, content)
	}
	first, firstKey := upload("a.png", []byte("png one"))
	tagPending(t, bucket, firstKey)
	key := strconv.FormatInt(file, 10)
	r := f.respond(t, slug, session, map[string]any{key: first})
	var sub editAnswer
	if err := json.Unmarshal([]byte(r.body), &sub); err != nil || r.code != 201 {
		t.Fatalf("submit: %d %s", r.code, r.body)
	}
	seen := len(streamOfSurvey(t, sid))
	if kept := dispatchStream(t, f.st, bucket, streamOfSurvey(t, sid)); len(kept) != 1 || kept[0] != firstKey || pending(t, bucket, firstKey) {
		t.Fatalf("after the submission's record the dispatch kept %v (pending %v)", kept, pending(t, bucket, firstKey))
	}
	second, secondKey := upload("b.png", []byte("png number two"))
	tagPending(t, bucket, secondKey)
	put := func(body map[string]any) reply {
		return send(t, f.h, "PUT", editPath(slug, sub.ID), mustJSON(t, body), js...)
	}
	put(map[string]any{"edit_token": sub.EditToken, "answers": map[string]any{key: second}}).
		is(t, 400, `{"answers":{"`+key+`":["Invalid upload."]}}`)
	if keys := testenv.UploadKeys(t, bucket); len(keys) != 2 {
		t.Fatalf("after a refused edit the bucket holds %v", keys)
	}
	// The same file again: kept.
	if r := put(map[string]any{"edit_token": sub.EditToken, "session": session, "answers": map[string]any{key: first}}); r.code != 200 {
		t.Fatalf("edit with the same file: %d %s", r.code, r.body)
	}
	if r := put(map[string]any{"edit_token": sub.EditToken, "session": session, "answers": map[string]any{key: second}}); r.code != 200 {
		t.Fatalf("edit: %d %s", r.code, r.body)
	}
	keys := testenv.UploadKeys(t, bucket)
	if len(keys) != 1 || keys[0] != secondKey || keys[0] == firstKey {
		t.Errorf("after the edit the bucket holds %v; want only %s", keys, secondKey)
	}
	// The edits' MODIFY records: the first (the same file) keeps nothing
	// new; the second keeps the file it added.
	edits := streamOfSurvey(t, sid)[seen:]
	if len(edits) != 2 {
		t.Fatalf("%d stream records of the edits, want 2", len(edits))
	}
	if kept := dispatchStream(t, f.st, bucket, edits); len(kept) != 1 || kept[0] != secondKey {
		t.Errorf("the edits' records kept %v; want %s", kept, secondKey)
	}
	if pending(t, bucket, secondKey) {
		t.Errorf("the edit's new file is still pending after the stream's consumer ran")
	}
	// Handled again (a retried batch), and the submission's record too,
	// whose file is gone now: nothing fails, nothing changes.
	dispatchStream(t, f.st, bucket, streamOfSurvey(t, sid))
	if keys := testenv.UploadKeys(t, bucket); len(keys) != 1 || pending(t, bucket, secondKey) {
		t.Errorf("after a retried batch: %v, pending %v", keys, pending(t, bucket, secondKey))
	}
	resp, err := f.st.ResponseOfSurvey(context.Background(), sid, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := survey.DecodeFileAnswer(resp.Answers[file]); !ok || got.FileName != "b.png" {
		t.Errorf("stored answer %s", resp.Answers[file])
	}
}

// TestUploadBelongsToFirstResponse: an upload belongs to the first
// response that carries it (contract section 16, amended): an edit of
// another response that answers with it (sending the upload's session)
// answers 400 on that element and changes nothing, so that deleting that
// response cannot delete the first one's file; the first response's own
// edit keeps it. Before the claim, the edit took the file (200), and the
// two responses shared it.
func TestUploadBelongsToFirstResponse(t *testing.T) {
	t.Parallel()
	f, bucket := uploadsFixture(t)
	slug, sid := f.survey(t, map[string]any{"edit_response_enabled": true})
	file := f.fileQuestion(t, sid, 0, nil, false)
	key := strconv.FormatInt(file, 10)
	session := f.session(t, slug, nil)
	id, fileKey := uploaded(t, f, slug, session, file, "a.png", []byte("png one"))
	var first, other editAnswer
	if r := f.respond(t, slug, session, map[string]any{key: id}); r.code != 201 || json.Unmarshal([]byte(r.body), &first) != nil {
		t.Fatalf("the first response: %d %s", r.code, r.body)
	}
	if r := f.respond(t, slug, f.session(t, slug, nil), nil); r.code != 201 || json.Unmarshal([]byte(r.body), &other) != nil {
		t.Fatalf("another response: %d %s", r.code, r.body)
	}
	put := func(a editAnswer, body map[string]any) reply {
		body["edit_token"] = a.EditToken
		return send(t, f.h, "PUT", editPath(slug, a.ID), mustJSON(t, body), js...)
	}
	put(other, map[string]any{"session": session, "answers": map[string]any{key: id}}).
		is(t, 400, `{"answers":{"`+key+`":["This file belongs to another response."]}}`)
	resp, err := f.st.ResponseOfSurvey(context.Background(), sid, other.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := resp.Answers[file]; ok {
		t.Errorf("the other response answers %s", resp.Answers[file])
	}
	// The first response's own edit keeps its file.
	if r := put(first, map[string]any{"session": session, "answers": map[string]any{key: id}}); r.code != 200 {
		t.Errorf("the first response's edit keeping its file: %d %s", r.code, r.body)
	}
	if keys := testenv.UploadKeys(t, bucket); len(keys) != 1 || keys[0] != fileKey {
		t.Errorf("the bucket holds %v; want the first response's file", keys)
	}
}
