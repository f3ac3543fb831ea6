package responders_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestCollectionCache: once a container has read a survey, a submission
// and a view read only a read copy of its state (its collection version;
// a submission's fence reads another), never the survey's whole item
// collection: exact DynamoDB calls asserted. An owner's change of
// elements, settings, variables, theme or name makes the next request of
// every container read the survey again, and it is answered under the
// change at once.
func TestCollectionCache(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	slug, sid := f.survey(t, nil)
	q := f.textQuestion(t, sid, "First", false)
	answers := map[string]any{fmt.Sprint(q): "hello"}

	f.respond(t, slug, f.session(t, slug, nil), answers).submitted(t)
	// The survey's first view, on another container, gives its views item
	// a count (a record, tallied): a view then adds itself to the item.
	if err := testenv.Container(t).CountView(ctx, f.aid, f.fid, sid); err != nil {
		t.Fatal(err)
	}
	testenv.Tally(t)
	before := f.st.CollectionCacheStats()
	r := f.respond(t, slug, f.session(t, slug, nil), answers)
	r.submitted(t)
	t.Logf("a submission on a warm container: %d DynamoDB calls %v", r.calls, r.ops)
	if want := map[string]int{"DynamoDB.GetItem": 2, "DynamoDB.TransactWriteItems": 1}; fmt.Sprint(r.ops) != fmt.Sprint(want) {
		t.Errorf("a warm submission made %v, want %v: a copy of the survey's state (its version), the transaction, the fence's read", r.ops, want)
	}
	v := send(t, f.h, "GET", surveyPath(slug), "")
	t.Logf("a view on a warm container: %d DynamoDB calls %v", v.calls, v.ops)
	if want := map[string]int{"DynamoDB.GetItem": 1, "DynamoDB.UpdateItem": 1}; v.code != 200 || fmt.Sprint(v.ops) != fmt.Sprint(want) {
		t.Errorf("a warm view: %d, made %v, want %v: a copy of the survey's state and the view's own count (a record when the minute's are full)",
			v.code, v.ops, want)
	}
	if got := f.st.CollectionCacheStats(); got.Hits-before.Hits != 2 || got.Misses != before.Misses {
		t.Errorf("cache %+v after %+v: want two hits, no miss", got, before)
	}

	// A second container warms its own copy.
	second := testenv.Container(t)
	second.Now = f.st.Now
	h2 := newHandler(second, f)
	if v := send(t, h2, "GET", surveyPath(slug), ""); v.code != 200 {
		t.Fatalf("the second container's view: %d %s", v.code, v.body)
	}

	// An owner adds a required question: the next submission of either
	// container reads the survey again and answers under it.
	req := f.textQuestion(t, sid, "Second", true)
	r = f.respond(t, slug, f.session(t, slug, nil), answers)
	if r.code != 400 || r.ops["DynamoDB.Query"] != 1 {
		t.Errorf("after a new required question: %d %s, calls %v; want 400 from a fresh Query", r.code, r.body, r.ops)
	}
	if v := send(t, h2, "GET", surveyPath(slug), ""); v.ops["DynamoDB.Query"] != 1 || !strings.Contains(v.body, "Second") {
		t.Errorf("the second container's view after the change: calls %v, body has the new question: %v", v.ops, strings.Contains(v.body, "Second"))
	}
	answers[fmt.Sprint(req)] = "there"
	r = f.respond(t, slug, f.session(t, slug, nil), answers)
	r.submitted(t)
	if r.ops["DynamoDB.Query"] != 0 {
		t.Errorf("the submission after the re-read Queried again: %v", r.ops)
	}

	// Settings: location required now; the next submission knows it.
	if err := f.st.UpdateSettings(ctx, f.aid, sid, store.SettingsUpdate{Set: map[string]any{"location_is_active": true, "location_is_required": true}}); err != nil {
		t.Fatal(err)
	}
	r = f.respond(t, slug, f.session(t, slug, nil), answers)
	r.is(t, 400, `{"location":["This survey needs your location."]}`)
	if r.ops["DynamoDB.Query"] != 1 {
		t.Errorf("after a settings change: calls %v, want one Query", r.ops)
	}

	// Variables: a new one is accepted at once.
	_, _, version, err := f.st.SurveyVariables(ctx, f.aid, sid)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.CreateVariables(ctx, f.aid, sid, nil, version, []survey.Variable{{Name: "source", Type: 1}}); err != nil {
		t.Fatal(err)
	}
	body := mustJSON(t, map[string]any{"session": f.session(t, slug, nil), "answers": answers, "variables": map[string]any{"source": "mail"},
		"location": map[string]any{"latitude": 1, "longitude": 2, "accuracy_m": 3}})
	r = f.submit(t, slug, newKey(), body)
	r.submitted(t)
	if r.ops["DynamoDB.Query"] != 1 {
		t.Errorf("after a variables change: calls %v, want one Query", r.ops)
	}

	// The theme (PATCH theme_id: SetSurveyTheme) moves the collection
	// version, on the survey item and on the read copies of its state: the
	// next view of the other container reads the survey again and shows
	// it, the one after from its copy. A public theme's fields are the
	// service's (contract section 22), so the change is to another public
	// theme.
	theme, ok := survey.PublicTheme(2)
	if !ok {
		t.Fatal("no public theme 2")
	}
	want := `"button_color":"` + theme.ButtonColor + `"`
	if v := send(t, h2, "GET", surveyPath(slug), ""); strings.Contains(v.body, `"theme":{"id":2,`) {
		t.Fatalf("the theme is already %s", v.body)
	}
	if err := f.st.SetSurveyTheme(ctx, f.aid, sid, 2); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if v := send(t, h2, "GET", surveyPath(slug), ""); !strings.Contains(v.body, `"theme":{"id":2,`) || !strings.Contains(v.body, want) || v.ops["DynamoDB.Query"] != 1-i {
			t.Errorf("view %d after a theme change: calls %v, body %s", i+1, v.ops, v.body)
		}
	}
	// So does a new name (PATCH name: UpdateSurvey).
	name := "Renamed"
	if err := f.st.UpdateSurvey(ctx, f.aid, sid, store.SurveyUpdate{Name: &name}); err != nil {
		t.Fatal(err)
	}
	if v := send(t, h2, "GET", surveyPath(slug), ""); !strings.Contains(v.body, `"name":"Renamed"`) {
		t.Errorf("the view after a rename: %s", v.body)
	}

	// A stop: the read copy of the state says so, and moves the version.
	stopped := true
	if err := f.st.UpdateSettings(ctx, f.aid, sid, store.SettingsUpdate{IsStopped: &stopped}); err != nil {
		t.Fatal(err)
	}
	if v := send(t, h2, "GET", surveyPath(slug), ""); !strings.Contains(v.body, `"state":"stopped"`) {
		t.Errorf("a stopped survey's first view: calls %v, body %s", v.ops, v.body)
	}
	if v := send(t, h2, "GET", surveyPath(slug), ""); !strings.Contains(v.body, `"state":"stopped"`) || v.ops["DynamoDB.Query"] != 0 {
		t.Errorf("a stopped survey's view from the cache: calls %v, body %s", v.ops, v.body)
	}
}
