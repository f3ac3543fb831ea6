package survey_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

func TestFields(t *testing.T) {
	t.Parallel()
	f := survey.Fields{}
	if err := f.Err(); err != nil {
		t.Fatalf("empty Fields.Err() = %v, want nil", err)
	}
	var nilFields survey.Fields
	if err := nilFields.Err(); err != nil {
		t.Fatalf("nil Fields.Err() = %v, want nil", err)
	}
	f.Add("name", "This field is required.")
	f.Add("name", "Second message.")
	f.Add("email", "Enter a valid email address.")
	f["settings"] = survey.Fields{"color": []string{"Bad."}}
	err := f.Err()
	if got := survey.ErrorCode(err); got != survey.EINVALID {
		t.Fatalf("code = %q, want %q", got, survey.EINVALID)
	}
	var e *survey.Error
	if !errors.As(err, &e) {
		t.Fatalf("Err() = %T, want *survey.Error", err)
	}
	want := map[string]any{
		"name":     []string{"This field is required.", "Second message."},
		"email":    []string{"Enter a valid email address."},
		"settings": survey.Fields{"color": []string{"Bad."}},
	}
	if !reflect.DeepEqual(e.Fields, want) {
		t.Errorf("Fields = %#v, want %#v", e.Fields, want)
	}
	if !strings.Contains(err.Error(), "fields=") {
		t.Errorf("Error() = %q, want the fields shown", err.Error())
	}
	b, jerr := json.Marshal(e.Fields)
	if jerr != nil {
		t.Fatal(jerr)
	}
	if got, want := string(b), `{"email":["Enter a valid email address."],"name":["This field is required.","Second message."],"settings":{"color":["Bad."]}}`; got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
}

func TestFieldError(t *testing.T) {
	t.Parallel()
	err := survey.FieldError("title", "This field may not be blank.")
	if got := survey.ErrorCode(err); got != survey.EINVALID {
		t.Errorf("code = %q", got)
	}
	if got, want := err.Fields, map[string]any{"title": []string{"This field may not be blank."}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Fields = %#v, want %#v", got, want)
	}
}

func TestErrorCode(t *testing.T) {
	t.Parallel()
	notFound := survey.Errorf(survey.ENOTFOUND, "gone %d", 1)
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"error", survey.Errorf(survey.ECONFLICT, "Survey is deleted."), survey.ECONFLICT},
		{"ErrNotFound", survey.ErrNotFound, survey.ENOTFOUND},
		{"wrapped", fmt.Errorf("load: %w", notFound), survey.ENOTFOUND},
		{"wrapped twice", fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", survey.FieldError("x", "bad"))), survey.EINVALID},
		{"joined", errors.Join(errors.New("plain"), survey.Errorf(survey.EGONE, "used")), survey.EGONE},
		{"plain", errors.New("dynamodb exploded"), survey.EINTERNAL},
		{"formatted without %w", fmt.Errorf("load: %v", notFound), survey.EINTERNAL},
	}
	for _, tt := range tests {
		if got := survey.ErrorCode(tt.err); got != tt.want {
			t.Errorf("%s: ErrorCode(%v) = %q, want %q", tt.name, tt.err, got, tt.want)
		}
	}
	if got := survey.Errorf(survey.ENOTFOUND, "x %s", "y"); got.Detail != "x y" || got.Code != survey.ENOTFOUND {
		t.Errorf("Errorf = %+v", got)
	}
	if got := notFound.Error(); !strings.Contains(got, "code=not_found") || !strings.Contains(got, "detail=gone 1") {
		t.Errorf("Error() = %q", got)
	}
}
