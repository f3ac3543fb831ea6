package settings_test

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"surveyservice/functions/settings"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// The tests' "now": 2026-06-15 at noon UTC, so that today, tomorrow and
// yesterday are fixed.
var now0 = time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)

const (
	today     = "2026-06-15"
	tomorrow  = "2026-06-16"
	yesterday = "2026-06-14"
	// missingID is a valid id that no survey ever gets.
	missingID   = math.MaxInt32
	notFound    = `{"detail":"Not found."}`
	deleted     = `{"detail":"Survey is deleted."}`
	invalidPage = `{"detail":"Invalid page."}`
	textPlain   = `{"detail":"Unsupported media type \"text/plain\" in request."}`
	msgBlank    = "This field may not be blank."
	msgNull     = "This field may not be null."
	msgNotStr   = "Not a valid string."
	msgNotBool  = "Must be a valid boolean."
	msgNotInt   = "A valid integer is required."
)

func settingsPath(id any) string { return fmt.Sprintf("/api/surveys/%v/settings/", id) }
func codesPath(id any) string {
	return fmt.Sprintf("/api/surveys/%v/settings/authentication-codes/", id)
}

// The settings object, written out from the spec's table and the contract
// (section 7), not from the code under test.
var (
	specBools = []string{
		"authentication_needed", "service_auth", "service_auth_no_spam", "code_auth", "code_auth_is_unique",
		"captcha_needed", "hidden_responder_details", "privacy_preserving_message_enabled", "no_spam",
		"tag_spam", "location_is_active", "location_is_required", "hide_next_button", "hide_previous_button",
		"hide_progressbar", "edit_response_enabled", "branding_removal",
	}
	// specStrings are the string settings and their maximum lengths.
	specStrings = map[string]int{
		"code_authentication_file_name": 500,
		"auth_description":              1000,
		"location_description":          1000,
	}
	specDurations = []string{"responding_ duration", "questions_responding_duration"}
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
	}
	planRank = map[survey.Plan]int{survey.PlanFree: 0, survey.PlanPro: 1, survey.PlanEnterprise: 2}
	plans    = []survey.Plan{survey.PlanFree, survey.PlanPro, survey.PlanEnterprise}
)

// settingsFields are the settings object's keys other than `survey`.
func settingsFields() []string {
	out := slices.Clone(specBools)
	out = append(out, slices.Sorted(maps.Keys(specStrings))...)
	out = append(out, specDurations...)
	return append(out, "service_auth_domains", "expiration_date", "responding_duration_type", "embed_origins")
}

// allKeys is the exact key set of the settings object.
func allKeys() []string { return slices.Sorted(slices.Values(append(settingsFields(), "survey"))) }

// defaults is the settings object of a new survey named name.
func defaults(name string) map[string]any {
	m := map[string]any{
		"survey":                   map[string]any{"name": name, "language": float64(1), "is_stopped": false},
		"service_auth_domains":     []any{},
		"expiration_date":          nil,
		"responding_duration_type": float64(0),
		"embed_origins":            []any{"*"},
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
	}
	if _, ok := specStrings[field]; ok {
		return "value of " + field
	}
	if slices.Contains(specBools, field) {
		return true
	}
	panic("no change value for " + field)
}

// clock is a "now" the test moves.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// reply is one answer of the handler and the DynamoDB calls it made.
type reply struct {
	code   int
	body   []byte
	header http.Header
	calls  *awsenv.Calls
}

func (r reply) String() string { return fmt.Sprintf("%d %s", r.code, r.body) }

// serve sends one request; body nil sends none at all.
func serve(h http.Handler, method, path, key, contentType string, body *string) reply {
	var rd io.Reader
	if body != nil {
		rd = strings.NewReader(*body)
	}
	req := httptest.NewRequest(method, path, rd)
	if key != "" {
		req.Header.Set("Authorization", "API-Key "+key)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	ctx, calls := awsenv.WithCalls(req.Context())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req.WithContext(ctx))
	return reply{code: rec.Code, body: rec.Body.Bytes(), header: rec.Header(), calls: calls}
}

// fixture is one account of its own, its key, a folder, a clock and the
// group's handler.
type fixture struct {
	st     *store.Store
	h      http.Handler
	acct   survey.Account
	key    string
	clk    *clock
	folder int64
}

func newFixture(t *testing.T, plan survey.Plan) *fixture {
	t.Helper()
	st := testenv.Store(t)
	acct, key := testenv.NewAccount(t, plan)
	clk := &clock{t: now0}
	fo, err := st.CreateFolder(t.Context(), acct.ID, "Settings tests", nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{st: st, h: settings.New(api.NewAuthenticator(st), st, clk.Now), acct: acct, key: key, clk: clk, folder: fo.ID}
	// Warm the authenticator: later counts are the handler's own calls.
	if r := f.do("GET", settingsPath("warm"), ""); r.code != 404 {
		t.Fatalf("warm-up: %v", r)
	}
	return f
}

// do sends a request with the fixture's key; a non-empty body goes as JSON.
func (f *fixture) do(method, path, body string) reply {
	if body == "" {
		return serve(f.h, method, path, f.key, "", nil)
	}
	return serve(f.h, method, path, f.key, "application/json", &body)
}

// newSurvey creates a survey of the account through the store.
func (f *fixture) newSurvey(t *testing.T, name string) int64 {
	t.Helper()
	sv, err := f.st.CreateSurvey(t.Context(), survey.Survey{
		AccountID: f.acct.ID, FolderID: f.folder, Name: name, Language: 1, Theme: survey.DefaultTheme(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return sv.ID
}

// get answers the settings of a survey, which must be 200.
func (f *fixture) get(t *testing.T, sid int64) map[string]any {
	t.Helper()
	r := f.do("GET", settingsPath(sid), "")
	if r.code != 200 {
		t.Fatalf("GET settings %d: %v", sid, r)
	}
	return decodeMap(t, r.body)
}

// patch sends a PATCH of the settings; body is a JSON string or a value to
// marshal.
func (f *fixture) patch(t *testing.T, sid int64, body any) reply {
	t.Helper()
	s, ok := body.(string)
	if !ok {
		s = mustJSON(t, body)
	}
	return f.do("PATCH", settingsPath(sid), s)
}

// coll reads the survey and its item collection through the store.
func (f *fixture) coll(t *testing.T, sid int64) store.SurveyCollection {
	t.Helper()
	c, err := f.st.SurveyCollection(t.Context(), f.acct.ID, sid)
	if err != nil {
		t.Fatalf("survey %d: %v", sid, err)
	}
	return c
}

// codePage answers a page of codes, which must be 200.
func (f *fixture) codePage(t *testing.T, sid int64, query string) map[string]any {
	t.Helper()
	r := f.do("GET", codesPath(sid)+query, "")
	if r.code != 200 {
		t.Fatalf("GET codes %d%s: %v", sid, query, r)
	}
	return decodeMap(t, r.body)
}

// count is the `count` of the codes list.
func (f *fixture) count(t *testing.T, sid int64) int {
	t.Helper()
	return int(f.codePage(t, sid, "")["count"].(float64))
}

// allCodes reads every code of the survey, page by page of 5000.
func (f *fixture) allCodes(t *testing.T, sid int64) []string {
	t.Helper()
	out := []string{}
	for page := 1; ; page++ {
		p := f.codePage(t, sid, fmt.Sprintf("?page_size=5000&page=%d", page))
		out = append(out, strs(t, p["results"])...)
		if p["next"] == nil {
			return out
		}
	}
}

func strs(t *testing.T, v any) []string {
	t.Helper()
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("not a list: %#v", v)
	}
	out := make([]string, len(l))
	for i, x := range l {
		if out[i], ok = x.(string); !ok {
			t.Fatalf("item %d is not a string: %#v", i, x)
		}
	}
	return out
}

func decodeMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body %q: %v", b, err)
	}
	return m
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// generic is v as encoding/json decodes it into any.
func generic(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// jsonEqual reports whether the JSON body equals want (a JSON string or a
// value).
func jsonEqual(body []byte, want any) bool {
	var got any
	if err := json.Unmarshal(body, &got); err != nil {
		return false
	}
	if s, ok := want.(string); ok {
		var w any
		if err := json.Unmarshal([]byte(s), &w); err != nil {
			panic(err)
		}
		return reflect.DeepEqual(got, w)
	}
	return reflect.DeepEqual(got, generic(want))
}

// check asserts a status and, when want is not nil, the JSON body.
func check(t *testing.T, what string, r reply, code int, want any) {
	t.Helper()
	if r.code != code {
		t.Errorf("%s: status %d, want %d; body %s", what, r.code, code, r.body)
		return
	}
	if want != nil && !jsonEqual(r.body, want) {
		t.Errorf("%s: body\n %s\nwant\n %s", what, r.body, mustJSON(t, generic(wantValue(want))))
	}
}

func wantValue(want any) any {
	if s, ok := want.(string); ok {
		var w any
		_ = json.Unmarshal([]byte(s), &w)
		return w
	}
	return want
}

// fieldError checks a 400 whose body is exactly {field: [msg]}; msg ""
// accepts any single message.
func fieldError(t *testing.T, what string, r reply, field, msg string) {
	t.Helper()
	if r.code != 400 {
		t.Errorf("%s: status %d, want 400; body %s", what, r.code, r.body)
		return
	}
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Errorf("%s: body %s: %v", what, r.body, err)
		return
	}
	if len(m) != 1 {
		t.Errorf("%s: body %s, want errors of %q only", what, r.body, field)
		return
	}
	msgs, ok := m[field].([]any)
	if !ok || len(msgs) != 1 {
		t.Errorf("%s: body %s, want one message under %q", what, r.body, field)
		return
	}
	if s, _ := msgs[0].(string); s == "" || (msg != "" && s != msg) {
		t.Errorf("%s: message %q, want %q", what, msgs[0], msg)
	}
}

// sameSettings checks a settings object against want, key set included.
func sameSettings(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	if k := slices.Sorted(maps.Keys(got)); !slices.Equal(k, allKeys()) {
		t.Errorf("%s: keys %q, want %q", what, k, allKeys())
	}
	if !reflect.DeepEqual(generic(got), generic(want)) {
		t.Errorf("%s:\n got %s\nwant %s", what, mustJSON(t, got), mustJSON(t, want))
	}
}

// with returns a copy of a settings object with some fields changed
// (values normalised to what a JSON decoder gives).
func with(m map[string]any, changes map[string]any) map[string]any {
	out := maps.Clone(m)
	for k, v := range changes {
		out[k] = generic(v)
	}
	return out
}

// withSurvey returns a copy of a settings object with survey fields changed.
func withSurvey(m map[string]any, changes map[string]any) map[string]any {
	out := maps.Clone(m)
	sv := maps.Clone(m["survey"].(map[string]any))
	for k, v := range changes {
		sv[k] = generic(v)
	}
	out["survey"] = sv
	return out
}

// TestPlanTableMatchesSpec: the code's plan table is the spec's
// Availability column, no more and no less.
func TestPlanTableMatchesSpec(t *testing.T) {
	t.Parallel()
	if !maps.Equal(survey.PlanNeeded, specPlans) {
		t.Errorf("PlanNeeded = %v\nwant (spec) %v", survey.PlanNeeded, specPlans)
	}
}

func TestGetDefaults(t *testing.T) {
	t.Parallel()
	for _, plan := range plans {
		t.Run(string(plan), func(t *testing.T) {
			f := newFixture(t, plan)
			sid := f.newSurvey(t, "Customer feedback")
			r := f.do("GET", settingsPath(sid), "")
			if r.code != 200 {
				t.Fatalf("GET: %v", r)
			}
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
			if !strings.Contains(string(r.body), `"responding_ duration":`) {
				t.Errorf("body lacks the key \"responding_ duration\" with its space: %s", r.body)
			}
			got := decodeMap(t, r.body)
			sameSettings(t, "defaults", got, defaults("Customer feedback"))
			// The path without its final slash is served the same.
			r2 := f.do("GET", strings.TrimSuffix(settingsPath(sid), "/"), "")
			check(t, "GET without slash", r2, 200, got)
			t.Logf("GET settings: %d DynamoDB calls %v", r.calls.DynamoDB(), r.calls.Ops())
		})
	}
}

// TestPatchEachFieldAlone: every settings field may be sent alone; the
// answer is the whole settings object with that field changed, GET agrees,
// and the survey's detail (its settings summary) reflects it.
func TestPatchEachFieldAlone(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanEnterprise)
	sid := f.newSurvey(t, "Alone")
	cur := f.get(t, sid)
	for _, field := range settingsFields() {
		val := changeValue(field)
		r := f.patch(t, sid, map[string]any{field: val})
		if r.code != 200 {
			t.Errorf("PATCH %s alone: %v", field, r)
			continue
		}
		want := with(cur, map[string]any{field: val})
		sameSettings(t, "answer to PATCH "+field, decodeMap(t, r.body), want)
		sameSettings(t, "GET after PATCH "+field, f.get(t, sid), want)
		cur = want
	}
	c := f.coll(t, sid)
	sum := c.Settings.Summary()
	if !sum.AuthenticationNeeded || !sum.ServiceAuth || !sum.CodeAuth || !sum.EditResponseEnabled ||
		sum.RespondingDurationType != 1 || sum.QuestionsRespondingDuration == nil || *sum.QuestionsRespondingDuration != "00:05:00" {
		t.Errorf("detail's settings summary = %+v", sum)
	}
	if c.Survey.ExpirationDate != "2026-07-01" || c.Survey.Closed(f.clk.Now()) || !c.Survey.Active(f.clk.Now()) {
		t.Errorf("survey item: expiration %q closed %v active %v", c.Survey.ExpirationDate, c.Survey.Closed(f.clk.Now()), c.Survey.Active(f.clk.Now()))
	}
	// The key without its space is an unknown field: ignored.
	check(t, "responding_duration without the space", f.patch(t, sid, `{"responding_duration": "02:00:00"}`), 200, cur)
	// An empty object changes nothing.
	check(t, "PATCH {}", f.patch(t, sid, `{}`), 200, cur)
	check(t, "PATCH with no body", f.do("PATCH", settingsPath(sid), ""), 200, cur)
	sameSettings(t, "GET at the end", f.get(t, sid), cur)
}

func TestPatchSurveyObject(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Original")
	cur := f.get(t, sid)
	now := f.clk.Now()

	steps := []struct {
		body   string
		change map[string]any
		check  func(sv survey.Survey) bool
	}{
		{`{"survey": {"name": "Renamed"}}`, map[string]any{"name": "Renamed"}, func(sv survey.Survey) bool { return sv.Name == "Renamed" && sv.Language == 1 }},
		{`{"survey": {"name": "  Padded  "}}`, map[string]any{"name": "Padded"}, func(sv survey.Survey) bool { return sv.Name == "Padded" }},
		{`{"survey": {"language": 4}}`, map[string]any{"language": 4}, func(sv survey.Survey) bool { return sv.Language == 4 && sv.Name == "Padded" }},
		{`{"survey": {"is_stopped": true}}`, map[string]any{"is_stopped": true}, func(sv survey.Survey) bool {
			return sv.IsStopped && !sv.Active(now) && !sv.Closed(now) && sv.Language == 4
		}},
		{`{"survey": {}}`, nil, func(sv survey.Survey) bool { return sv.IsStopped && !sv.Active(now) }},
		{`{"survey": {"is_stopped": false}}`, map[string]any{"is_stopped": false}, func(sv survey.Survey) bool { return !sv.IsStopped && sv.Active(now) }},
		{`{"survey": {"name": "All three", "language": 2, "is_stopped": true}}`, map[string]any{"name": "All three", "language": 2, "is_stopped": true},
			func(sv survey.Survey) bool {
				return sv.Name == "All three" && sv.Language == 2 && sv.IsStopped && !sv.Active(now)
			}},
	}
	for _, s := range steps {
		r := f.patch(t, sid, s.body)
		want := withSurvey(cur, s.change)
		if r.code != 200 {
			t.Errorf("PATCH %s: %v", s.body, r)
			continue
		}
		sameSettings(t, "answer to "+s.body, decodeMap(t, r.body), want)
		sameSettings(t, "GET after "+s.body, f.get(t, sid), want)
		if sv := f.coll(t, sid).Survey; !s.check(sv) {
			t.Errorf("after %s the survey item is %+v", s.body, sv)
		}
		cur = want
	}
	// The settings themselves are untouched by the survey part.
	d := defaults("All three")
	d["survey"] = cur["survey"]
	sameSettings(t, "settings after survey PATCHes", cur, d)
}

// TestPatchNullClears: string settings and the expiration date go back to
// null; service_auth_domains null means [].
func TestPatchNullClears(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanEnterprise)
	sid := f.newSurvey(t, "Nulls")
	nullable := append(slices.Sorted(maps.Keys(specStrings)), append(specDurations, "expiration_date", "service_auth_domains")...)
	set := map[string]any{}
	for _, field := range nullable {
		set[field] = changeValue(field)
	}
	check(t, "set every nullable field", f.patch(t, sid, set), 200, with(defaults("Nulls"), set))
	cur := f.get(t, sid)
	for _, field := range nullable {
		r := f.patch(t, sid, fmt.Sprintf(`{%q: null}`, field))
		var cleared any
		if field == "service_auth_domains" {
			cleared = []any{}
		}
		want := with(cur, map[string]any{field: cleared})
		check(t, field+" null", r, 200, want)
		sameSettings(t, "GET after "+field+" null", f.get(t, sid), want)
		cur = want
	}
	sameSettings(t, "every field cleared", cur, defaults("Nulls"))
	c := f.coll(t, sid)
	s := c.Settings
	if s.CodeAuthenticationFileName != nil || s.AuthDescription != nil || s.LocationDescription != nil ||
		s.RespondingDuration != nil || s.QuestionsRespondingDuration != nil || len(s.ServiceAuthDomains) != 0 {
		t.Errorf("stored settings after clearing: %+v", s)
	}
	if c.Survey.ExpirationDate != "" || c.Survey.Closed(f.clk.Now()) {
		t.Errorf("survey item after clearing the date: %+v", c.Survey)
	}
	// Several at once, and an explicit [] for the domains.
	check(t, "set again", f.patch(t, sid, set), 200, with(defaults("Nulls"), set))
	all := map[string]any{}
	for _, field := range nullable {
		all[field] = nil
	}
	all["service_auth_domains"] = []any{}
	check(t, "all null in one body", f.patch(t, sid, all), 200, defaults("Nulls"))
	sameSettings(t, "GET after all null", f.get(t, sid), defaults("Nulls"))
}

// TestConcurrentPatches: two PATCHes of different fields sent at once
// both land, round after round.
func TestConcurrentPatches(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanEnterprise)
	sid := f.newSurvey(t, "Race")
	for round := range 10 {
		a := fmt.Sprintf("auth %d", round)
		b := fmt.Sprintf("location %d", round)
		var wg sync.WaitGroup
		var ra, rb reply
		wg.Go(func() { ra = f.do("PATCH", settingsPath(sid), fmt.Sprintf(`{"auth_description": %q}`, a)) })
		wg.Go(func() { rb = f.do("PATCH", settingsPath(sid), fmt.Sprintf(`{"location_description": %q}`, b)) })
		wg.Wait()
		if ra.code != 200 || rb.code != 200 {
			t.Errorf("round %d: %v / %v", round, ra, rb)
			continue
		}
		got := f.get(t, sid)
		if got["auth_description"] != a || got["location_description"] != b {
			t.Errorf("round %d: auth_description %v (want %q), location_description %v (want %q)",
				round, got["auth_description"], a, got["location_description"], b)
		}
	}
}

// TestPlanGating is driven by survey.PlanNeeded: each gated field, changed
// on each plan, is accepted exactly when the plan includes it; a refusal is
// 403 naming the field and the plan it needs, and changes nothing, not even
// the ungated fields sent with it.
func TestPlanGating(t *testing.T) {
	t.Parallel()
	fields := slices.Sorted(maps.Keys(survey.PlanNeeded))
	var ungated []string
	for _, field := range settingsFields() {
		if _, gated := survey.PlanNeeded[field]; !gated {
			ungated = append(ungated, field)
		}
	}
	for _, plan := range plans {
		t.Run(string(plan), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, plan)
			sid := f.newSurvey(t, "Gated")
			for _, field := range fields {
				need := survey.PlanNeeded[field]
				before := f.get(t, sid)
				hide := !before["hide_progressbar"].(bool)
				body := map[string]any{
					field: changeValue(field), "hide_progressbar": hide,
					"survey": map[string]any{"name": "Renamed for " + field}, "expiration_date": "2026-07-01",
				}
				r := f.patch(t, sid, body)
				if planRank[plan] >= planRank[need] {
					want := withSurvey(with(before, map[string]any{field: changeValue(field), "hide_progressbar": hide,
						"expiration_date": "2026-07-01"}), map[string]any{"name": "Renamed for " + field})
					check(t, string(plan)+" changing "+field, r, 200, want)
					sameSettings(t, "GET after "+field, f.get(t, sid), want)
					continue
				}
				if r.code != 403 {
					t.Errorf("%s changing %s (needs %s): %v, want 403", plan, field, need, r)
				} else {
					m := decodeMap(t, r.body)
					detail, _ := m["detail"].(string)
					if len(m) != 1 || !strings.Contains(detail, field) || !strings.Contains(detail, string(need)) {
						t.Errorf("%s changing %s: 403 body %s should be a detail naming the field and the %s plan", plan, field, r.body, need)
					}
				}
				sameSettings(t, "GET after the refused "+field, f.get(t, sid), before)
				if sv := f.coll(t, sid).Survey; sv.Name != before["survey"].(map[string]any)["name"] {
					t.Errorf("refused PATCH of %s renamed the survey to %q", field, sv.Name)
				}
			}
			// Ungated fields are open to every plan.
			for _, field := range ungated {
				before := f.get(t, sid)
				val := changeValue(field)
				if field == "expiration_date" {
					val = "2026-08-01"
				}
				check(t, string(plan)+" changing ungated "+field, f.patch(t, sid, map[string]any{field: val}), 200, with(before, map[string]any{field: val}))
			}
			// All the gated fields at once: every one the plan lacks is named.
			all := map[string]any{}
			var lacking []string
			for _, field := range fields {
				all[field] = changeValue(field)
				if planRank[plan] < planRank[survey.PlanNeeded[field]] {
					lacking = append(lacking, field)
				}
			}
			r := f.patch(t, sid, all)
			if len(lacking) == 0 {
				check(t, "every gated field on "+string(plan), r, 200, nil)
			} else if r.code != 403 {
				t.Errorf("every gated field on %s: %v, want 403", plan, r)
			} else {
				for _, field := range lacking {
					if !strings.Contains(string(r.body), field) {
						t.Errorf("403 of every gated field on %s does not name %s: %s", plan, field, r.body)
					}
				}
			}
			// GET-then-PATCH of the whole object is accepted on every plan.
			g := f.get(t, sid)
			check(t, "round trip on "+string(plan), f.patch(t, sid, g), 200, g)
			sameSettings(t, "GET after the round trip", f.get(t, sid), g)
		})
	}
}

// TestSameValueAccepted: a gated field sent with the value it has is no
// change, on any plan, including settings an account kept after a
// downgrade; changing or clearing them is refused.
func TestSameValueAccepted(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)

	// A fresh survey: the defaults of gated fields, in every spelling.
	fresh := f.newSurvey(t, "Defaults")
	check(t, "defaults sent back", f.patch(t, fresh, `{"code_auth": false, "no_spam": false, "tag_spam": false,
		"service_auth_domains": [], "auth_description": null, "location_description": null,
		"code_authentication_file_name": null}`), 200, defaults("Defaults"))
	check(t, "domains null on a survey without domains", f.patch(t, fresh, `{"service_auth_domains": null}`), 200, defaults("Defaults"))
	check(t, "round trip of the defaults", f.patch(t, fresh, defaults("Defaults")), 200, defaults("Defaults"))

	// A survey with enterprise settings on a free account (a downgrade):
	// written through the store, as the plan would not allow it now.
	sid := f.newSurvey(t, "Downgraded")
	err := f.st.UpdateSettings(t.Context(), f.acct.ID, sid, store.SettingsUpdate{Set: map[string]any{
		"code_auth": true, "no_spam": true, "service_auth_domains": []string{"*@example.com"},
		"auth_description": "Enter your code", "location_is_active": true,
	}})
	if err != nil {
		t.Fatal(err)
	}
	g := f.get(t, sid)
	if g["code_auth"] != true || g["auth_description"] != "Enter your code" {
		t.Fatalf("settings written through the store: %v", g)
	}
	check(t, "round trip on a downgraded account", f.patch(t, sid, g), 200, g)
	check(t, "same values, padded", f.patch(t, sid, `{"code_auth": true, "no_spam": true,
		"service_auth_domains": ["*@example.com"], "auth_description": "  Enter your code  "}`), 200, g)
	for _, body := range []string{
		`{"code_auth": false}`, `{"no_spam": false}`, `{"service_auth_domains": null}`, `{"service_auth_domains": []}`,
		`{"service_auth_domains": ["*@example.com", "*@example.org"]}`, `{"auth_description": null}`,
		`{"auth_description": "Another text"}`, `{"location_is_active": false, "hide_next_button": true}`,
	} {
		check(t, "downgraded "+body, f.patch(t, sid, body), 403, nil)
	}
	sameSettings(t, "GET after the refusals", f.get(t, sid), g)
}

// TestInvalidBeforeForbidden: an invalid body is a 400 even when it also
// changes a setting the plan does not include.
func TestInvalidBeforeForbidden(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Invalid first")
	fieldError(t, `{"code_auth": "yes"}`, f.patch(t, sid, `{"code_auth": "yes"}`), "code_auth", msgNotBool)
	fieldError(t, "gated change and invalid ungated field", f.patch(t, sid, `{"code_auth": true, "hide_next_button": "yes"}`), "hide_next_button", msgNotBool)
	fieldError(t, "bad domain", f.patch(t, sid, `{"service_auth_domains": "*@example.com"}`), "service_auth_domains", "")
	fieldError(t, "gated change and past date", f.patch(t, sid, fmt.Sprintf(`{"no_spam": true, "expiration_date": %q}`, today)), "expiration_date", "")
	check(t, "gated change and bad survey object", f.patch(t, sid, `{"branding_removal": true, "survey": "x"}`), 400,
		`{"survey": {"non_field_errors": ["Invalid data. Expected a dictionary, but got str."]}}`)
	sameSettings(t, "GET after", f.get(t, sid), defaults("Invalid first"))
}

func TestExpirationDate(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Expiring")
	now := f.clk.Now()
	cur := with(defaults("Expiring"), map[string]any{"expiration_date": tomorrow})
	check(t, "tomorrow", f.patch(t, sid, fmt.Sprintf(`{"expiration_date": %q}`, tomorrow)), 200, cur)
	sameSettings(t, "GET", f.get(t, sid), cur)
	if sv := f.coll(t, sid).Survey; sv.ExpirationDate != tomorrow || sv.Closed(now) || !sv.Active(now) {
		t.Errorf("survey with tomorrow's date: %q closed %v active %v", sv.ExpirationDate, sv.Closed(now), sv.Active(now))
	}
	const wrongFormat = "Date has wrong format. Use one of these formats instead: YYYY-MM-DD."
	for _, c := range []struct{ value, msg string }{
		{`"` + today + `"`, ""},
		{`"` + yesterday + `"`, ""},
		{`"2020-01-01"`, ""},
		{`"2026-02-30"`, wrongFormat},
		{`"2026-6-1"`, wrongFormat},
		{`"2026-06-20T00:00:00Z"`, wrongFormat},
		{`"20260620"`, wrongFormat},
		{`"tomorrow"`, wrongFormat},
		{`5`, ""},
		{`true`, ""},
		{`""`, ""},
	} {
		fieldError(t, "expiration_date "+c.value, f.patch(t, sid, `{"expiration_date": `+c.value+`}`), "expiration_date", c.msg)
	}
	sameSettings(t, "GET after the refusals", f.get(t, sid), cur)
	check(t, "null", f.patch(t, sid, `{"expiration_date": null}`), 200, defaults("Expiring"))
	if sv := f.coll(t, sid).Survey; sv.ExpirationDate != "" || sv.Closed(now) || !sv.Active(now) {
		t.Errorf("survey with its date cleared: %+v", sv)
	}
	check(t, "far future", f.patch(t, sid, `{"expiration_date": "2099-12-31"}`), 200, with(defaults("Expiring"), map[string]any{"expiration_date": "2099-12-31"}))
}

// TestExpiryCloses: a survey reads closed from its expiration date on,
// before any sweep; a later date reopens it; the same (now past) date sent
// back is accepted.
func TestExpiryCloses(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Closing")
	check(t, "tomorrow", f.patch(t, sid, fmt.Sprintf(`{"expiration_date": %q}`, tomorrow)), 200, nil)

	justBefore := time.Date(2026, 6, 15, 23, 59, 59, 0, time.UTC)
	midnight := time.Date(2026, 6, 16, 0, 0, 0, 0, time.UTC)
	sv := f.coll(t, sid).Survey
	if sv.Closed(justBefore) || !sv.Active(justBefore) {
		t.Errorf("at 23:59:59 the day before: closed %v active %v", sv.Closed(justBefore), sv.Active(justBefore))
	}
	if !sv.Closed(midnight) || sv.Active(midnight) {
		t.Errorf("at 00:00 UTC of the date, before any sweep: closed %v active %v", sv.Closed(midnight), sv.Active(midnight))
	}
	f.clk.Set(midnight)
	g := f.get(t, sid)
	if g["expiration_date"] != tomorrow {
		t.Errorf("expiration_date after the clock moved: %v", g["expiration_date"])
	}
	// The same date, today now: accepted (nothing changes); another day
	// that is not after today is not.
	check(t, "same date, now today", f.patch(t, sid, fmt.Sprintf(`{"expiration_date": %q}`, tomorrow)), 200, g)
	check(t, "round trip of a closed survey", f.patch(t, sid, g), 200, g)
	fieldError(t, "another past date", f.patch(t, sid, fmt.Sprintf(`{"expiration_date": %q}`, today)), "expiration_date", "")

	// A later day reopens it.
	check(t, "a later day", f.patch(t, sid, `{"expiration_date": "2026-06-17"}`), 200, with(g, map[string]any{"expiration_date": "2026-06-17"}))
	if sv := f.coll(t, sid).Survey; sv.Closed(midnight) || !sv.Active(midnight) {
		t.Errorf("after moving the date later: closed %v active %v", sv.Closed(midnight), sv.Active(midnight))
	}

	// Past by two days, and closed by the sweep: the same date sent back
	// is accepted; a later one reopens it; so does null.
	later := time.Date(2026, 6, 19, 8, 0, 0, 0, time.UTC)
	f.clk.Set(later)
	closed, err := f.st.CloseExpired(t.Context(), store.DueSurvey{ID: sid, ExpirationDate: "2026-06-17"})
	if err != nil || !closed {
		t.Fatalf("sweep: closed %v, %v", closed, err)
	}
	if sv := f.coll(t, sid).Survey; !sv.Closed(later) || sv.Active(later) {
		t.Errorf("after the sweep: closed %v active %v", sv.Closed(later), sv.Active(later))
	}
	g = f.get(t, sid)
	check(t, "same past date", f.patch(t, sid, `{"expiration_date": "2026-06-17"}`), 200, g)
	check(t, "round trip of an expired survey", f.patch(t, sid, g), 200, g)
	fieldError(t, "another past date", f.patch(t, sid, `{"expiration_date": "2026-06-18"}`), "expiration_date", "")
	check(t, "reopen", f.patch(t, sid, `{"expiration_date": "2026-06-20"}`), 200, with(g, map[string]any{"expiration_date": "2026-06-20"}))
	if sv := f.coll(t, sid).Survey; sv.Closed(later) || !sv.Active(later) {
		t.Errorf("after moving a swept date later: closed %v active %v (%+v)", sv.Closed(later), sv.Active(later), sv)
	}
	f.clk.Set(time.Date(2026, 6, 25, 0, 0, 0, 0, time.UTC))
	if sv := f.coll(t, sid).Survey; !sv.Closed(f.clk.Now()) {
		t.Errorf("past the new date the survey is open")
	}
	check(t, "clear", f.patch(t, sid, `{"expiration_date": null}`), 200, with(g, map[string]any{"expiration_date": nil}))
	if sv := f.coll(t, sid).Survey; sv.Closed(f.clk.Now()) || !sv.Active(f.clk.Now()) {
		t.Errorf("after clearing the date: %+v", sv)
	}
}

// TestUnchangedPastDateIsNoError: the expiration date a survey has, now
// past, is accepted when sent back (round trip); so a 400 for another
// field of the same body must not report it as an error.
func TestUnchangedPastDateIsNoError(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Past date")
	check(t, "tomorrow", f.patch(t, sid, fmt.Sprintf(`{"expiration_date": %q}`, tomorrow)), 200, nil)
	f.clk.Set(time.Date(2026, 6, 20, 0, 0, 0, 0, time.UTC))
	g := f.get(t, sid)
	check(t, "same past date alone", f.patch(t, sid, fmt.Sprintf(`{"expiration_date": %q}`, tomorrow)), 200, g)
	fieldError(t, "same past date with an invalid field",
		f.patch(t, sid, fmt.Sprintf(`{"expiration_date": %q, "hide_next_button": "x"}`, tomorrow)), "hide_next_button", msgNotBool)
	g["hide_next_button"] = "x"
	r := f.patch(t, sid, g)
	fieldError(t, "round trip with one invalid field", r, "hide_next_button", msgNotBool)
}

func TestDurations(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Durations")
	for _, field := range specDurations {
		for _, ok := range []string{"01:30:00", "00:00:00", "99:59:59", "24:00:00", "00:59:59"} {
			r := f.patch(t, sid, map[string]any{field: ok})
			if r.code != 200 || decodeMap(t, r.body)[field] != ok {
				t.Errorf("%s %q: %v", field, ok, r)
			}
		}
		for _, bad := range []string{`"24:60:00"`, `"1:2:3"`, `"-01:00:00"`, `"00:00:60"`, `"01:30"`, `"01:30:00.5"`,
			`"1 01:00:00"`, `"aa:bb:cc"`, `"０1:00:00"`, `""`, `5`, `true`} {
			fieldError(t, field+" "+bad, f.patch(t, sid, fmt.Sprintf(`{%q: %s}`, field, bad)), field, "")
		}
		if g := f.get(t, sid); g[field] != "00:59:59" {
			t.Errorf("%s after the refusals: %v", field, g[field])
		}
		check(t, field+" null", f.patch(t, sid, fmt.Sprintf(`{%q: null}`, field)), 200, nil)
		if g := f.get(t, sid); g[field] != nil {
			t.Errorf("%s after null: %v", field, g[field])
		}
	}
}

func TestAuthDomains(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanEnterprise)
	sid := f.newSurvey(t, "Domains")
	long60 := "*@" + strings.Repeat("a", 54) + ".com"
	long61 := "*@" + strings.Repeat("a", 55) + ".com"
	if len(long60) != 60 || len(long61) != 61 {
		t.Fatal("test lengths")
	}
	good := []string{"*@example.com", "*@sub.example.co.uk", "*@مثال.ایران", long60}
	for _, d := range good {
		r := f.patch(t, sid, map[string]any{"service_auth_domains": []string{d}})
		check(t, "domain "+d, r, 200, nil)
		if g := f.get(t, sid); !reflect.DeepEqual(g["service_auth_domains"], []any{d}) {
			t.Errorf("GET after %q: %v", d, g["service_auth_domains"])
		}
	}
	check(t, "every good domain", f.patch(t, sid, map[string]any{"service_auth_domains": good}), 200, nil)
	cur := f.get(t, sid)
	if !reflect.DeepEqual(cur["service_auth_domains"], generic(good)) {
		t.Errorf("GET after every good domain: %v", cur["service_auth_domains"])
	}
	bad := []any{"example.com", "*@", "*@-bad-.com", "*@localhost", long61, 5, "", "@example.com", "*example.com",
		"*@exa mple.com", "*@example..com", nil}
	for _, b := range bad {
		r := f.patch(t, sid, map[string]any{"service_auth_domains": []any{b}})
		if r.code != 400 {
			t.Errorf("domain %#v: %v, want 400", b, r)
			continue
		}
		m := decodeMap(t, r.body)
		nested, ok := m["service_auth_domains"].(map[string]any)
		if len(m) != 1 || !ok || len(nested) != 1 || nested["0"] == nil {
			t.Errorf("domain %#v: body %s, want errors keyed by index 0 under service_auth_domains", b, r.body)
		}
	}
	// Errors are keyed by the index of each bad item; good items have none.
	mixed := append([]any{"*@example.com"}, bad...)
	r := f.patch(t, sid, map[string]any{"service_auth_domains": mixed})
	if r.code != 400 {
		t.Errorf("mixed list: %v", r)
	} else {
		nested, _ := decodeMap(t, r.body)["service_auth_domains"].(map[string]any)
		var want []string
		for i := range bad {
			want = append(want, fmt.Sprint(i+1))
		}
		if got := slices.Sorted(maps.Keys(nested)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
			t.Errorf("mixed list: error indexes %q, want %q (%s)", got, want, r.body)
		}
	}
	// Items are strings, trimmed first as DRF's CharField child does
	// (contract section 3).
	check(t, "padded domain", f.patch(t, sid, map[string]any{"service_auth_domains": []any{" *@example.com\t"}}), 200, nil)
	if g := f.get(t, sid); !reflect.DeepEqual(g["service_auth_domains"], []any{"*@example.com"}) {
		t.Errorf("GET after a padded domain: %v", g["service_auth_domains"])
	}
	check(t, "blank domain", f.patch(t, sid, map[string]any{"service_auth_domains": []any{"   "}}), 400,
		`{"service_auth_domains": {"0": ["This field may not be blank."]}}`)
	check(t, "every good domain again", f.patch(t, sid, map[string]any{"service_auth_domains": good}), 200, nil)
	r = f.patch(t, sid, map[string]any{"service_auth_domains": []any{long61}})
	if !strings.Contains(string(r.body), "Ensure this field has no more than 60 characters.") {
		t.Errorf("61 characters: %s", r.body)
	}
	r = f.patch(t, sid, map[string]any{"service_auth_domains": []any{5}})
	check(t, "non-string item", r, 400, `{"service_auth_domains": {"0": ["Not a valid string."]}}`)
	for _, body := range []string{`"*@example.com"`, `{"0": "*@example.com"}`, `5`, `true`} {
		fieldError(t, "domains "+body, f.patch(t, sid, `{"service_auth_domains": `+body+`}`), "service_auth_domains", "")
	}
	sameSettings(t, "GET after the refusals", f.get(t, sid), cur)
}

func TestStringLengths(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanEnterprise)
	sid := f.newSurvey(t, "Lengths")
	for _, field := range slices.Sorted(maps.Keys(specStrings)) {
		max := specStrings[field]
		for _, v := range []string{strings.Repeat("ش", max), strings.Repeat("a", max), "x"} {
			r := f.patch(t, sid, map[string]any{field: v})
			if r.code != 200 || decodeMap(t, r.body)[field] != v {
				t.Errorf("%s of %d characters: status %d", field, len([]rune(v)), r.code)
			}
		}
		check(t, field+" trimmed", f.patch(t, sid, map[string]any{field: "  padded\t"}), 200, nil)
		if g := f.get(t, sid); g[field] != "padded" {
			t.Errorf("%s padded: %v", field, g[field])
		}
		tooLong := fmt.Sprintf("Ensure this field has no more than %d characters.", max)
		fieldError(t, field+" too long", f.patch(t, sid, map[string]any{field: strings.Repeat("ش", max+1)}), field, tooLong)
		fieldError(t, field+" too long ascii", f.patch(t, sid, map[string]any{field: strings.Repeat("a", max+1)}), field, tooLong)
		fieldError(t, field+" blank", f.patch(t, sid, map[string]any{field: ""}), field, msgBlank)
		fieldError(t, field+" spaces", f.patch(t, sid, map[string]any{field: "   "}), field, msgBlank)
		if g := f.get(t, sid); g[field] != "padded" {
			t.Errorf("%s after the refusals: %v", field, g[field])
		}
	}
	// A body over 1 MiB is refused as a whole.
	check(t, "body over 1 MiB", f.patch(t, sid, map[string]any{"auth_description": strings.Repeat("a", 1<<20)}), 413, nil)
}

// TestWrongTypes: a value of the wrong JSON type is a 400 on that field,
// for every field; all of them in one body are all reported.
func TestWrongTypes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Types")
	type wrong struct{ value, msg string }
	cases := map[string][]wrong{}
	for _, b := range specBools {
		cases[b] = []wrong{{`"true"`, msgNotBool}, {`"yes"`, msgNotBool}, {`[]`, msgNotBool}, {`{}`, msgNotBool}, {`null`, msgNull}}
	}
	for s := range specStrings {
		cases[s] = []wrong{{`5`, msgNotStr}, {`true`, msgNotStr}, {`["a"]`, msgNotStr}, {`{}`, msgNotStr}}
	}
	for _, d := range specDurations {
		cases[d] = []wrong{{`5`, msgNotStr}, {`false`, msgNotStr}, {`["01:00:00"]`, msgNotStr}}
	}
	cases["expiration_date"] = []wrong{{`5`, ""}, {`true`, ""}, {`["2026-07-01"]`, ""}, {`{}`, ""}}
	cases["service_auth_domains"] = []wrong{
		{`"*@example.com"`, `Expected a list of items but got type "str".`},
		{`5`, ""}, {`true`, ""}, {`{}`, ""},
	}
	cases["embed_origins"] = []wrong{
		{`"https://example.com"`, `Expected a list of items but got type "str".`},
		{`5`, `Expected a list of items but got type "int".`}, {`true`, ""}, {`{}`, ""},
	}
	cases["responding_duration_type"] = []wrong{{`"1"`, msgNotInt}, {`true`, msgNotInt}, {`1.5`, msgNotInt}, {`[1]`, msgNotInt}, {`null`, msgNull}}
	for _, field := range settingsFields() {
		if len(cases[field]) == 0 {
			t.Errorf("no wrong-type case for %s", field)
		}
		for _, c := range cases[field] {
			fieldError(t, field+" "+c.value, f.patch(t, sid, fmt.Sprintf(`{%q: %s}`, field, c.value)), field, c.msg)
		}
	}
	// The survey object and its fields.
	for _, c := range []struct{ body, want string }{
		{`{"survey": "x"}`, `{"survey": {"non_field_errors": ["Invalid data. Expected a dictionary, but got str."]}}`},
		{`{"survey": 5}`, `{"survey": {"non_field_errors": ["Invalid data. Expected a dictionary, but got int."]}}`},
		{`{"survey": ["x"]}`, `{"survey": {"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}}`},
		{`{"survey": {"name": 5}}`, `{"survey": {"name": ["Not a valid string."]}}`},
		{`{"survey": {"language": "1"}}`, `{"survey": {"language": ["A valid integer is required."]}}`},
		{`{"survey": {"language": 1.5}}`, `{"survey": {"language": ["A valid integer is required."]}}`},
		{`{"survey": {"is_stopped": "true"}}`, `{"survey": {"is_stopped": ["Must be a valid boolean."]}}`},
		{`{"survey": {"is_stopped": null}}`, `{"survey": {"is_stopped": ["This field may not be null."]}}`},
	} {
		check(t, c.body, f.patch(t, sid, c.body), 400, c.want)
	}
	check(t, "survey null", f.patch(t, sid, `{"survey": null}`), 400, nil)
	// Every field wrong at once: every one is reported.
	all := map[string]json.RawMessage{"survey": json.RawMessage(`{"name": 5}`)}
	for _, field := range settingsFields() {
		all[field] = json.RawMessage(cases[field][0].value)
	}
	r := f.patch(t, sid, all)
	if r.code != 400 {
		t.Errorf("every field wrong: %v", r)
	} else if got := slices.Sorted(maps.Keys(decodeMap(t, r.body))); !slices.Equal(got, allKeys()) {
		t.Errorf("every field wrong: errors for %q, want %q", got, allKeys())
	}
	sameSettings(t, "GET after", f.get(t, sid), defaults("Types"))
}

func TestSurveyObjectErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Survey object")
	for _, c := range []struct{ body, want string }{
		{`{"survey": {"name": ""}}`, `{"survey": {"name": ["This field may not be blank."]}}`},
		{`{"survey": {"name": "   "}}`, `{"survey": {"name": ["This field may not be blank."]}}`},
		{`{"survey": {"name": null}}`, `{"survey": {"name": ["This field may not be null."]}}`},
		{fmt.Sprintf(`{"survey": {"name": %q}}`, strings.Repeat("ن", 256)), `{"survey": {"name": ["Ensure this field has no more than 255 characters."]}}`},
		{`{"survey": {"language": null}}`, `{"survey": {"language": ["This field may not be null."]}}`},
		{`{"survey": {"name": "", "language": "x"}, "hide_next_button": "x"}`,
			`{"survey": {"name": ["This field may not be blank."], "language": ["A valid integer is required."]}, "hide_next_button": ["Must be a valid boolean."]}`},
	} {
		check(t, c.body, f.patch(t, sid, c.body), 400, c.want)
	}
	for _, lang := range []string{"0", "5", "99", "-1"} {
		r := f.patch(t, sid, `{"survey": {"language": `+lang+`}}`)
		if r.code != 400 {
			t.Errorf("language %s: %v", lang, r)
			continue
		}
		inner, _ := decodeMap(t, r.body)["survey"].(map[string]any)
		if msgs, _ := inner["language"].([]any); len(msgs) != 1 || len(inner) != 1 {
			t.Errorf("language %s: %s", lang, r.body)
		}
	}
	check(t, "255 characters", f.patch(t, sid, fmt.Sprintf(`{"survey": {"name": %q}}`, strings.Repeat("ن", 255))), 200, nil)
	if sv := f.coll(t, sid).Survey; sv.Name != strings.Repeat("ن", 255) || sv.Language != 1 {
		t.Errorf("survey item: %q %d", sv.Name, sv.Language)
	}
}

func TestBodies(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Bodies")
	check(t, "[]", f.patch(t, sid, `[]`), 400, `{"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}`)
	check(t, `[{"hide_next_button": true}]`, f.patch(t, sid, `[{"hide_next_button": true}]`), 400, `{"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}`)
	check(t, `"x"`, f.patch(t, sid, `"x"`), 400, `{"non_field_errors": ["Invalid data. Expected a dictionary, but got str."]}`)
	r := f.patch(t, sid, `null`)
	if m := decodeMap(t, r.body); r.code != 400 || m["non_field_errors"] == nil || len(m) != 1 {
		t.Errorf("null: %v", r)
	}
	for _, body := range []string{`{`, `{"hide_next_button": tru}`, `not json`, `{"a": 1} {"b": 2}`, `{"hide_next_button": true,}`} {
		r := f.patch(t, sid, body)
		m := decodeMap(t, r.body)
		if detail, _ := m["detail"].(string); r.code != 400 || len(m) != 1 || !strings.HasPrefix(detail, "JSON parse error - ") {
			t.Errorf("%s: %v", body, r)
		}
	}
	body := `{"hide_next_button": true}`
	check(t, "text/plain", serve(f.h, "PATCH", settingsPath(sid), f.key, "text/plain", &body), 415, textPlain)
	check(t, "charset", serve(f.h, "PATCH", settingsPath(sid), f.key, "application/json; charset=utf-8", &body), 200, nil)
	check(t, "no content type", serve(f.h, "PATCH", settingsPath(sid), f.key, "", &body), 200, nil)
	check(t, "unknown fields ignored", f.patch(t, sid, `{"color": "red", "id": 5}`), 200, with(defaults("Bodies"), map[string]any{"hide_next_button": true}))
	sameSettings(t, "GET", f.get(t, sid), with(defaults("Bodies"), map[string]any{"hide_next_button": true}))
}

// TestTrashedSurvey: every write under a survey in the trash is 409; the
// reads still answer.
func TestTrashedSurvey(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanEnterprise)
	sid := f.newSurvey(t, "Trashed")
	if r := f.do("POST", codesPath(sid), `["one", "two"]`); r.code != 201 {
		t.Fatalf("seed codes: %v", r)
	}
	if err := f.st.TrashSurvey(t.Context(), f.acct.ID, sid); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{`{"hide_next_button": true}`, `{"survey": {"name": "x"}}`, `{"survey": {"is_stopped": true}}`,
		`{"expiration_date": "2026-07-01"}`, `{"code_auth": true}`, `{}`} {
		check(t, "PATCH "+body, f.patch(t, sid, body), 409, deleted)
	}
	check(t, "POST codes", f.do("POST", codesPath(sid), `["three"]`), 409, deleted)
	check(t, "DELETE codes", f.do("DELETE", codesPath(sid), `["one"]`), 409, deleted)
	check(t, "DELETE every code", f.do("DELETE", codesPath(sid), ""), 409, deleted)
	sameSettings(t, "GET settings of a trashed survey", f.get(t, sid), defaults("Trashed"))
	if got := f.allCodes(t, sid); !slices.Equal(got, []string{"one", "two"}) {
		t.Errorf("codes of the trashed survey: %q", got)
	}
	if sv := f.coll(t, sid).Survey; sv.Name != "Trashed" || sv.IsStopped || !sv.Deleted {
		t.Errorf("survey item: %+v", sv)
	}
}

// TestForeignAndBadIDs: another account's survey answers exactly as a
// missing one, on every route; non-ids are 404.
func TestForeignAndBadIDs(t *testing.T) {
	t.Parallel()
	owner := newFixture(t, survey.PlanEnterprise)
	other := newFixture(t, survey.PlanEnterprise)
	sid := owner.newSurvey(t, "Private")
	if r := owner.do("POST", codesPath(sid), `["secret"]`); r.code != 201 {
		t.Fatalf("seed codes: %v", r)
	}
	ids := []any{sid, missingID, "abc", "0", "-1", "1.5", "99999999999", "1e3"}
	for _, id := range ids {
		check(t, fmt.Sprintf("GET settings %v", id), other.do("GET", settingsPath(id), ""), 404, notFound)
		check(t, fmt.Sprintf("PATCH settings %v", id), other.do("PATCH", settingsPath(id), `{"hide_next_button": true}`), 404, notFound)
		check(t, fmt.Sprintf("PATCH settings {} %v", id), other.do("PATCH", settingsPath(id), `{}`), 404, notFound)
		check(t, fmt.Sprintf("PATCH survey name %v", id), other.do("PATCH", settingsPath(id), `{"survey": {"name": "Mine"}}`), 404, notFound)
		check(t, fmt.Sprintf("GET codes %v", id), other.do("GET", codesPath(id), ""), 404, notFound)
		check(t, fmt.Sprintf("POST codes %v", id), other.do("POST", codesPath(id), `["x"]`), 404, notFound)
		check(t, fmt.Sprintf("DELETE codes %v", id), other.do("DELETE", codesPath(id), `["secret"]`), 404, notFound)
		check(t, fmt.Sprintf("DELETE every code %v", id), other.do("DELETE", codesPath(id), ""), 404, notFound)
	}
	for _, id := range ids[1:] {
		check(t, fmt.Sprintf("owner GET settings %v", id), owner.do("GET", settingsPath(id), ""), 404, notFound)
		check(t, fmt.Sprintf("owner GET codes %v", id), owner.do("GET", codesPath(id), ""), 404, notFound)
	}
	sameSettings(t, "owner's settings", owner.get(t, sid), defaults("Private"))
	if got := owner.allCodes(t, sid); !slices.Equal(got, []string{"secret"}) {
		t.Errorf("owner's codes: %q", got)
	}
	if sv := owner.coll(t, sid).Survey; sv.Name != "Private" {
		t.Errorf("owner's survey renamed to %q", sv.Name)
	}
}

func TestMethodsAndAuth(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Methods")
	for _, m := range []string{"POST", "PUT", "DELETE"} {
		r := f.do(m, settingsPath(sid), `{}`)
		check(t, m+" settings", r, 405, fmt.Sprintf(`{"detail": "Method \"%s\" not allowed."}`, m))
		if a := r.header.Get("Allow"); a != "GET, PATCH, HEAD, OPTIONS" {
			t.Errorf("%s settings: Allow %q", m, a)
		}
	}
	for _, m := range []string{"PUT", "PATCH"} {
		r := f.do(m, codesPath(sid), `[]`)
		check(t, m+" codes", r, 405, fmt.Sprintf(`{"detail": "Method \"%s\" not allowed."}`, m))
		if a := r.header.Get("Allow"); a != "GET, POST, DELETE, HEAD, OPTIONS" {
			t.Errorf("%s codes: Allow %q", m, a)
		}
	}
	for _, p := range []string{settingsPath(sid), codesPath(sid)} {
		r := serve(f.h, "GET", p, "", "", nil)
		check(t, "no key "+p, r, 401, `{"detail": "Authentication credentials were not provided."}`)
		r = serve(f.h, "GET", p, "not-a-key", "", nil)
		check(t, "bad key "+p, r, 401, `{"detail": "Invalid API key."}`)
	}
}

// Authentication codes.

func TestCodesAdd(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree) // codes are not plan-gated
	sid := f.newSurvey(t, "Codes")
	empty := f.codePage(t, sid, "")
	if !jsonEqual([]byte(mustJSON(t, empty)), `{"count": 0, "next": null, "previous": null, "results": []}`) {
		t.Errorf("no codes: %v", empty)
	}
	r := f.do("POST", codesPath(sid), `[" b ", "a", "b", "A", "a", "کد۱", "\tZ9\n"]`)
	check(t, "POST array", r, 201, `["b", "a", "A", "کد۱", "Z9"]`)
	if n := f.count(t, sid); n != 5 {
		t.Errorf("count after the first POST: %d, want 5", n)
	}
	r = f.do("POST", codesPath(sid), `{"codes": ["c", "a", " c ", "A"]}`)
	check(t, "POST object", r, 201, `["c", "a", "A"]`)
	if n := f.count(t, sid); n != 6 {
		t.Errorf("count after the second POST (existing codes counted again?): %d, want 6", n)
	}
	want := []string{"A", "Z9", "a", "b", "c", "کد۱"}
	if got := f.allCodes(t, sid); !slices.Equal(got, want) {
		t.Errorf("codes %q, want %q", got, want)
	}
	// 100 characters after trimming, counted in code points.
	long := strings.Repeat("ک", 100)
	check(t, "100 characters", f.do("POST", codesPath(sid), mustJSON(t, []string{"  " + long + "  "})), 201, []string{long})
	check(t, "same again", f.do("POST", codesPath(sid), mustJSON(t, []string{long})), 201, []string{long})
	if n := f.count(t, sid); n != 7 {
		t.Errorf("count: %d, want 7", n)
	}
	body := `["d"]`
	check(t, "charset", serve(f.h, "POST", codesPath(sid), f.key, "application/json; charset=utf-8", &body), 201, `["d"]`)
	check(t, "no content type", serve(f.h, "POST", codesPath(sid), f.key, "", &body), 201, `["d"]`)
	if n := f.count(t, sid); n != 8 {
		t.Errorf("count: %d, want 8", n)
	}
}

func TestCodesPagination(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Pages")
	prefixes := []string{"Alpha", "alpha", "7", "کد", "zeta", "Zeta", "00", "بتا", "Äpfel", "_", "~", "9z"}
	codes := make([]string, 1100)
	for i := range codes {
		codes[i] = fmt.Sprintf("%s-%04d", prefixes[i%len(prefixes)], (i*7919)%10000)
	}
	// 100 through the API, the other 1000 straight into the table: the
	// emulator's transactions slow down with every item already there.
	r := f.do("POST", codesPath(sid), mustJSON(t, codes[:100]))
	check(t, "POST 100", r, 201, codes[:100])
	testenv.SeedCodes(t, f.st, sid, codes[100:])
	sorted := slices.Sorted(slices.Values(codes)) // byte order
	base := "http://example.com" + codesPath(sid)

	page := func(query string, results []string, next, prev any) {
		t.Helper()
		r := f.do("GET", codesPath(sid)+query, "")
		want := map[string]any{"count": 1100, "next": next, "previous": prev, "results": results}
		check(t, "GET codes"+query, r, 200, want)
		t.Logf("GET codes%s: %d DynamoDB calls %v", query, r.calls.DynamoDB(), r.calls.Ops())
	}
	page("", sorted[:500], base+"?page=2", nil)
	page("?page=1", sorted[:500], base+"?page=2", nil)
	page("?page=2", sorted[500:1000], base+"?page=3", base)
	page("?page=3", sorted[1000:], nil, base+"?page=2")
	page("?page_size=300&page=2", sorted[300:600], base+"?page=3&page_size=300", base+"?page_size=300")
	page("?page_size=300&page=4", sorted[900:], nil, base+"?page=3&page_size=300")
	page("?page_size=5000", sorted, nil, nil)
	page("?page_size=1100", sorted, nil, nil)
	page("?page_size=1099&page=2", sorted[1099:], nil, base+"?page_size=1099")
	page("?page_size=1", sorted[:1], base+"?page=2&page_size=1", nil)
	page("?page_size=1&page=1100", sorted[1099:], nil, base+"?page=1099&page_size=1")

	for _, q := range []string{"?page=4", "?page=1000000", "?page_size=300&page=5", "?page_size=1&page=1101", "?page=0",
		"?page=-1", "?page=abc", "?page=1.5", "?page=", "?page=%20"} {
		check(t, "GET codes"+q, f.do("GET", codesPath(sid)+q, ""), 404, invalidPage)
	}
	for _, q := range []string{"?page_size=0", "?page_size=abc", "?page_size=-5", "?page_size=100000", "?page_size=5001", "?page_size=1.5"} {
		fieldError(t, "GET codes"+q, f.do("GET", codesPath(sid)+q, ""), "page_size", "")
	}
	// An empty survey has page 1 only.
	other := f.newSurvey(t, "No codes")
	check(t, "empty page 1", f.do("GET", codesPath(other), ""), 200, `{"count": 0, "next": null, "previous": null, "results": []}`)
	check(t, "empty page 2", f.do("GET", codesPath(other)+"?page=2", ""), 404, invalidPage)
}

// TestCodesPostErrors: every invalid upload is refused whole: nothing of it
// is written.
func TestCodesPostErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Bad codes")
	check(t, "seed", f.do("POST", codesPath(sid), `["keep"]`), 201, `["keep"]`)
	many := make([]string, 5001)
	for i := range many {
		many[i] = fmt.Sprintf("fresh-%d", i)
	}
	long := strings.Repeat("a", 101)
	cases := []struct {
		name, body string
		index      string // the item an error is keyed by, if any
	}{
		{"empty list", `[]`, ""},
		{"empty codes", `{"codes": []}`, ""},
		{"no codes key", `{}`, ""},
		{"codes a string", `{"codes": "x"}`, ""},
		{"codes null", `{"codes": null}`, ""},
		{"a string", `"fresh"`, ""},
		{"a number", `5`, ""},
		{"null", `null`, ""},
		{"5001 codes", mustJSON(t, many), ""},
		{"5001 codes in an object", mustJSON(t, map[string]any{"codes": many}), ""},
		{"101 characters", mustJSON(t, []string{"fresh", long}), "1"},
		{"101 Persian characters", mustJSON(t, []string{"fresh", strings.Repeat("ک", 101)}), "1"},
		{"newline", `["fresh", "a\nb"]`, "1"},
		{"carriage return", `["fresh", "a\rb"]`, "1"},
		{"tab inside", `["fresh", "a\tb"]`, "1"},
		{"bell", `["fresh", "a\u0007b"]`, "1"},
		{"NUL", `["fresh", "\u0000"]`, "1"},
		{"DEL", `["fresh", "a\u007fb"]`, "1"},
		{"C1 control", `["fresh", "a\u0085b"]`, "1"},
		{"non-string item", `["fresh", 5]`, "1"},
		{"null item", `["fresh", null]`, "1"},
		{"list item", `["fresh", ["x"]]`, "1"},
		{"blank item", `["fresh", ""]`, "1"},
		{"spaces item", `["fresh", "   "]`, "1"},
		{"bad item in an object", `{"codes": ["fresh", 5]}`, "1"},
		{"not JSON", `["fresh"`, ""},
	}
	for _, c := range cases {
		r := f.do("POST", codesPath(sid), c.body)
		if r.code != 400 {
			t.Errorf("%s: %v, want 400", c.name, r)
			continue
		}
		if c.index != "" {
			m := decodeMap(t, r.body)
			found := false
			for _, v := range m {
				if nested, ok := v.(map[string]any); ok && nested[c.index] != nil && len(nested) == 1 {
					found = true
				}
			}
			if !found || len(m) != 1 {
				t.Errorf("%s: body %s, want an error keyed by item %s", c.name, r.body, c.index)
			}
		}
	}
	check(t, "no body", f.do("POST", codesPath(sid), ""), 400, nil)
	body := `["fresh"]`
	check(t, "text/plain", serve(f.h, "POST", codesPath(sid), f.key, "text/plain", &body), 415, textPlain)
	if n := f.count(t, sid); n != 1 {
		t.Errorf("count after the refusals: %d, want 1", n)
	}
	if got := f.allCodes(t, sid); !slices.Equal(got, []string{"keep"}) {
		t.Errorf("codes after the refusals: %q", got)
	}
}

func TestCodesDelete(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Delete codes")
	check(t, "seed", f.do("POST", codesPath(sid), `["a", "b", "c", "d", "e", "f"]`), 201, nil)
	steps := []struct {
		body string
		want []string
	}{
		{`["a", "unknown", "b"]`, []string{"c", "d", "e", "f"}},
		{`[]`, []string{"c", "d", "e", "f"}},
		{`{"codes": []}`, []string{"c", "d", "e", "f"}},
		{`["d", "d", " d "]`, []string{"c", "e", "f"}},
		{`{"codes": ["c", "nope"]}`, []string{"e", "f"}},
		{`["a", "b"]`, []string{"e", "f"}},
	}
	for _, s := range steps {
		r := f.do("DELETE", codesPath(sid), s.body)
		check(t, "DELETE "+s.body, r, 204, nil)
		if len(r.body) != 0 {
			t.Errorf("DELETE %s: 204 with a body %q", s.body, r.body)
		}
		if n := f.count(t, sid); n != len(s.want) {
			t.Errorf("count after DELETE %s: %d, want %d", s.body, n, len(s.want))
		}
		if got := f.allCodes(t, sid); !slices.Equal(got, s.want) {
			t.Errorf("codes after DELETE %s: %q, want %q", s.body, got, s.want)
		}
	}
	// Invalid bodies delete nothing.
	body := `["e"]`
	check(t, "text/plain", serve(f.h, "DELETE", codesPath(sid), f.key, "text/plain", &body), 415, textPlain)
	for _, b := range []string{`[5]`, `["e", "a\nb"]`, `{"codes": "e"}`, `"e"`, `[`, `null`, `   `} {
		check(t, "DELETE "+b, f.do("DELETE", codesPath(sid), b), 400, nil)
	}
	if got := f.allCodes(t, sid); !slices.Equal(got, []string{"e", "f"}) {
		t.Errorf("codes after invalid DELETEs: %q", got)
	}
	// No body at all: every code goes.
	check(t, "POST more", f.do("POST", codesPath(sid), `["g", "h", "i"]`), 201, nil)
	r := f.do("DELETE", codesPath(sid), "")
	check(t, "DELETE with no body", r, 204, nil)
	t.Logf("DELETE every code (5 codes): %d DynamoDB calls %v", r.calls.DynamoDB(), r.calls.Ops())
	check(t, "codes after DELETE with no body", f.do("GET", codesPath(sid), ""), 200, `{"count": 0, "next": null, "previous": null, "results": []}`)
	check(t, "DELETE with no body again", f.do("DELETE", codesPath(sid), ""), 204, nil)
	check(t, "POST after clearing", f.do("POST", codesPath(sid), `["e", "z"]`), 201, `["e", "z"]`)
	if n := f.count(t, sid); n != 2 {
		t.Errorf("count after clearing and adding 2: %d", n)
	}
}

// TestCodes5000: the largest upload, over 1 MiB of body, in one request.
// Most of its codes are put in the table first (testenv.SeedCodes): the
// emulator copies the whole table for every action of a transaction, so
// 5,000 new codes would take minutes there (the benchmark measures them).
func TestCodes5000(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "5000 codes")
	codes := make([]string, 5000)
	for i := range codes {
		// 100 code points, 3 bytes each but the 5 digits: ~1.45 MB of body.
		codes[i] = fmt.Sprintf("%05d", i) + strings.Repeat("€", 95)
	}
	body := mustJSON(t, codes)
	if len(body) <= 1<<20 {
		t.Fatalf("body of %d bytes is not over 1 MiB", len(body))
	}
	const fresh = 5 // the last 5 codes of the request are new
	testenv.SeedCodes(t, f.st, sid, codes[:len(codes)-fresh])
	start := time.Now()
	r := f.do("POST", codesPath(sid), body)
	wall := time.Since(start)
	check(t, "POST 5000", r, 201, codes)
	t.Logf("POST 5000 codes, %d new (%d bytes): %v wall, %d DynamoDB calls %v", fresh, len(body), wall, r.calls.DynamoDB(), r.calls.Ops())
	// One count read, a check of each of the 51 chunks, one transaction.
	if ops := r.calls.Ops(); ops["DynamoDB.BatchGetItem"] != 52 || ops["DynamoDB.TransactWriteItems"] != 1 {
		t.Errorf("POST 5000 codes, %d new: calls %v, want 52 BatchGetItem and 1 TransactWriteItems", fresh, ops)
	}
	if n := f.count(t, sid); n != 5000 {
		t.Errorf("count: %d, want 5000", n)
	}
	p := f.do("GET", codesPath(sid)+"?page_size=5000", "")
	if p.code != 200 {
		t.Fatalf("GET 5000: %v", p)
	}
	if got := strs(t, decodeMap(t, p.body)["results"]); !slices.Equal(got, slices.Sorted(slices.Values(codes))) {
		t.Errorf("GET page_size=5000: %d codes, not the 5000 in byte order", len(got))
	}
	t.Logf("GET page_size=5000: %d DynamoDB calls %v", p.calls.DynamoDB(), p.calls.Ops())

	start = time.Now()
	r = f.do("POST", codesPath(sid), body)
	t.Logf("POST the same 5000 again: %v wall, %d DynamoDB calls %v", time.Since(start), r.calls.DynamoDB(), r.calls.Ops())
	check(t, "POST the same 5000", r, 201, codes)
	if n := r.calls.Ops()["DynamoDB.TransactWriteItems"]; n != 0 {
		t.Errorf("POST the same 5000 again: %d transactions, want none", n)
	}
	if n := f.count(t, sid); n != 5000 {
		t.Errorf("count after re-uploading the same codes: %d, want 5000", n)
	}
	check(t, "5001", f.do("POST", codesPath(sid), mustJSON(t, append(slices.Clone(codes), "one more"))), 400, nil)
	if n := f.count(t, sid); n != 5000 {
		t.Errorf("count after 5001: %d", n)
	}
	check(t, "DELETE the new codes", f.do("DELETE", codesPath(sid), mustJSON(t, codes[len(codes)-fresh:])), 204, nil)
	if n := f.count(t, sid); n != 5000-fresh {
		t.Errorf("count after DELETE: %d, want %d", n, 5000-fresh)
	}
}
