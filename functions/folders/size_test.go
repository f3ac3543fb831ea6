package folders_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// jsonLen is v's size as api.Respond writes it (no HTML escaping).
func jsonLen(t *testing.T, v any) int {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Len() - 1
}

// TestFolderListSize measures what one folder and one survey add to the
// folder list, typical and at every limit (a control character costs 6
// bytes of JSON), and so how many surveys an account can have before its
// list exceeds api.MaxAnswer. The list is not bounded: an account has no
// limit on its folders or surveys (README, "Answer sizes"). The figures
// here are the ones the README gives; the test fails if they drift.
func TestFolderListSize(t *testing.T) {
	t.Parallel()
	now := time.Now()
	sv := func(name string) survey.SurveySummary {
		return survey.Survey{ID: 1<<31 - 1, FolderID: 1<<31 - 1, Name: name, Language: 1, Created: now,
			URLSlug: strings.Repeat("a", survey.SlugLength), PreviewCode: strings.Repeat("a", survey.PreviewCodeLength),
			ReportCode: strings.Repeat("a", survey.ReportCodeLength), Views: 1 << 40, SubmittedResponses: 1 << 40,
			QuestionCount: 1000, Theme: survey.DefaultTheme()}.Summary(now)
	}
	folder := func(name string, p survey.Profile) survey.FolderView {
		return survey.Folder{ID: 1<<31 - 1, Order: 1<<31 - 1, Name: name}.View(p, []survey.SurveySummary{})
	}
	typicalOwner := survey.Profile{Email: "owner@example.com", FirstName: "Maryam", LastName: "Karimi", UserType: 1}
	worstOwner := survey.Profile{Email: strings.Repeat("a", 242) + "@example.com", FirstName: strings.Repeat("\x01", 150),
		LastName: strings.Repeat("\x01", 150), UserType: 1}
	typicalSurvey, worstSurvey := jsonLen(t, sv("Customer satisfaction 2026"))+1, jsonLen(t, sv(strings.Repeat("\x01", survey.MaxSurveyName)))+1
	typicalFolder, worstFolder := jsonLen(t, folder("Reports", typicalOwner))+1, jsonLen(t, folder(strings.Repeat("\x01", survey.MaxFolderName), worstOwner))+1
	t.Logf("a survey adds %d bytes to the list (%d at every limit); a folder %d (%d)", typicalSurvey, worstSurvey, typicalFolder, worstFolder)
	t.Logf("surveys that fit in %s with 20 folders: %d typical, %d at every limit",
		api.SizeName(api.MaxAnswer), (api.MaxAnswer-20*typicalFolder)/typicalSurvey, (api.MaxAnswer-20*worstFolder)/worstSurvey)
	for _, c := range []struct {
		what      string
		got, most int
	}{{"typical survey", typicalSurvey, 1200}, {"survey at every limit", worstSurvey, 2700}, {"folder at every limit", worstFolder, 3000}} {
		if c.got > c.most {
			t.Errorf("%s: %d bytes, more than the %d the README assumes", c.what, c.got, c.most)
		}
	}
}
