package exports_test

import (
	"testing"

	"surveyservice/shared/exports"
)

// TestDecodeJob: a job message carries its format and bounds; a format
// other than 0 (CSV, messages from before formats), 1 or 2, or a bound
// that is not RFC 3339, or a lang that is not a page language code, is
// malformed.
func TestDecodeJob(t *testing.T) {
	const id = "0123456789abcdef0123456789abcdef"
	j, err := exports.DecodeJob(`{"survey_id":1,"account_id":2,"job_id":"` + id + `","export_format":1,"since":"2026-05-01T12:00:00Z","until":"2026-05-02T00:00:00.5Z","lang":"en"}`)
	if err != nil || j.Format != 1 || j.Since != "2026-05-01T12:00:00Z" || j.Until != "2026-05-02T00:00:00.5Z" || j.Lang != "en" {
		t.Errorf("DecodeJob = %+v, %v", j, err)
	}
	if j, err := exports.DecodeJob(`{"survey_id":1,"account_id":2,"job_id":"` + id + `"}`); err != nil || j.Format != 0 {
		t.Errorf("a message without a format: %+v, %v", j, err)
	}
	for _, bad := range []string{
		`{"survey_id":1,"account_id":2,"job_id":"` + id + `","export_format":3}`,
		`{"survey_id":1,"account_id":2,"job_id":"` + id + `","export_format":-1}`,
		`{"survey_id":1,"account_id":2,"job_id":"` + id + `","since":"yesterday"}`,
		`{"survey_id":1,"account_id":2,"job_id":"` + id + `","until":"2026-05-01"}`,
		`{"survey_id":1,"account_id":2,"job_id":"` + id + `","lang":"de"}`,
		`{"survey_id":1,"account_id":2,"job_id":"` + id + `","lang":"EN"}`,
		`{"survey_id":1,"account_id":2,"job_id":"` + id + `","lang":5}`,
	} {
		if _, err := exports.DecodeJob(bad); err == nil {
			t.Errorf("DecodeJob(%s) accepted", bad)
		}
	}
}
