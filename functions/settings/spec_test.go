package settings_test

import (
	"maps"
	"slices"
	"testing"

	"surveyservice/shared/survey"
)

// The settings object, written out from the spec's table and the contract
// (section 7), not from the code under test.
var (
	specBools = []string{
		"authentication_needed", "service_auth", "service_auth_no_spam", "code_auth", "code_auth_is_unique",
		"captcha_needed", "hidden_responder_details", "privacy_preserving_message_enabled", "no_spam",
		"tag_spam", "location_is_active", "location_is_required", "hide_next_button", "hide_previous_button",
		"hide_progressbar", "edit_response_enabled", "branding_removal",
		// Quizzes (contract section 15).
		"show_answer_sheet_enabled", "show_answer_sheet_to_responder", "show_answer_key_after_response_submit",
		"show_answer_key_after_survey_stop",
		// Partial responses (contract section 20).
		"partial_responses",
		// Sign-in by phone (contract section 18).
		"phone_number_auth", "phone_number_auth_is_unique", "phone_numbers_limited",
	}
	// specStrings are the string settings and their maximum lengths.
	specStrings = map[string]int{
		"code_authentication_file_name": 500,
		"auth_description":              1000,
		"location_description":          1000,
	}
	specDurations = []string{"responding_ duration"}
	// specReadOnly are shown and never written (contract section 15).
	specReadOnly = []string{"questions_responding_duration"}
	// specPlans is the spec's Availability column.
	specPlans = map[string]survey.Plan{
		"authentication_needed":              survey.PlanEnterprise,
		"service_auth":                       survey.PlanEnterprise,
		"service_auth_no_spam":               survey.PlanEnterprise,
		"service_auth_domains":               survey.PlanEnterprise,
		"code_auth":                          survey.PlanEnterprise,
		"code_auth_is_unique":                survey.PlanEnterprise,
		"code_authentication_file_name":      survey.PlanEnterprise,
		"auth_description":                   survey.PlanEnterprise,
		"captcha_needed":                     survey.PlanEnterprise,
		"hidden_responder_details":           survey.PlanEnterprise,
		"privacy_preserving_message_enabled": survey.PlanEnterprise,
		"no_spam":                            survey.PlanPro,
		"tag_spam":                           survey.PlanPro,
		"location_is_active":                 survey.PlanEnterprise,
		"location_is_required":               survey.PlanEnterprise,
		"location_description":               survey.PlanEnterprise,
		"edit_response_enabled":              survey.PlanEnterprise,
		"branding_removal":                   survey.PlanEnterprise,
		// Contract section 15: quizzes are Pro.
		"show_answer_sheet_enabled":             survey.PlanPro,
		"show_answer_sheet_to_responder":        survey.PlanPro,
		"show_answer_key_after_response_submit": survey.PlanPro,
		"show_answer_key_after_survey_stop":     survey.PlanPro,
		// Contract section 20: partial responses are Pro.
		"partial_responses": survey.PlanPro,
		// Contract section 18: Enterprise as the other sign-in settings.
		"phone_number_auth":           survey.PlanEnterprise,
		"phone_number_auth_is_unique": survey.PlanEnterprise,
		"phone_numbers_limited":       survey.PlanEnterprise,
		// Contract section 25: an exact response limit is Pro.
		"response_limit": survey.PlanPro,
	}
	planRank = map[survey.Plan]int{survey.PlanFree: 0, survey.PlanPro: 1, survey.PlanEnterprise: 2}
	plans    = []survey.Plan{survey.PlanFree, survey.PlanPro, survey.PlanEnterprise}
)

// settingsFields are the settings object's keys other than `survey`.
func settingsFields() []string {
	out := slices.Clone(specBools)
	out = append(out, slices.Sorted(maps.Keys(specStrings))...)
	out = append(out, specDurations...)
	return append(out, "service_auth_domains", "expiration_date", "responding_duration_type", "embed_origins", "response_limit")
}

// allKeys is the exact key set of the settings object.
func allKeys() []string {
	return slices.Sorted(slices.Values(append(append(settingsFields(), "survey"), specReadOnly...)))
}

// writableKeys are the keys a PATCH may write.
func writableKeys() []string { return slices.Sorted(slices.Values(append(settingsFields(), "survey"))) }

// defaults is the settings object of a new survey named name.
func defaults(name string) map[string]any {
	m := map[string]any{
		"survey":                   map[string]any{"name": name, "language": float64(1), "is_stopped": false},
		"service_auth_domains":     []any{},
		"expiration_date":          nil,
		"responding_duration_type": float64(0),
		// The sum of the questions' own durations: none yet.
		"questions_responding_duration": "00:00:00",
		"embed_origins":                 []any{"*"},
		// Contract section 25: no limit until one is set.
		"response_limit": nil,
	}
	for _, b := range specBools {
		m[b] = false
	}
	for s := range specStrings {
		m[s] = nil
	}
	for _, d := range specDurations {
		m[d] = nil
	}
	return m
}

// changeValue is a valid value of a settings field that differs from its
// default.
func changeValue(field string) any {
	switch field {
	case "service_auth_domains":
		return []any{"*@example.com"}
	case "expiration_date":
		return "2026-07-01"
	case "responding_ duration":
		return "01:30:00"
	case "questions_responding_duration":
		return "00:05:00"
	case "responding_duration_type":
		return float64(1)
	case "embed_origins":
		return []any{"https://example.com"}
	case "response_limit":
		return float64(100)
	}
	if _, ok := specStrings[field]; ok {
		return "value of " + field
	}
	if slices.Contains(specBools, field) {
		return true
	}
	panic("no change value for " + field)
}

// TestPlanTableMatchesSpec: the code's plan table is the spec's
// Availability column, no more and no less.
func TestPlanTableMatchesSpec(t *testing.T) {
	t.Parallel()
	if !maps.Equal(survey.PlanNeeded, specPlans) {
		t.Errorf("PlanNeeded = %v\nwant (spec) %v", survey.PlanNeeded, specPlans)
	}
}
