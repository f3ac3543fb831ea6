package uploads_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"surveyservice/internal/testenv"
	"surveyservice/shared/links"
	"surveyservice/shared/uploads"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// plainOpener "seals" by the purpose and survey, enough for Check's logic.
type plainOpener struct{}

func (plainOpener) seal(sid int64, u uploads.Upload) string {
	return string(links.PurposeUpload) + string(rune('0'+sid)) + "|" + base64.RawURLEncoding.EncodeToString(u.Encode())
}

func (plainOpener) OpenFor(_ context.Context, p links.Purpose, sid int64, token string) ([]byte, error) {
	head, body, ok := strings.Cut(token, "|")
	if !ok || head != string(p)+string(rune('0'+sid)) {
		return nil, links.ErrInvalid
	}
	b, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return nil, links.ErrInvalid
	}
	return b, nil
}

// post sends a file the way a browser sends the form: the fields, then
// the file, to the presigned URL.
func post(t *testing.T, p uploads.Post, content []byte, contentType string) int {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range p.Fields {
		if k == "Content-Type" {
			v = contentType
		}
		mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile("file", "x")
	fw.Write(content)
	mw.Close()
	resp, err := http.Post(p.URL, mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// policy decodes a presigned POST's policy document.
func policy(t *testing.T, p uploads.Post) (conds []any, expires time.Time) {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(p.Fields["policy"])
	if err != nil {
		t.Fatalf("policy: %v", err)
	}
	var doc struct {
		Expiration string `json:"expiration"`
		Conditions []any  `json:"conditions"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("policy %s: %v", raw, err)
	}
	expires, _ = time.Parse(time.RFC3339, doc.Expiration)
	return doc.Conditions, expires
}

var rules = uploads.Rules{MaxSizeMB: 1, Allowed: []string{"pdf", "png"}}

// TestUploadAndCheck: the presigned POST's policy fixes the key, the exact
// size and the content type for 15 minutes; a file sent to it passes the
// submission's check with one HeadObject; everything else is refused.
func TestUploadAndCheck(t *testing.T) {
	ctx := context.Background()
	b := testenv.Uploads(t)
	const sid, el = 5, 42
	content := []byte("%PDF-1.4 a small file")
	u := uploads.NewUpload(el, "session-a", uploads.File{FileName: "cv.PDF", Size: int64(len(content)), ContentType: "application/pdf"})
	p, err := b.PresignPost(ctx, sid, u)
	if err != nil {
		t.Fatal(err)
	}
	conds, expires := policy(t, p)
	if d := time.Until(expires); d < 14*time.Minute || d > 16*time.Minute {
		t.Errorf("policy expires in %v, want 15 minutes", d)
	}
	got, _ := json.Marshal(conds)
	for _, want := range []string{
		`["content-length-range",21,21]`, `{"Content-Type":"application/pdf"}`, `{"key":"` + u.Key(sid) + `"}`, `{"bucket":"` + b.Name() + `"}`,
		`{"tagging":"\u003cTagging\u003e\u003cTagSet\u003e\u003cTag\u003e\u003cKey\u003eupload\u003c/Key\u003e\u003cValue\u003epending`,
	} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("policy conditions %s lack %s", got, want)
		}
	}
	if !strings.HasPrefix(u.Key(sid), "uploads/5/") || p.Fields["key"] != u.Key(sid) {
		t.Errorf("key %q, field %q", u.Key(sid), p.Fields["key"])
	}
	id := plainOpener{}.seal(sid, u)

	// Not uploaded yet.
	if _, msgs, err := b.Check(ctx, plainOpener{}, uploads.Answer{Survey: sid, Element: el, Session: "session-a", Upload: id}, rules); err != nil || len(msgs) != 1 || msgs[0] != uploads.MsgNotUploaded {
		t.Fatalf("before the upload: %v, %v", msgs, err)
	}
	if code := post(t, p, content, "application/pdf"); code/100 != 2 {
		t.Fatalf("POST to S3: %d", code)
	}
	f, msgs, err := b.Check(ctx, plainOpener{}, uploads.Answer{Survey: sid, Element: el, Session: "session-a", Upload: id}, rules)
	if err != nil || msgs != nil {
		t.Fatalf("Check = %v, %v", msgs, err)
	}
	if f.FileName != "cv.PDF" || f.Size != 21 || uploads.FileKey(sid, f) != u.Key(sid) {
		t.Errorf("file %+v", f)
	}

	cases := []struct {
		name        string
		sid, el     int64
		session, id string
		rules       uploads.Rules
		want        string
	}{
		{"another session", sid, el, "session-b", id, rules, uploads.MsgInvalidUpload},
		{"another element", sid, el + 1, "session-a", id, rules, uploads.MsgInvalidUpload},
		{"another survey", sid + 1, el, "session-a", id, rules, uploads.MsgInvalidUpload},
		{"forged", sid, el, "session-a", "garbage", rules, uploads.MsgInvalidUpload},
		{"type no longer allowed", sid, el, "session-a", id, uploads.Rules{MaxSizeMB: 1, Allowed: []string{"png"}}, "Files of this type are not accepted. Allowed: png."},
	}
	for _, tc := range cases {
		_, msgs, err := b.Check(ctx, plainOpener{}, uploads.Answer{Survey: tc.sid, Element: tc.el, Session: tc.session, Upload: tc.id}, tc.rules)
		if err != nil || len(msgs) != 1 || msgs[0] != tc.want {
			t.Errorf("%s: %v, %v; want %q", tc.name, msgs, err, tc.want)
		}
	}

	// The emulator does not hold a POST to its policy, as S3 does: a file
	// of another size sent anyway is refused by the submission's check.
	u2 := uploads.NewUpload(el, "session-a", uploads.File{FileName: "b.png", Size: 10, ContentType: "image/png"})
	p2, _ := b.PresignPost(ctx, sid, u2)
	post(t, p2, bytes.Repeat([]byte{1}, 11), "image/png")
	other := uploads.Answer{Survey: sid, Element: el, Session: "session-a", Upload: plainOpener{}.seal(sid, u2)}
	if _, msgs, _ := b.Check(ctx, plainOpener{}, other, rules); len(msgs) != 1 || msgs[0] != uploads.MsgMismatch {
		t.Errorf("another size: %v", msgs)
	}

	// Keep removes the pending tag that S3 puts on every upload (the
	// emulator ignores the POST's tagging field: put it here).
	tagged := func() int {
		out, err := b.Client().GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(b.Name()), Key: aws.String(uploads.FileKey(sid, f))})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.TagSet)
	}
	if _, err := b.Client().PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: aws.String(b.Name()), Key: aws.String(uploads.FileKey(sid, f)),
		Tagging: &types.Tagging{TagSet: []types.Tag{{Key: aws.String(uploads.PendingTagKey), Value: aws.String(uploads.PendingTagValue)}}}}); err != nil {
		t.Fatal(err)
	}
	if err := b.Keep(ctx, uploads.FileKey(sid, f)); err != nil || tagged() != 0 {
		t.Fatalf("Keep: %v, %d tags left", err, tagged())
	}
	// Idempotent: a stream record handled again keeps a kept file, and
	// one whose file is gone (its response deleted first) is no error.
	if err := b.Keep(ctx, uploads.FileKey(sid, f)); err != nil || tagged() != 0 {
		t.Fatalf("Keep again: %v, %d tags left", err, tagged())
	}
	if err := b.Keep(ctx, uploads.Prefix+"5/gone"); err != nil {
		t.Fatalf("Keep of a file no longer there: %v", err)
	}

	// The owner's link downloads the file; deleting removes it.
	link, err := b.URL(ctx, uploads.FileKey(sid, f), f.FileName)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(link, "X-Amz-Expires=600") {
		t.Errorf("GET link %s: want 10 minutes", link)
	}
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(data, content) {
		t.Errorf("GET %d %q", resp.StatusCode, data)
	}
	if err := b.Delete(ctx, []string{uploads.FileKey(sid, f), "uploads/5/gone"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Client().HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(b.Name()), Key: aws.String(uploads.FileKey(sid, f))}); err == nil {
		t.Errorf("the file is still there")
	}
}

func TestRules(t *testing.T) {
	t.Parallel()
	r := uploads.Rules{MaxSizeMB: 2, Allowed: []string{"pdf", "docx", "zip", "odx"}}
	cases := []struct {
		name  string
		f     uploads.File
		field string
	}{
		{"ok", uploads.File{FileName: "a.pdf", ContentType: "application/pdf", Size: 1}, ""},
		{"upper case extension", uploads.File{FileName: "A.PDF", ContentType: "Application/PDF", Size: 2 << 20}, ""},
		{"windows zip", uploads.File{FileName: "a.zip", ContentType: "application/x-zip-compressed", Size: 5}, ""},
		{"unknown extension allowed", uploads.File{FileName: "a.odx", ContentType: "application/octet-stream", Size: 5}, ""},
		{"not allowed", uploads.File{FileName: "a.exe", ContentType: "application/octet-stream", Size: 5}, "file_name"},
		{"no extension", uploads.File{FileName: "pdf", ContentType: "application/pdf", Size: 5}, "file_name"},
		{"path", uploads.File{FileName: "../a.pdf", ContentType: "application/pdf", Size: 5}, "file_name"},
		{"blank", uploads.File{FileName: "", ContentType: "application/pdf", Size: 5}, "file_name"},
		{"long name", uploads.File{FileName: strings.Repeat("a", 252) + ".pdf", ContentType: "application/pdf", Size: 5}, "file_name"},
		{"type mismatch", uploads.File{FileName: "a.pdf", ContentType: "image/png", Size: 5}, "content_type"},
		{"too big", uploads.File{FileName: "a.pdf", ContentType: "application/pdf", Size: 2<<20 + 1}, "size"},
		{"empty file", uploads.File{FileName: "a.pdf", ContentType: "application/pdf", Size: 0}, "size"},
	}
	for _, tc := range cases {
		got := r.Check(tc.f)
		if tc.field == "" && got != nil || tc.field != "" && got[tc.field] == nil {
			t.Errorf("%s: %v, want an error on %q", tc.name, got, tc.field)
		}
	}
}

func FuzzDecodeUpload(f *testing.F) {
	u := uploads.NewUpload(3, "s", uploads.File{FileName: "a.pdf", Size: 9, ContentType: "application/pdf"})
	f.Add(u.Encode())
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		u, err := uploads.DecodeUpload(b)
		if err == nil && !bytes.Equal(u.Encode(), b) {
			// Non-minimal varints decode too; the sealed ids are ours, so
			// only what we encode is ever opened: round trip what decodes.
			if v, err := uploads.DecodeUpload(u.Encode()); err != nil || v != u {
				t.Errorf("re-decode of %x: %+v, %v", b, v, err)
			}
		}
	})
}
