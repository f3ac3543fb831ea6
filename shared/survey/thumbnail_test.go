package survey_test

import (
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

// TestThumbnailPath: a theme's thumbnail address says its colors, and for
// a background image the service made its 320 px file and brightness;
// ParseThumbnail reads back what ThumbnailPath wrote. An image that is not
// the service's (another address) leaves the colors alone.
func TestThumbnailPath(t *testing.T) {
	th := survey.DefaultTheme()
	th.BackgroundColor = "#ABC"
	for _, tc := range []struct {
		image      *survey.BackgroundImage
		brightness int64
		wantImage  string
	}{
		{nil, 100, ""},
		{&survey.BackgroundImage{ID: 9, URL: "/media/themes/images/12-9-1920.webp", ThumbnailURL: "/media/themes/images/12-9-320.webp"}, 100, "12-9-320.webp"},
		{&survey.BackgroundImage{ID: 9, URL: "/media/themes/images/12-9-1920.webp", ThumbnailURL: "https://m.example/media/themes/images/12-9-320.webp"}, 0, "12-9-320.webp"},
		{&survey.BackgroundImage{ID: 9, URL: "/assets/sea.svg", ThumbnailURL: "/assets/sea.svg"}, 50, ""},
	} {
		th.BackgroundImage, th.BackgroundImageBrightness = tc.image, tc.brightness
		p := th.ThumbnailPath()
		name, ok := strings.CutPrefix(p, "/media/themes/thumbnails/")
		if !ok {
			t.Fatalf("%s", p)
		}
		got, ok := survey.ParseThumbnail(name)
		if !ok || got.Colors[0] != "#abc" || got.Image != tc.wantImage || (tc.wantImage != "" && got.Brightness != tc.brightness) {
			t.Errorf("%s: %+v %v", p, got, ok)
		}
	}
	for _, bad := range []string{"ffffff.svg", "ffffff-212121-424242-1e88e5-zzzzzz.svg", "fff-fff-fff-fff-fff-1-2-320-100.png",
		"fff-fff-fff-fff-fff-1-2-640-100.svg", "fff-fff-fff-fff-fff-1-2-320-201.svg", "fff-fff-fff-fff-fff-1-2-320-050.svg", "fff-fff-fff-fff-fff-0-2-320-100.svg"} {
		if _, ok := survey.ParseThumbnail(bad); ok {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// FuzzParseThumbnail: any file name either is refused or reads back to
// the same address.
func FuzzParseThumbnail(f *testing.F) {
	f.Add("ffffff-212121-424242-1e88e5-1e88e5.svg")
	f.Add("fff-fff-fff-fff-fff-12-9-320-60.svg")
	f.Fuzz(func(t *testing.T, name string) {
		got, ok := survey.ParseThumbnail(name)
		if !ok {
			return
		}
		th := survey.Theme{BackgroundColor: got.Colors[0], QuestionColor: got.Colors[1], AnswerColor: got.Colors[2], ButtonColor: got.Colors[3],
			AccentColor: got.Colors[4], BackgroundImageBrightness: got.Brightness}
		if got.Image != "" {
			th.BackgroundImage = &survey.BackgroundImage{ThumbnailURL: "/media/themes/images/" + got.Image}
		}
		if p := th.ThumbnailPath(); p != "/media/themes/thumbnails/"+strings.ToLower(name) {
			t.Fatalf("%q reads back as %q", name, p)
		}
	})
}
