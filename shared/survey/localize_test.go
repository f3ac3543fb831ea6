package survey_test

import (
	"maps"
	"testing"

	"surveyservice/shared/survey"
)

// TestLocalizeOverEmptyDefaults: contract section 24. A text put is shown
// in its language whatever the default's, an empty description or an
// absent label of an opinion scale included (it was once dropped: PUT and
// GET answered it, the page and the public API showed nothing); a label of
// a type without labels stays absent; only a non-empty default left
// untranslated counts as missing (the page marks it).
func TestLocalizeOverEmptyDefaults(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	text := func(v string) survey.Text { return survey.Text{V: v} }
	scale := survey.NewElement(survey.TypeOpinionScale)
	scale.Title, scale.LeftLabel, scale.RightLabel = "چقدر؟", nil, str("")
	plain := survey.NewElement(survey.TypeText)
	plain.Title = "نام"
	withDescription := plain
	withDescription.Description = "توضیح"
	for _, tc := range []struct {
		name        string
		el          survey.Element
		texts       map[string]survey.Text
		description string
		left, right *string
		missing     map[string]bool
	}{
		{"a description only the translation has", plain, map[string]survey.Text{"title": text("Name"), "description": text("Say it")},
			"Say it", nil, nil, map[string]bool{}},
		{"no description either side", plain, map[string]survey.Text{"title": text("Name")}, "", nil, nil, map[string]bool{}},
		{"a default description untranslated", withDescription, map[string]survey.Text{"title": text("Name")},
			"توضیح", nil, nil, map[string]bool{"description": true}},
		{"labels only the translation has", scale, map[string]survey.Text{"left_label": text("Low"), "right_label": text("High")},
			"", str("Low"), str("High"), map[string]bool{"title": true}},
		{"no labels either side", scale, map[string]survey.Text{"title": text("How much?")}, "", nil, str(""), map[string]bool{}},
		{"a label of a type without labels", plain, map[string]survey.Text{"left_label": text("Low")},
			"", nil, nil, map[string]bool{"title": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc := survey.Localize(tc.el, survey.ElementTexts{Fields: tc.texts})
			e := loc.Element
			if e.Description != tc.description || !samePtr(e.LeftLabel, tc.left) || !samePtr(e.RightLabel, tc.right) {
				t.Errorf("description %q, labels %v %v; want %q, %v %v", e.Description, deref(e.LeftLabel), deref(e.RightLabel),
					tc.description, deref(tc.left), deref(tc.right))
			}
			if !maps.Equal(loc.Missing, tc.missing) {
				t.Errorf("missing %v, want %v", loc.Missing, tc.missing)
			}
		})
	}
}

func samePtr(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

func deref(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}
