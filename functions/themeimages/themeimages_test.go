package themeimages_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/gen2brain/webp"

	"surveyservice/functions/surveys"
	"surveyservice/functions/themeimages"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/backgrounds"
	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const (
	mediaURL = "https://media.example.test"
	notFound = `{"detail":"Not found."}`
)

// reply is one answer of a handler.
type reply struct {
	code int
	body []byte
}

// bgFixture is an owner, the group's handler (reaching the emulator's
// uploads bucket) and the surveys group's, which makes themes.
type bgFixture struct {
	h, surveys http.Handler
	key        string
	bucket     backgrounds.Bucket
}

func newBgFixture(t *testing.T) bgFixture {
	t.Helper()
	o := testenv.NewOwner(t, survey.PlanPro, "")
	b := backgrounds.Bucket{Bucket: testenv.Uploads(t)}
	auth := api.NewAuthenticator(o.Store)
	f := bgFixture{
		h:       testenv.Conform(themeimages.New(themeimages.Deps{Auth: auth, Store: o.Store, MediaURL: mediaURL, Backgrounds: b})),
		surveys: testenv.Conform(surveys.New(surveys.Deps{Auth: auth, Store: o.Store, Now: time.Now, MediaURL: mediaURL, Files: b})),
		key:     o.Key, bucket: b,
	}
	return f
}

// do sends a request with the fixture's key to the group (the theme
// routes to the surveys group); a body goes as JSON.
func (f bgFixture) do(t *testing.T, method, path, body string) reply {
	t.Helper()
	ct := ""
	if body != "" {
		ct = "application/json"
	}
	h := f.h
	if !strings.Contains(path, "/background-image/") {
		h = f.surveys
	}
	r := testenv.Serve(h, testenv.NewRequest(method, path, f.key, ct, testenv.Body(body)))
	return reply{code: r.Code, body: r.Body}
}

func imagePath(tid int64) string { return fmt.Sprintf("/api/themes/%d/background-image/", tid) }

// theme creates a theme of the account and answers its id.
func (f bgFixture) theme(t *testing.T) int64 {
	t.Helper()
	r := f.do(t, "POST", "/api/themes/", `{"background_color": "#F0F0F0"}`)
	var th struct{ ID int64 }
	if r.code != http.StatusCreated || json.Unmarshal(r.body, &th) != nil {
		t.Fatalf("create theme: %d %s", r.code, r.body)
	}
	return th.ID
}

// start asks for an upload; it must answer 201.
func (f bgFixture) start(t *testing.T, tid int64, name, ct string, size int) (string, uploads.Post) {
	t.Helper()
	r := f.do(t, "POST", imagePath(tid), fmt.Sprintf(`{"file_name": %q, "content_type": %q, "size": %d}`, name, ct, size))
	var v struct {
		Upload string `json:"upload"`
		uploads.Post
	}
	if r.code != http.StatusCreated || json.Unmarshal(r.body, &v) != nil || v.Upload == "" || v.URL == "" {
		t.Fatalf("start: %d %s", r.code, r.body)
	}
	return v.Upload, v.Post
}

// upload starts an upload and sends content through the presigned POST.
func (f bgFixture) upload(t *testing.T, tid int64, name, ct string, content []byte) string {
	t.Helper()
	id, post := f.start(t, tid, name, ct, len(content))
	if code := testenv.PostFile(t, post, content); code/100 != 2 {
		t.Fatalf("POST to S3: %d", code)
	}
	return id
}

// themeRead is GET of the theme.
func (f bgFixture) themeRead(t *testing.T, tid int64) survey.Theme {
	t.Helper()
	r := f.do(t, "GET", fmt.Sprintf("/api/themes/%d/", tid), "")
	var th survey.Theme
	if r.code != http.StatusOK || json.Unmarshal(r.body, &th) != nil {
		t.Fatalf("get theme: %d %s", r.code, r.body)
	}
	return th
}

// keys lists the bucket's objects under prefix.
func (f bgFixture) keys(t *testing.T, prefix string) []string {
	t.Helper()
	out, err := f.bucket.Client().ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(f.bucket.Name()), Prefix: aws.String(prefix)})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range out.Contents {
		keys = append(keys, aws.ToString(o.Key))
	}
	return keys
}

func (f bgFixture) mediaOf(t *testing.T, tid int64) []string {
	return f.keys(t, fmt.Sprintf("%s%d-", backgrounds.MediaPrefix, tid))
}

func (f bgFixture) uploadsOf(t *testing.T, tid int64) []string {
	return f.keys(t, fmt.Sprintf("%sthemes/%d/", uploads.Prefix, tid))
}

func photo(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.NRGBA{uint8(x * 255 / w), uint8(y * 255 / h), 120, uint8(128 + (x+y)%128)})
		}
	}
	return img
}

func pngBytes(t *testing.T, img image.Image) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// jpegWithEXIF is a JPEG carrying an Exif segment with a GPS position.
func jpegWithEXIF(t *testing.T, img image.Image) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	j := b.Bytes()
	payload := []byte("Exif\x00\x00MM\x00\x2a\x00\x00\x00\x08GPS 35.6892N 51.3890E")
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	return slices.Concat(j[:2], seg, payload, j[2:])
}

// hugePNG is a PNG of a few bytes whose header claims w×h pixels.
func hugePNG(w, h uint32) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 2
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	for _, c := range []struct {
		typ  string
		data []byte
	}{{"IHDR", ihdr}, {"IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01}}, {"IEND", nil}} {
		binary.Write(&b, binary.BigEndian, uint32(len(c.data)))
		b.WriteString(c.typ)
		b.Write(c.data)
		binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(c.typ), c.data...)))
	}
	return b.Bytes()
}

// TestThemeBackgroundImage uploads real pictures through the presigned
// POST to the emulator's S3 and sets them (contract section 22): the theme
// reads absolute MEDIA_URL addresses of WebP sizes 320 (thumbnail) and
// 1920 (url) wide, the four sizes exist with the right dimensions and
// without the original's metadata, the upload is gone; a second image
// replaces the first (whose files go), and DELETE removes it.
func TestThemeBackgroundImage(t *testing.T) {
	f := newBgFixture(t)
	for _, c := range []struct {
		name, file, ct string
		body           []byte
		sizes          [][2]int // 320, 640, 1280, 1920
	}{
		{"png with alpha", "sea.PNG", "image/png", pngBytes(t, photo(2400, 1600)), [][2]int{{320, 213}, {640, 426}, {1280, 853}, {1920, 1280}}},
		{"jpeg with exif", "me.jpeg", "image/jpeg", jpegWithEXIF(t, photo(1000, 800)), [][2]int{{320, 256}, {640, 512}, {1000, 800}, {1000, 800}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tid := f.theme(t)
			id := f.upload(t, tid, c.file, c.ct, c.body)
			r := f.do(t, "PUT", imagePath(tid), fmt.Sprintf(`{"upload_id": %q}`, id))
			var th survey.Theme
			if r.code != http.StatusOK || json.Unmarshal(r.body, &th) != nil || th.BackgroundImage == nil {
				t.Fatalf("PUT: %d %s", r.code, r.body)
			}
			bi := th.BackgroundImage
			base := fmt.Sprintf("%s/media/themes/images/%d-%s-", mediaURL, tid, id)
			if fmt.Sprint(bi.ID) != id || th.BackgroundImageID == nil || *th.BackgroundImageID != bi.ID ||
				bi.URL != base+"1920.webp" || bi.ThumbnailURL != base+"320.webp" {
				t.Fatalf("background_image %+v, id %v; want %s{1920,320}.webp", bi, th.BackgroundImageID, base)
			}
			if got := f.themeRead(t, tid); got.BackgroundImage == nil || *got.BackgroundImage != *bi || th.BackgroundColor != "#F0F0F0" {
				t.Fatalf("GET after PUT: %+v", got.BackgroundImage)
			}
			for i, w := range backgrounds.Widths {
				key := fmt.Sprintf("%s%d-%s-%d.webp", backgrounds.MediaPrefix, tid, id, w)
				body, ct, err := f.bucket.Read(t.Context(), key, 10<<20)
				if err != nil {
					t.Fatalf("%s: %v", key, err)
				}
				cfg, err := webp.DecodeConfig(bytes.NewReader(body))
				if ct != "image/webp" || err != nil || cfg.Width != c.sizes[i][0] || cfg.Height != c.sizes[i][1] {
					t.Errorf("%s: %s %dx%d (%v), want image/webp %v", key, ct, cfg.Width, cfg.Height, err, c.sizes[i])
				}
				if bytes.Contains(body, []byte("Exif")) || bytes.Contains(body, []byte("GPS")) || bytes.Contains(body, []byte("EXIF")) {
					t.Errorf("%s keeps the original's metadata", key)
				}
			}
			if left := f.uploadsOf(t, tid); len(left) != 0 {
				t.Errorf("the upload is still there: %v", left)
			}
			// The same upload again: already used.
			if r := f.do(t, "PUT", imagePath(tid), fmt.Sprintf(`{"upload_id": %q}`, id)); r.code != 400 || string(r.body) != `{"upload_id":["Invalid upload."]}` {
				t.Errorf("PUT again: %d %s", r.code, r.body)
			}
			// Replace: the old files go, the new ones stay.
			id2 := f.upload(t, tid, "b.png", "image/png", pngBytes(t, photo(300, 200)))
			if r := f.do(t, "PUT", imagePath(tid), fmt.Sprintf(`{"upload_id": %q}`, id2)); r.code != http.StatusOK {
				t.Fatalf("replace: %d %s", r.code, r.body)
			}
			media := f.mediaOf(t, tid)
			if len(media) != len(backgrounds.Widths) || !strings.Contains(media[0], "-"+id2+"-") {
				t.Errorf("after the replace the theme's files are %v, want the new image's four", media)
			}
			if r := f.do(t, "DELETE", imagePath(tid), ""); r.code != http.StatusNoContent {
				t.Fatalf("DELETE: %d %s", r.code, r.body)
			}
			if got := f.themeRead(t, tid); got.BackgroundImage != nil || got.BackgroundImageID != nil {
				t.Errorf("after DELETE: %+v %v", got.BackgroundImage, got.BackgroundImageID)
			}
			if media := f.mediaOf(t, tid); len(media) != 0 {
				t.Errorf("after DELETE the files are still there: %v", media)
			}
		})
	}
}

// TestThemeBackgroundImageRefusals: every bad start or upload is a clear
// 400/403/404 that changes nothing: the theme keeps no image, no size is
// written, and a file refused by its bytes is deleted.
func TestThemeBackgroundImageRefusals(t *testing.T) {
	f := newBgFixture(t)
	other := newBgFixture(t)
	small := pngBytes(t, photo(40, 30))
	big := append(pngBytes(t, photo(40, 30)), make([]byte, backgrounds.MaxBytes)...)
	for _, c := range []struct {
		name string
		// send is the request made on the theme (tid, and another of
		// the account's, tid2); it answers the reply.
		send       func(t *testing.T, tid, tid2 int64) reply
		code       int
		body       string
		uploadGone bool
	}{
		{"a text file named .png", func(t *testing.T, tid, _ int64) reply {
			id := f.upload(t, tid, "a.png", "image/png", []byte("this is not a picture, only text\n"))
			return f.do(t, "PUT", imagePath(tid), fmt.Sprintf(`{"upload_id": %q}`, id))
		}, 400, `{"upload_id":["Upload a PNG, JPEG or WebP image."]}`, true},
		{"a PNG claiming image/jpeg", func(t *testing.T, tid, _ int64) reply {
			id := f.upload(t, tid, "a.jpg", "image/jpeg", small)
			return f.do(t, "PUT", imagePath(tid), fmt.Sprintf(`{"upload_id": %q}`, id))
		}, 400, `{"upload_id":["The file is image/png, not image/jpeg."]}`, true},
		{"too many pixels (a small file, a huge header)", func(t *testing.T, tid, _ int64) reply {
			id := f.upload(t, tid, "bomb.png", "image/png", hugePNG(6001, 6001))
			return f.do(t, "PUT", imagePath(tid), fmt.Sprintf(`{"upload_id": %q}`, id))
		}, 400, `{"upload_id":["The image is larger than 6000 × 6000 pixels."]}`, true},
		{"too big to start", func(t *testing.T, tid, _ int64) reply {
			return f.do(t, "POST", imagePath(tid), fmt.Sprintf(`{"file_name": "a.png", "content_type": "image/png", "size": %d}`, backgrounds.MaxBytes+1))
		}, 400, `{"size":["The file must be from 1 byte to 5 MB."]}`, false},
		{"too big in the bucket (past the policy)", func(t *testing.T, tid, _ int64) reply {
			id, _ := f.start(t, tid, "a.png", "image/png", 1000)
			n, _ := backgrounds.ParseUploadID(id)
			_, err := f.bucket.Client().PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String(f.bucket.Name()),
				Key: aws.String(backgrounds.UploadKey(tid, n)), Body: bytes.NewReader(big), ContentType: aws.String("image/png")})
			if err != nil {
				t.Fatal(err)
			}
			return f.do(t, "PUT", imagePath(tid), fmt.Sprintf(`{"upload_id": %q}`, id))
		}, 400, `{"upload_id":["The image is larger than 5 MB."]}`, true},
		{"a GIF", func(t *testing.T, tid, _ int64) reply {
			return f.do(t, "POST", imagePath(tid), `{"file_name": "a.gif", "content_type": "image/gif", "size": 100}`)
		}, 400, `{"file_name":["Files of this type are not accepted. Allowed: png, jpg, jpeg, webp."]}`, false},
		{"a content type not of the name", func(t *testing.T, tid, _ int64) reply {
			return f.do(t, "POST", imagePath(tid), `{"file_name": "a.png", "content_type": "image/webp", "size": 100}`)
		}, 400, `{"content_type":["The content type does not match a .png file."]}`, false},
		{"confirm without an upload", func(t *testing.T, tid, _ int64) reply {
			id, _ := f.start(t, tid, "a.png", "image/png", len(small))
			return f.do(t, "PUT", imagePath(tid), fmt.Sprintf(`{"upload_id": %q}`, id))
		}, 400, `{"upload_id":["Invalid upload."]}`, false},
		{"an upload of another theme", func(t *testing.T, tid, tid2 int64) reply {
			id := f.upload(t, tid2, "a.png", "image/png", small)
			return f.do(t, "PUT", imagePath(tid), fmt.Sprintf(`{"upload_id": %q}`, id))
		}, 400, `{"upload_id":["Invalid upload."]}`, false},
		{"an upload id that is none", func(t *testing.T, tid, _ int64) reply {
			return f.do(t, "PUT", imagePath(tid), `{"upload_id": "../../media/x"}`)
		}, 400, `{"upload_id":["Invalid upload."]}`, false},
		{"no upload id", func(t *testing.T, tid, _ int64) reply {
			return f.do(t, "PUT", imagePath(tid), `{}`)
		}, 400, `{"upload_id":["This field is required."]}`, false},
		{"another account's theme: start", func(t *testing.T, _, _ int64) reply {
			return f.do(t, "POST", imagePath(other.theme(t)), `{"file_name": "a.png", "content_type": "image/png", "size": 100}`)
		}, 404, notFound, false},
		{"another account's theme: set", func(t *testing.T, _, _ int64) reply {
			tid := other.theme(t)
			id := other.upload(t, tid, "a.png", "image/png", small)
			return f.do(t, "PUT", imagePath(tid), fmt.Sprintf(`{"upload_id": %q}`, id))
		}, 404, notFound, false},
		{"another account's theme: delete", func(t *testing.T, _, _ int64) reply {
			return f.do(t, "DELETE", imagePath(other.theme(t)), "")
		}, 404, notFound, false},
		{"a public theme", func(t *testing.T, _, _ int64) reply {
			return f.do(t, "POST", imagePath(1), `{"file_name": "a.png", "content_type": "image/png", "size": 100}`)
		}, 403, `{"detail":"You do not have permission to perform this action."}`, false},
		{"a public theme: delete", func(t *testing.T, _, _ int64) reply {
			return f.do(t, "DELETE", imagePath(2), "")
		}, 403, `{"detail":"You do not have permission to perform this action."}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tid, tid2 := f.theme(t), f.theme(t)
			r := c.send(t, tid, tid2)
			if r.code != c.code || string(r.body) != c.body {
				t.Fatalf("%d %s, want %d %s", r.code, r.body, c.code, c.body)
			}
			if th := f.themeRead(t, tid); th.BackgroundImage != nil || th.BackgroundImageID != nil {
				t.Errorf("the theme took an image: %+v", th.BackgroundImage)
			}
			if media := f.mediaOf(t, tid); len(media) != 0 {
				t.Errorf("files written: %v", media)
			}
			if left := f.uploadsOf(t, tid); c.uploadGone && len(left) != 0 {
				t.Errorf("the refused upload is still there: %v", left)
			}
		})
	}
}

// TestThemeBackgroundImageStart: the start's presigned POST holds the
// upload to its declared size and type for 10 minutes, under the theme.
func TestThemeBackgroundImageStart(t *testing.T) {
	f := newBgFixture(t)
	tid := f.theme(t)
	id, post := f.start(t, tid, "Photo.JPG", "image/jpeg", 1234)
	n, ok := backgrounds.ParseUploadID(id)
	if !ok || post.Fields["key"] != backgrounds.UploadKey(tid, n) || post.Fields["Content-Type"] != "image/jpeg" || post.Fields["tagging"] == "" {
		t.Fatalf("upload %q, fields %v", id, post.Fields)
	}
	var policy struct {
		Expiration time.Time `json:"expiration"`
		Conditions []any     `json:"conditions"`
	}
	raw, _ := base64.StdEncoding.DecodeString(post.Fields["policy"])
	if err := json.Unmarshal(raw, &policy); err != nil {
		t.Fatalf("policy %q: %v", raw, err)
	}
	if d := time.Until(policy.Expiration); d > 10*time.Minute || d < 9*time.Minute {
		t.Errorf("the POST lasts %v, want 10 minutes", d)
	}
	if !strings.Contains(string(raw), `["content-length-range",1234,1234]`) {
		t.Errorf("policy %s: want content-length-range exactly 1234", raw)
	}
}

// TestThemeBackgroundImageRacingPuts: PUTs of one upload at once set the
// image once: one 200, the others 400 as a used upload (contract section
// 22), where every one answered 200 (hostile10: 4 at once, 4 × 200), and
// one racing a PUT of another upload could set the image after that one
// had deleted its files. Afterwards the theme's image is the upload's and
// its four files are there; a PUT of another upload then replaces it.
func TestThemeBackgroundImageRacingPuts(t *testing.T) {
	t.Parallel()
	f := newBgFixture(t)
	tid := f.theme(t)
	id := f.upload(t, tid, "sea.png", "image/png", pngBytes(t, photo(900, 600)))
	codes := make([]int, 6)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Go(func() {
			r := f.do(t, "PUT", imagePath(tid), fmt.Sprintf(`{"upload_id": %q}`, id))
			codes[i] = r.code
			if r.code != http.StatusOK && (r.code != 400 || string(r.body) != `{"upload_id":["Invalid upload."]}`) {
				t.Errorf("PUT: %d %s", r.code, r.body)
			}
		})
	}
	wg.Wait()
	if n := slices.Index(codes, http.StatusOK); n < 0 || slices.Index(codes[n+1:], http.StatusOK) >= 0 {
		t.Errorf("6 PUTs of one upload at once answered %v; want one 200 and 400s", codes)
	}
	if th := f.themeRead(t, tid); th.BackgroundImage == nil || fmt.Sprint(th.BackgroundImage.ID) != id {
		t.Fatalf("the theme's image %+v, want upload %s", th.BackgroundImage, id)
	}
	if media := f.mediaOf(t, tid); len(media) != len(backgrounds.Widths) {
		t.Errorf("the theme's files %v, want the image's %d", media, len(backgrounds.Widths))
	}
	id2 := f.upload(t, tid, "b.png", "image/png", pngBytes(t, photo(300, 200)))
	if r := f.do(t, "PUT", imagePath(tid), fmt.Sprintf(`{"upload_id": %q}`, id2)); r.code != http.StatusOK {
		t.Fatalf("replace: %d %s", r.code, r.body)
	}
}
