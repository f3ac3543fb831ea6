package pages_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"regexp"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/pages"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/backgrounds"
	"surveyservice/shared/backgrounds/picture"
	"surveyservice/shared/survey"
)

// TestThemeBackgroundImagePage: a theme whose background image the
// service made (its sizes in the uploads bucket, as PUT
// .../background-image/ leaves them) is drawn on the hosted page at 1920
// px, with the 640 and 1280 px sizes for phones (image-set in a media
// query), and every size is served from /media/themes/images/ (the
// MEDIA_URL side): WebP, cached for a year, the bucket's bytes. Names the
// service does not make, and an image removed, answer 404.
func TestThemeBackgroundImagePage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, 1)
	bucket := backgrounds.Bucket{Bucket: testenv.Uploads(t)}
	h := testenv.Conform(api.ServeAt(testenv.APIBase, pages.New(pages.Deps{Store: f.st, Sealer: testenv.Sealer(t), Now: time.Now, Media: bucket})))
	get := func(path string) result { return fixture{h: h}.get(path) }

	th := survey.DefaultTheme()
	th, err := f.st.CreateTheme(ctx, f.aid, th, false)
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 2000, 1000))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	img.Set(0, 0, color.RGBA{1, 2, 3, 255})
	pics, err := picture.Pictures(img)
	if err != nil {
		t.Fatal(err)
	}
	imageID := backgrounds.NewID()
	if err := bucket.Write(ctx, th.ID, imageID, pics); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.SetThemeImage(ctx, f.aid, th.ID, backgrounds.Image(th.ID, imageID)); err != nil {
		t.Fatal(err)
	}
	if err := f.st.SetSurveyTheme(ctx, f.aid, f.sv.ID, th.ID); err != nil {
		t.Fatal(err)
	}
	res := get("/s/" + f.sv.URLSlug + "/")
	style := regexp.MustCompile(`<style>([^<]*)</style>`).FindStringSubmatch(res.body)
	if res.code != 200 || style == nil {
		t.Fatalf("page: %d, style %v", res.code, style)
	}
	name := func(w int) string { return fmt.Sprintf("%d-%d-%d.webp", th.ID, imageID, w) }
	base := f.st.MediaURL + backgrounds.MediaPath
	for _, want := range []string{
		`background:url("` + base + name(1920) + `") center/cover no-repeat}`,
		`@media(max-width:640px){body::before{background-image:url("` + base + name(1280) + `");background-image:image-set(url("` +
			base + name(640) + `") 1x,url("` + base + name(1280) + `") 2x)}}`,
	} {
		if !strings.Contains(style[1], want) {
			t.Errorf("the style lacks %s:\n%s", want, style[1])
		}
	}
	for i, w := range backgrounds.Widths {
		res := get(backgrounds.MediaPath + name(w))
		if res.code != 200 || res.header.Get("Content-Type") != "image/webp" || res.header.Get("Cache-Control") != backgrounds.CacheControl ||
			!bytes.Equal([]byte(res.body), pics[i].Body) {
			t.Errorf("%s: %d %q %q, %d bytes", name(w), res.code, res.header.Get("Content-Type"), res.header.Get("Cache-Control"), len(res.body))
		}
	}
	// The theme's thumbnail_url shows the image (section 22: a picture of
	// the theme, colors and image): the 320 px file inside the SVG, as an
	// SVG in an <img> loads nothing from elsewhere; dimmed as the theme
	// asks. The public themes' stay the colors alone (TestThemeThumbnails).
	for _, brightness := range []int64{100, 60} {
		th, err := f.st.Theme(ctx, f.aid, th.ID)
		if err != nil {
			t.Fatal(err)
		}
		th.BackgroundImageBrightness = brightness
		if err := f.st.UpdateTheme(ctx, f.aid, th); err != nil {
			t.Fatal(err)
		}
		if th, err = f.st.Theme(ctx, f.aid, th.ID); err != nil {
			t.Fatal(err)
		}
		thumb := th.WithMedia(f.st.MediaURL).ThumbnailURL
		path, ok := strings.CutPrefix(thumb, f.st.MediaURL)
		if !ok || !strings.Contains(path, name(320)[:len(name(320))-len(".webp")]) {
			t.Fatalf("thumbnail_url %s names no image", thumb)
		}
		res := get(path)
		if res.code != 200 || res.header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(res.header.Get("Content-Security-Policy"), "img-src data:") {
			t.Fatalf("GET %s: %d %q %q", path, res.code, res.header.Get("Content-Type"), res.header.Get("Content-Security-Policy"))
		}
		if err := xml.Unmarshal([]byte(res.body), new(struct{})); err != nil {
			t.Errorf("thumbnail: not XML: %v", err)
		}
		if !strings.Contains(res.body, `<image width="320" height="200" preserveAspectRatio="xMidYMid slice"`) ||
			!strings.Contains(res.body, `href="data:image/webp;base64,`+base64.StdEncoding.EncodeToString(pics[0].Body)+`"`) {
			t.Errorf("brightness %d: the thumbnail does not show the image's 320 px file", brightness)
		}
		if dimmed := strings.Contains(res.body, `slope="0.6"`); dimmed != (brightness == 60) {
			t.Errorf("brightness %d: dimmed %v", brightness, dimmed)
		}
		if !strings.Contains(res.body, `fill="`+strings.ToLower(th.BackgroundColor)+`"`) || !strings.Contains(res.body, `fill="`+strings.ToLower(th.ButtonColor)+`"`) {
			t.Errorf("the thumbnail lacks the theme's colors")
		}
		gone := strings.Replace(path, fmt.Sprint(imageID), fmt.Sprint(imageID+2), 1)
		if res := get(gone); res.code != 404 {
			t.Errorf("%s (no such image): %d, want 404", gone, res.code)
		}
	}
	for _, bad := range []string{
		fmt.Sprintf("%d-%d-1000.webp", th.ID, imageID), // a width the service does not make
		fmt.Sprintf("%d-%d-640.png", th.ID, imageID),
		"..%2F..%2Fuploads%2Fx",
		fmt.Sprintf("%d-%d-640.webp", th.ID, imageID+2), // well formed, no such image
	} {
		if res := get(backgrounds.MediaPath + bad); res.code != 404 {
			t.Errorf("%s: %d, want 404", bad, res.code)
		}
	}
}
