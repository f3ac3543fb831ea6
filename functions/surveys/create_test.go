package surveys_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/surveys"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

func isInt(v any) bool {
	n, ok := v.(float64)
	return ok && n == math.Trunc(n)
}

var slugRE = regexp.MustCompile(`^[A-Za-z0-9_~.-]{8,}$`)

// specSettingsFlags are the boolean summary settings of the spec's Survey detail.
var specSettingsFlags = []string{
	"authentication_needed", "service_auth", "code_auth", "edit_response_enabled",
	"show_answer_sheet_enabled", "show_answer_sheet_to_responder",
	"show_answer_key_after_response_submit", "show_answer_key_after_survey_stop",
	"phone_number_auth", "phone_number_auth_is_unique", "phone_numbers_limited",
}

// checkTheme asserts every Theme field of the spec with its type, and that
// it is the default theme.
func checkTheme(t *testing.T, theme any) {
	t.Helper()
	th, ok := theme.(map[string]any)
	if !ok {
		t.Errorf("theme = %v", theme)
		return
	}
	ints := []string{"id", "order", "font_family", "font_size", "background_image_repeat",
		"background_image_fit", "background_image_position", "background_image_brightness", "background_image_size_percentage"}
	strs := []string{"background_color", "question_color", "answer_color", "button_color", "accent_color", "thumbnail_url"}
	for _, k := range ints {
		if !isInt(th[k]) {
			t.Errorf("theme.%s = %#v, want an integer", k, th[k])
		}
	}
	for _, k := range strs {
		if _, ok := th[k].(string); !ok {
			t.Errorf("theme.%s = %#v, want a string", k, th[k])
		}
	}
	if _, ok := th["is_public"].(bool); !ok {
		t.Errorf("theme.is_public = %#v, want a boolean", th["is_public"])
	}
	// The default theme has no image (contract section 22: null when none).
	if th["background_image"] != nil || th["background_image_id"] != nil {
		t.Errorf("theme.background_image = %#v, background_image_id = %#v, want null", th["background_image"], th["background_image_id"])
	}
	if len(th) != len(ints)+len(strs)+3 {
		t.Errorf("theme has %d fields, want the spec's %d: %v", len(th), len(ints)+len(strs)+3, th)
	}
	raw, _ := json.Marshal(survey.DefaultTheme())
	var def any
	_ = json.Unmarshal(raw, &def)
	if !reflect.DeepEqual(theme, def) {
		t.Errorf("theme = %v, want the default theme %s", theme, raw)
	}
}

// checkNewDetail asserts a new survey's whole detail and returns it.
func checkNewDetail(t *testing.T, body []byte, acct survey.Account, fid int64, name, lang string, before, after time.Time) map[string]any {
	t.Helper()
	d := decode(t, body)
	fixed := map[string]any{
		"name": name, "folder_id": float64(fid), "language": lang,
		"active": true, "closed": false, "deleted": false, "is_stopped": false, "expiration_date": nil,
		"submitted_responses": 0.0, "views": 0.0, "is_template": false, "subdomain": nil, "custom_urls": []any{}, "partial_responses_count": 0.0,
		"shared_by": map[string]any{"email": acct.Email, "first_name": acct.FirstName, "last_name": acct.LastName, "user_type": 1.0},
		"questions": []any{}, "variables": []any{}, "welcome": []any{}, "appreciations": []any{},
		"updated_by": nil, "updated_at": d["created_date"], // at creation: the creator (the owner) and created_date
	}
	for k, want := range fixed {
		got, ok := d[k]
		if !ok {
			t.Errorf("detail has no %q", k)
		} else if !reflect.DeepEqual(got, want) {
			t.Errorf("detail %s = %#v, want %#v", k, got, want)
		}
	}
	idOf(t, d)
	if s, _ := d["url_slug"].(string); !slugRE.MatchString(s) || url.PathEscape(s) != s {
		t.Errorf("url_slug = %#v, want URL-safe and 8+ characters", d["url_slug"])
	}
	for _, k := range []string{"preview_code", "report_code"} {
		if s, _ := d[k].(string); s == "" {
			t.Errorf("%s = %#v, want a non-empty string", k, d[k])
		}
	}
	cd, _ := d["created_date"].(string)
	created, err := time.Parse(time.RFC3339Nano, cd)
	switch {
	case err != nil || !strings.HasSuffix(cd, "Z"):
		t.Errorf("created_date = %q, want UTC ISO 8601 ending in Z (%v)", cd, err)
	case created.Before(before.Add(-time.Second)) || created.After(after.Add(time.Second)):
		t.Errorf("created_date = %s, want between %s and %s", cd, before.UTC(), after.UTC())
	}
	checkTheme(t, d["theme"])
	settings, ok := d["settings"].(map[string]any)
	if !ok {
		t.Errorf("settings = %#v", d["settings"])
	} else {
		for _, k := range specSettingsFlags {
			if v, ok := settings[k]; !ok || v != false {
				t.Errorf("settings.%s = %#v, want false", k, v)
			}
		}
		if !isInt(settings["responding_duration_type"]) {
			t.Errorf("settings.responding_duration_type = %#v, want an integer", settings["responding_duration_type"])
		}
		qrd, ok := settings["questions_responding_duration"]
		if _, isStr := qrd.(string); !ok || (qrd != nil && !isStr) {
			t.Errorf("settings.questions_responding_duration = %#v, want a string or null", qrd)
		}
		if len(settings) != len(specSettingsFlags)+2 {
			t.Errorf("settings has %d keys, want %d: %v", len(settings), len(specSettingsFlags)+2, settings)
		}
	}
	known := map[string]bool{"id": true, "url_slug": true, "preview_code": true, "report_code": true,
		"created_date": true, "theme": true, "settings": true}
	for k := range d {
		if _, ok := fixed[k]; ok || known[k] {
			continue
		}
		if k == "question_count" && d[k] == 0.0 {
			continue // beyond the spec's table: the summaries' count
		}
		t.Errorf("detail has an unexpected field %s = %#v", k, d[k])
	}
	return d
}

// TestCreate: 201 with the whole detail; GET answers the same in one call.
func TestCreate(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	fid := folder(t, f.st, f.acct.ID, "Inbox")
	tests := []struct {
		name, body, wantName, wantLang string
	}{
		{"language omitted is fa", `{"name":"Customer feedback","folder_id":%d}`, "Customer feedback", "fa"},
		{"language 1 is fa", `{"name":"One","folder_id":%d,"language":1}`, "One", "fa"},
		{"language 2 is tr", `{"name":"Two","folder_id":%d,"language":2}`, "Two", "tr"},
		{"language 3 is ar", `{"name":"Three","folder_id":%d,"language":3}`, "Three", "ar"},
		{"language 4 is en", `{"name":"Four","folder_id":%d,"language":4}`, "Four", "en"},
		{"name trimmed", `{"name":"  Padded\t ","folder_id":%d,"language":4}`, "Padded", "en"},
		{"255 characters", `{"name":"` + strings.Repeat("a", 255) + `","folder_id":%d}`, strings.Repeat("a", 255), "fa"},
		{"255 Persian characters", `{"name":"` + strings.Repeat("ن", 255) + `","folder_id":%d}`, strings.Repeat("ن", 255), "fa"},
		{"unknown and read-only fields ignored", `{"name":"Extra","folder_id":%d,"deleted":true,"active":false,"views":7,"url_slug":"mine","color":"red"}`, "Extra", "fa"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := time.Now()
			r := f.do(t, "POST", listPath, fmt.Sprintf(tt.body, fid))
			after := time.Now()
			if r.code != 201 {
				t.Fatalf("create: %d %s", r.code, r.body)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			d := checkNewDetail(t, r.body, f.acct, fid, tt.wantName, tt.wantLang, before, after)
			sid := idOf(t, d)
			t.Logf("create: %d DynamoDB calls", r.calls)
			g := f.do(t, "GET", detailPath(sid), "")
			if g.code != 200 {
				t.Fatalf("GET: %d %s", g.code, g.body)
			}
			testenv.SameJSON(t, "GET after create", g.body, string(r.body))
			if g.calls != 2 {
				t.Errorf("GET took %d DynamoDB calls, want 2 (the collection, the account's subdomain)", g.calls)
			}
			if nos := f.do(t, "GET", strings.TrimSuffix(detailPath(sid), "/"), ""); nos.code != 200 {
				t.Errorf("GET without the final slash: %d", nos.code)
			} else {
				testenv.SameJSON(t, "GET without the final slash", nos.body, string(r.body))
			}
			checkListed(t, f.st, f.acct.ID, sid, fid)
		})
	}
}

// TestCreateManyAreDistinct: 100 surveys get 100 ids, slugs and codes.
func TestCreateManyAreDistinct(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	fid := folder(t, f.st, f.acct.ID, "Many")
	ids, slugs, previews, reports := map[int64]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	var want []int64
	tick := time.NewTicker(15 * time.Millisecond) // two calls a create: about 130 calls/s
	defer tick.Stop()
	for i := range 100 {
		<-tick.C
		d, sid := f.create(t, fid, fmt.Sprintf("Survey %d", i))
		if ids[sid] {
			t.Errorf("id %d handed out twice", sid)
		}
		ids[sid] = true
		want = append(want, sid)
		for _, c := range []struct {
			key  string
			seen map[string]bool
		}{{"url_slug", slugs}, {"preview_code", previews}, {"report_code", reports}} {
			s, _ := d[c.key].(string)
			if c.seen[s] {
				t.Errorf("%s %q handed out twice", c.key, s)
			}
			c.seen[s] = true
			if c.key == "url_slug" && (!slugRE.MatchString(s) || url.PathEscape(s) != s) {
				t.Errorf("url_slug %q is not URL-safe with 8+ characters", s)
			}
		}
	}
	if len(ids) != 100 || len(slugs) != 100 || len(previews) != 100 || len(reports) != 100 {
		t.Errorf("distinct: %d ids, %d slugs, %d preview codes, %d report codes; want 100 each", len(ids), len(slugs), len(previews), len(reports))
	}
	got := listed(t, f.st, f.acct.ID, fid)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("folder lists %d surveys %v, want the 100 created", len(got), got)
	}
}

// TestCreateInvalid: each bad body is a 400 (or 415) with DRF's body, and
// nothing is written.
func TestCreateInvalid(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	fid := folder(t, f.st, f.acct.ID, "Inbox")
	other, _ := testenv.NewAccount(t, survey.PlanPro)
	foreign := folder(t, f.st, other.ID, "Theirs")
	gone := deletedFolder(t, f.st, f.acct.ID)
	ok := func(extra string) string { return fmt.Sprintf(`{"name":"Fine","folder_id":%d%s}`, fid, extra) }
	withFolder := func(v any) string { return fmt.Sprintf(`{"name":"Fine","folder_id":%v}`, v) }
	withName := func(v string) string { return fmt.Sprintf(`{"name":%s,"folder_id":%d}`, v, fid) }
	const (
		required  = `["This field is required."]`
		blank     = `["This field may not be blank."]`
		null      = `["This field may not be null."]`
		notString = `["Not a valid string."]`
		notInt    = `["A valid integer is required."]`
	)
	incorrect := func(kind string) string {
		return `{"folder_id":["Incorrect type. Expected pk value, received ` + kind + `."]}`
	}
	tests := []struct {
		name, contentType, body string
		code                    int
		want                    string // exact body
		detailPrefix            string // or a {"detail"} starting so
		onlyField               string // or a 400 on this field alone
	}{
		{name: "name missing", body: fmt.Sprintf(`{"folder_id":%d}`, fid), want: `{"name":` + required + `}`},
		{name: "name empty", body: withName(`""`), want: `{"name":` + blank + `}`},
		{name: "name whitespace", body: withName(`"  \t\n  "`), want: `{"name":` + blank + `}`},
		{name: "name 256 characters", body: withName(`"` + strings.Repeat("a", 256) + `"`), want: `{"name":["Ensure this field has no more than 255 characters."]}`},
		{name: "name 256 Persian characters", body: withName(`"` + strings.Repeat("ن", 256) + `"`), want: `{"name":["Ensure this field has no more than 255 characters."]}`},
		{name: "name 256 after trimming is 255", body: withName(`" ` + strings.Repeat("a", 256) + `"`), want: `{"name":["Ensure this field has no more than 255 characters."]}`},
		{name: "name null", body: withName(`null`), want: `{"name":` + null + `}`},
		{name: "name number", body: withName(`5`), want: `{"name":` + notString + `}`},
		{name: "name boolean", body: withName(`true`), want: `{"name":` + notString + `}`},
		{name: "name list", body: withName(`["a"]`), want: `{"name":` + notString + `}`},
		{name: "name object", body: withName(`{"a":1}`), want: `{"name":` + notString + `}`},
		{name: "folder_id missing", body: `{"name":"Fine"}`, want: `{"folder_id":` + required + `}`},
		{name: "folder_id string", body: withFolder(`"5"`), want: incorrect("str")},
		{name: "folder_id own folder as a string", body: withFolder(fmt.Sprintf(`"%d"`, fid)), want: incorrect("str")},
		{name: "folder_id fraction", body: withFolder(`1.5`), want: incorrect("float")},
		{name: "folder_id boolean", body: withFolder(`true`), want: incorrect("bool")},
		{name: "folder_id list", body: withFolder(fmt.Sprintf(`[%d]`, fid)), want: incorrect("list")},
		{name: "folder_id object", body: withFolder(`{}`), want: incorrect("dict")},
		{name: "folder_id null", body: withFolder(`null`), want: `{"folder_id":` + null + `}`},
		{name: "folder_id 0", body: withFolder(0), want: invalidPK(0)},
		{name: "folder_id -3", body: withFolder(-3), want: invalidPK(-3)},
		{name: "folder_id beyond int32", body: withFolder(int64(math.MaxInt32) + 1), want: invalidPK(int64(math.MaxInt32) + 1)},
		{name: "folder_id of no folder", body: withFolder(missingID), want: invalidPK(missingID)},
		{name: "folder_id of another account's folder", body: withFolder(foreign), want: invalidPK(foreign)},
		{name: "folder_id of a deleted folder", body: withFolder(gone), want: invalidPK(gone)},
		{name: "language 9", body: ok(`,"language":9`), want: `{"language":["\"9\" is not a valid choice."]}`},
		{name: "language 0", body: ok(`,"language":0`), want: `{"language":["\"0\" is not a valid choice."]}`},
		{name: "language -1", body: ok(`,"language":-1`), want: `{"language":["\"-1\" is not a valid choice."]}`},
		{name: "language 3000000000", body: ok(`,"language":3000000000`), onlyField: "language"},
		{name: "language code string", body: ok(`,"language":"en"`), want: `{"language":` + notInt + `}`},
		{name: "language digit string", body: ok(`,"language":"4"`), want: `{"language":` + notInt + `}`},
		{name: "language fraction", body: ok(`,"language":1.5`), want: `{"language":` + notInt + `}`},
		{name: "language boolean", body: ok(`,"language":true`), want: `{"language":` + notInt + `}`},
		{name: "language null", body: ok(`,"language":null`), want: `{"language":` + null + `}`},
		{name: "empty object", body: `{}`, want: `{"name":` + required + `,"folder_id":` + required + `}`},
		{name: "no body", body: "", want: `{"name":` + required + `,"folder_id":` + required + `}`},
		{name: "three errors at once", body: `{"name":"","folder_id":"x","language":9}`,
			want: `{"name":` + blank + `,"folder_id":["Incorrect type. Expected pk value, received str."],"language":["\"9\" is not a valid choice."]}`},
		{name: "three other errors at once", body: `{"name":null,"folder_id":0,"language":"en"}`,
			want: `{"name":` + null + `,"folder_id":["Invalid pk \"0\" - object does not exist."],"language":` + notInt + `}`},
		{name: "body a list", body: `[]`, want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
		{name: "body a list of the object", body: "[" + ok("") + "]", want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
		{name: "body a string", body: `"text"`, want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got str."]}`},
		{name: "body a number", body: `5`, want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got int."]}`},
		{name: "body null", body: `null`, want: `{"non_field_errors":["No data provided"]}`},
		{name: "body not JSON", body: `{"name":`, detailPrefix: "JSON parse error - "},
		{name: "body two values", body: ok("") + ` {}`, detailPrefix: "JSON parse error - "},
		{name: "body text/plain", contentType: "text/plain", body: ok(""), code: 415, want: `{"detail":"Unsupported media type \"text/plain\" in request."}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := tt.contentType
			if ct == "" && tt.body != "" {
				ct = "application/json"
			}
			r := serve(t, f.h, "POST", listPath, f.key, ct, tt.body)
			code := tt.code
			if code == 0 {
				code = 400
			}
			switch {
			case tt.want != "":
				expect(t, tt.name, r, code, tt.want)
			case tt.detailPrefix != "":
				expect(t, tt.name, r, code, "")
				var body map[string]string
				if err := json.Unmarshal(r.body, &body); err != nil || len(body) != 1 || !strings.HasPrefix(body["detail"], tt.detailPrefix) {
					t.Errorf("body %s, want {\"detail\": %q...}", r.body, tt.detailPrefix)
				}
			default:
				expect(t, tt.name, r, code, "")
				var body map[string][]string
				if err := json.Unmarshal(r.body, &body); err != nil || len(body) != 1 || len(body[tt.onlyField]) != 1 {
					t.Errorf("body %s, want one message on %s", r.body, tt.onlyField)
				}
			}
			if tree, err := f.st.Folders(t.Context(), f.acct.ID); err != nil {
				t.Fatal(err)
			} else if n := len(tree.Surveys); n != 0 {
				t.Errorf("the account has surveys after a refused create: %v", tree.Surveys)
			}
			if got := listed(t, f.st, other.ID, foreign); len(got) != 0 {
				t.Errorf("the other account's folder has surveys %v", got)
			}
		})
	}
	// The same handler still creates (the refusals cached nothing wrong).
	f.create(t, fid, "Fine")
	if got := listed(t, f.st, f.acct.ID, fid); len(got) != 1 {
		t.Errorf("folder lists %v after one create", got)
	}
}

// TestCreateThemeUnderMediaURL: the 201 of a create carries its theme's
// thumbnail_url absolute under MEDIA_URL, as every other survey read
// does (contract section 22); it answered the default theme's relative
// "/media/themes/thumbnails/...svg".
func TestCreateThemeUnderMediaURL(t *testing.T) {
	t.Parallel()
	const media = "https://media.example.test"
	o := testenv.NewOwner(t, survey.PlanPro, "")
	h := testenv.Conform(surveys.New(surveys.Deps{Auth: api.NewAuthenticator(o.Store), Store: o.Store, Now: time.Now, MediaURL: media}))
	fid := folder(t, o.Store, o.Account.ID, "Inbox")
	r := serve(t, h, "POST", listPath, o.Key, "application/json", fmt.Sprintf(`{"name":"Themed","folder_id":%d}`, fid))
	var d struct {
		Theme struct {
			ThumbnailURL string `json:"thumbnail_url"`
		} `json:"theme"`
	}
	if r.code != 201 || json.Unmarshal(r.body, &d) != nil {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	if want := survey.DefaultTheme().WithMedia(media).ThumbnailURL; d.Theme.ThumbnailURL != want || !strings.HasPrefix(want, media+"/media/") {
		t.Errorf("thumbnail_url %q, want %q", d.Theme.ThumbnailURL, want)
	}
}
