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
