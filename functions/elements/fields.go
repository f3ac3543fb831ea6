package elements

import (
	"fmt"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// readFields applies the body's element fields to e, recording DRF errors
// in f. Create and PATCH take the same fields; on create the title is
// required (and the type, which the caller reads).
func readFields(f *api.Form, e *survey.Element, create bool) {
	str := func(name string, max int, dst *string) {
		if v, ok := f.String(name, api.Str{Max: max, AllowBlank: true}); ok {
			*dst = v
		}
	}
	nullableURL := func(name string, max int, dst **string) {
		if f.IsNull(name) {
			*dst = nil
			return
		}
		v, ok := f.String(name, api.Str{Max: max, AllowBlank: true})
		switch {
		case !ok:
		case v == "":
			*dst = nil
		case !survey.ValidHTTPURL(v):
			f.Fail(name, "Enter a valid URL.")
		default:
			*dst = &v
		}
	}
	boolean := func(name string, dst *bool) {
		if v, ok := f.Bool(name, false); ok {
			*dst = v
		}
	}
	count := func(name string, dst *int64) {
		if v, ok := f.Int(name, api.Int{Min: api.Bound(0)}); ok {
			*dst = v
		}
	}
	if v, ok := f.String("title", api.Str{Required: create, Max: survey.MaxElementTitle}); ok {
		e.Title = v
	}
	str("html_title", survey.MaxElementHTMLTitle, &e.HTMLTitle)
	boolean("image_video_active", &e.ImageVideoActive)
	if v, ok := f.Int("image_or_video", api.Int{}); ok {
		if v != 1 && v != 2 {
			f.Fail("image_or_video", fmt.Sprintf("%q is not a valid choice.", fmt.Sprint(v)))
		} else {
			e.ImageOrVideo = v
		}
	}
	nullableURL("image_path", survey.MaxElementImagePath, &e.ImagePath)
	str("image_name", survey.MaxElementImageName, &e.ImageName)
	nullableURL("video_url", survey.MaxElementVideoURL, &e.VideoURL)
	boolean("show_charts", &e.ShowCharts)
	boolean("description_text_active", &e.DescriptionTextActive)
	str("description_text", survey.MaxElementDescription, &e.DescriptionText)
	str("html_description_text", survey.MaxElementHTMLDescription, &e.HTMLDescriptionText)
	boolean("question_number_is_hidden", &e.QuestionNumberIsHidden)
	if f.IsNull("responding_duration") {
		e.RespondingDuration = nil
	} else if v, ok := f.String("responding_duration", api.Str{AllowBlank: true}); ok {
		switch {
		case v == "":
			e.RespondingDuration = nil
		case !survey.ValidDuration(v):
			f.Fail("responding_duration", "Duration has wrong format. Use one of these formats instead: HH:MM:SS (hours 00-99, minutes and seconds 00-59).")
		default:
			e.RespondingDuration = &v
		}
	}
	boolean("title_active", &e.TitleActive)
	boolean("description_active", &e.DescriptionActive)
	str("description", survey.MaxElementDescription, &e.Description)
	str("enter_text", survey.MaxElementEnterText, &e.EnterText)
	// The response-only fields: create takes them as PATCH does (contract
	// 6 as amended), so that a required question made in one call is
	// required.
	boolean("vertical_choices", &e.VerticalChoices)
	boolean("answer_required", &e.AnswerRequired)
	boolean("randomize", &e.Randomize)
	// Appreciation page fields: kept for any type, shown for type 9.
	boolean("share_link_active", &e.ShareLinkActive)
	boolean("is_default", &e.IsDefault)
	boolean("link_active", &e.LinkActive)
	str("link_button_text", survey.MaxLinkButtonText, &e.LinkButtonText)
	if v, ok := f.Int("link_type", api.Int{}); ok {
		if v != survey.LinkTypeURL && v != survey.LinkTypeSurvey {
			f.Fail("link_type", fmt.Sprintf("%q is not a valid choice.", fmt.Sprint(v)))
		} else {
			e.LinkType = v
		}
	}
	nullableURL("link_url", survey.MaxLinkURL, &e.LinkURL)
	if f.IsNull("link") {
		e.Link = nil
	} else if v, ok := f.Int("link", api.Int{Min: api.Bound(0)}); ok {
		e.Link = &v
	}
	boolean("reload_active", &e.ReloadActive)
	count("reload_time", &e.ReloadTime)
}

// readType reads the element type, 1 to 13.
func readType(f *api.Form, required bool) (survey.ElementType, bool) {
	v, ok := f.Int("type", api.Int{Required: required, Min: api.Bound(1), Max: api.Bound(13)})
	return survey.ElementType(v), ok
}

// readPlacement reads prior_question and related_group. A null
// prior_question is as if absent; a null related_group takes the element
// out of its group.
func readPlacement(f *api.Form) survey.Placement {
	var p survey.Placement
	if !f.IsNull("prior_question") {
		if v, ok := f.PK("prior_question", false); ok {
			p.Prior = &v
		}
	}
	if f.IsNull("related_group") {
		p.Ungroup = true
	} else if v, ok := f.PK("related_group", false); ok {
		p.Group = &v
	}
	return p
}
