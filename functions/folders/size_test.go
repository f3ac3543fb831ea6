package folders_test

import (
	"bytes"
	"encoding/json"
	"math"
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

// summary is a survey as the list shows it, with every number at its
// largest (ids and counts as int64 allow, more than any account reaches),
// every code at its length, "false" rather than "true", and the name given.
func summary(name string, now time.Time) survey.SurveySummary {
	return survey.Survey{ID: math.MaxInt64, FolderID: math.MaxInt64, Name: name, Language: math.MaxInt64, Created: now,
		URLSlug: strings.Repeat("a", survey.SlugLength), PreviewCode: strings.Repeat("a", survey.PreviewCodeLength),
		ReportCode: strings.Repeat("a", survey.ReportCodeLength), Views: math.MaxInt64, SubmittedResponses: math.MaxInt64,
		ExpirationDate: "2000-01-01T00:00:00Z", QuestionCount: survey.MaxElements, Theme: survey.DefaultTheme()}.Summary(now)
}

// folderView is a folder as the list shows it, with its largest numbers.
func folderView(name string, p survey.Profile, surveys []survey.SurveySummary) survey.FolderView {
	return survey.Folder{ID: math.MaxInt64, Order: math.MaxInt32, Name: name}.View(p, surveys)
}

var (
	// worstSurveyName and worstFolderName are names at their limits, of
	// the costliest character they accept (a control character, which
	// JSON writes \u0001: 6 bytes).
	worstSurveyName = strings.Repeat("\x01", survey.MaxSurveyName)
	worstFolderName = strings.Repeat("\x01", survey.MaxFolderName)
	// worstOwner is the owner every folder repeats, at its field limits.
	worstOwner = survey.Profile{Email: strings.Repeat("a", 242) + "@example.com", FirstName: strings.Repeat("\x01", 150),
		LastName: strings.Repeat("\x01", 150), UserType: 1}
)

// TestFolderListSize measures what one folder and one survey add to the
// folder list, typical and at every limit, the figures docs/api.md gives
// ("Answer sizes"); the test fails if they drift.
func TestFolderListSize(t *testing.T) {
	t.Parallel()
	now := time.Now()
	typicalOwner := survey.Profile{Email: "owner@example.com", FirstName: "Maryam", LastName: "Karimi", UserType: 1}
	typicalSurvey, worstSurvey := jsonLen(t, summary("Customer satisfaction 2026", now))+1, jsonLen(t, summary(worstSurveyName, now))+1
	typicalFolder, worstFolder := jsonLen(t, folderView("Reports", typicalOwner, nil))+1, jsonLen(t, folderView(worstFolderName, worstOwner, nil))+1
	t.Logf("a survey adds %d bytes to the list (%d at every limit); a folder %d (%d)", typicalSurvey, worstSurvey, typicalFolder, worstFolder)
	for _, c := range []struct {
		what      string
		got, most int
	}{{"typical survey", typicalSurvey, 1200}, {"survey at every limit", worstSurvey, 2500}, {"folder at every limit", worstFolder, 2850}} {
		if c.got > c.most {
			t.Errorf("%s: %d bytes, more than the %d docs/api.md assumes", c.what, c.got, c.most)
		}
	}
}

// TestFolderListBound: the largest folder list an account can have, at
// survey.DefaultAccountLimits with every field of every folder and survey
// at its limit, is under api.MaxAnswer with room to spare. It is built
// and measured whole: the surveys all in one folder, which leaves the
// fewest separators out.
func TestFolderListBound(t *testing.T) {
	t.Parallel()
	now := time.Now()
	lim := survey.DefaultAccountLimits
	svs := make([]survey.SurveySummary, lim.LiveSurveys)
	for i := range svs {
		svs[i] = summary(worstSurveyName, now)
	}
	list := make([]survey.FolderView, lim.Folders)
	for i := range list {
		list[i] = folderView(worstFolderName, worstOwner, nil)
	}
	list[0].Surveys = svs
	size := jsonLen(t, list)
	t.Logf("the largest folder list (%d folders, %d live surveys): %d bytes, %.1f%% of %s",
		lim.Folders, lim.LiveSurveys, size, 100*float64(size)/api.MaxAnswer, api.SizeName(api.MaxAnswer))
	if size > api.MaxAnswer*9/10 {
		t.Errorf("the largest folder list is %d bytes, over 90%% of api.MaxAnswer (%d)", size, api.MaxAnswer)
	}
	// One folder's answer (GET /api/folders/{id}/) is that folder alone.
	if one := jsonLen(t, list[0]); one >= size {
		t.Errorf("one folder %d bytes, the list %d", one, size)
	}
}
