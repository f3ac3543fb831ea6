package pages

import (
	"regexp"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

// TestPagesLookFinished holds the details a new user saw unfinished on the
// page (issue 39's list), each in the served HTML:
//   - a text answer's box fits what it may hold (one line for a name);
//   - a statement's and a group's titles are h2 under the page's h1, and a
//     group is no card of its own;
//   - a multiple-select question with fewest picks carries them, and the
//     page's words for them are the responder's, in the page's language
//     and digits (the API's "Ensure this field has at least 2 elements."
//     reads "دست‌کم ۲ گزینه را انتخاب کنید." on a Persian page);
//   - a Persian file hint writes Persian digits and punctuation.
func TestPagesLookFinished(t *testing.T) {
	t.Parallel()
	name := view(survey.Element{ID: 1, Type: survey.TypeText, Title: "Name", MaxLength: 60})
	essay := view(survey.Element{ID: 2, Type: survey.TypeText, Title: "Tell us more", MaxLength: 2000})
	group := view(survey.Element{ID: 3, Type: survey.TypeGroup, Title: "About you"})
	statement := view(survey.Element{ID: 4, Type: survey.TypeStatement, Title: "Read this"})
	multi := view(survey.Element{ID: 5, Type: survey.TypeMultipleChoice, Title: "Colours", AllowMultipleSelect: true, MinSelectableChoices: 2})
	multi.Choices = []survey.ChoiceItem{{ID: 6, Name: "Red"}, {ID: 7, Name: "Blue"}, {ID: 8, Name: "Green"}}
	file := view(survey.Element{ID: 9, Type: survey.TypeFileUpload, Title: "فایل", MaxFileSizeMB: 10, AllowedFileTypes: []string{"pdf", "png"}})
	v := survey.ResponderSurvey{URLSlug: "s", Name: "Look", Language: "en", Questions: [][]survey.ElementView{{name, essay}, {group, statement, multi}}}
	out := string(renderSurvey(surveyPage{page: newPage("en", v.Name), Survey: v, Action: "/s/s/"}))
	for _, want := range []string{
		`<textarea id="a1" name="a1" rows="1"`, `<textarea id="a2" name="a2" rows="4"`,
		`<div class="q statement group" data-id="3"><h2>About you</h2>`, `<div class="q statement" data-id="4"><h2>Read this</h2>`,
		`data-type="3" data-min="2"`, `data-msg-min="Choose at least %d."`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(out, "<h3>") {
		t.Error("a heading skips a level under the page's h1")
	}
	if got := translate("fa", "Ensure this field has at least 2 elements."); got != "دست‌کم ۲ گزینه را انتخاب کنید." {
		t.Errorf("the fewest-picks refusal in Persian: %q", got)
	}
	if got := translate("en", "Ensure this field has at least 12 elements."); got != "Choose at least 12." {
		t.Errorf("the fewest-picks refusal in English: %q", got)
	}
	fa := survey.ResponderSurvey{URLSlug: "f", Name: "فایل", Language: "fa", Questions: [][]survey.ElementView{{file}}}
	page := newPage("fa", fa.Name)
	faOut := string(renderSurvey(surveyPage{page: page, Survey: fa, Action: "/s/f/"}))
	hint := regexp.MustCompile(`<p class="qd" id="h9">([^<]*)`).FindStringSubmatch(faOut)
	if hint == nil || hint[1] != "پذیرفته: PDF، PNG؛ تا ۱۰ مگابایت. " {
		t.Errorf("the Persian file hint: %q", hint)
	}
}
