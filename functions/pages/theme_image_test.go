package pages_test

import (
	"bytes"
	"context"
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
