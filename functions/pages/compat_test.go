package pages_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

// TestRatingIcons: a rating's icon_type draws its steps (contract section
// 21): stars by default, hearts, thumbs, or the numbers alone; before,
// every rating showed stars whatever the owner set.
func TestRatingIcons(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	ctx := context.Background()
	ids := map[int64]int64{survey.IconStar: f.rating.ID}
	for _, icon := range []int64{survey.IconHeart, survey.IconThumb, survey.IconNumber} {
		e := survey.NewElement(survey.TypeRating)
		e.Title, e.RatingMax, e.IconType = fmt.Sprintf("Icon %d", icon), 4, icon
		ch, err := f.st.CreateElement(ctx, f.aid, f.sv.ID, e, survey.Placement{})
		if err != nil {
			t.Fatal(err)
		}
		ids[icon] = ch.Element.ID
	}
	page := f.get("/s/" + f.sv.URLSlug + "/")
	if page.code != 200 {
		t.Fatalf("page: %d", page.code)
	}
	for icon, want := range map[int64]string{survey.IconStar: "★", survey.IconHeart: "♥", survey.IconThumb: "👍", survey.IconNumber: ""} {
		re := regexp.MustCompile(fmt.Sprintf(`name="a%d" value="1"[^>]*>1([^<]*)</label>`, ids[icon]))
		m := re.FindStringSubmatch(page.body)
		if m == nil {
			t.Fatalf("icon %d: no first step of element %d in the page", icon, ids[icon])
		}
		if m[1] != want {
			t.Errorf("icon %d: the first step reads %q, want %q", icon, "1"+m[1], "1"+want)
		}
	}
	if strings.Count(page.body, "♥") != 4 {
		t.Errorf("%d hearts, want 4 (the steps of the heart rating)", strings.Count(page.body, "♥"))
	}
}

// TestPreviewCodeOpensThePage: Porsline's WordPress plugins embed the
// survey as <iframe src=".../s/<preview_code>"> (view/shortcode.php:119
// of common-repository/porsline, survay_code being the survey's
// preview_code, panel/survey-list.php:573) and link to it
// (panel/survey-list.php:817). The same page answers there, with or
// without the final slash, its form, canonical and oEmbed addresses at
// the url_slug, under the same frame policy (contract section 21).
// Before, 404.
func TestPreviewCodeOpensThePage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	bySlug := f.get("/s/" + f.sv.URLSlug + "/")
	for _, path := range []string{"/s/" + f.sv.PreviewCode, "/s/" + f.sv.PreviewCode + "/"} {
		page := f.get(path)
		if page.code != 200 {
			t.Fatalf("GET %s: %d %.200s", path, page.code, page.body)
		}
		for _, want := range []string{
			`action="/s/` + f.sv.URLSlug + `/"`,
			`<link rel="canonical" href="http://example.com/s/` + f.sv.URLSlug + `/">`,
			`url=http%3A%2F%2Fexample.com%2Fs%2F` + f.sv.URLSlug + `%2F`,
		} {
			if !strings.Contains(page.body, want) {
				t.Errorf("GET %s: the page lacks %s", path, want)
			}
		}
		if strings.Contains(page.body, f.sv.PreviewCode) {
			t.Errorf("GET %s: the page names the preview code; its addresses are the slug's", path)
		}
		if got, want := page.header.Get("Content-Security-Policy"), bySlug.header.Get("Content-Security-Policy"); got != want {
			t.Errorf("GET %s: policy %q, want the slug page's %q", path, got, want)
		}
	}
	if !strings.Contains(bySlug.body, `<link rel="canonical" href="http://example.com/s/`+f.sv.URLSlug+`/">`) {
		t.Errorf("the slug's page has no canonical link")
	}
	for _, p := range []string{"/s/" + strings.Repeat("Z", survey.PreviewCodeLength) + "/", "/s/" + f.sv.ReportCode + "/"} {
		if r := f.get(p); r.code != 404 {
			t.Errorf("GET %s: %d, want 404", p, r.code)
		}
	}
}
