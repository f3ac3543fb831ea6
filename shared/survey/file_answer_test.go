package survey_test

import (
	"encoding/json"
	"testing"

	"surveyservice/shared/survey"
)

// TestFileAnswerViews: the owner's and a webhook's view of a file answer
// is {file_name, size, url} (the stored object name and content type
// stay inside); the CSV's cell is its name and size.
func TestFileAnswerViews(t *testing.T) {
	t.Parallel()
	f := survey.FileAnswer{Upload: "0a1b", FileName: "cv.pdf", Size: 3 << 20, ContentType: "application/pdf"}
	stored, _ := json.Marshal(f)
	r := survey.Response{Answers: map[int64]json.RawMessage{5: stored, 6: json.RawMessage(`{"201":301}`)}}
	v := r.View()
	if got := string(v.Answers["5"]); got != `{"file_name":"cv.pdf","size":3145728,"url":null}` {
		t.Errorf("view %s", got)
	}
	if got := string(v.Answers["6"]); got != `{"201":301}` {
		t.Errorf("a matrix answer became %s", got)
	}
	u := "https://example.com/x"
	if got := string(f.View(&u)); got != `{"file_name":"cv.pdf","size":3145728,"url":"https://example.com/x"}` {
		t.Errorf("view with a URL %s", got)
	}
	if got := f.Cell(); got != "cv.pdf (3.0 MB)" {
		t.Errorf("cell %q", got)
	}
	if _, ok := survey.DecodeFileAnswer([]byte(`{"201":301}`)); ok {
		t.Errorf("a matrix answer decoded as a file")
	}
}
