package responders_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// keysOf collects every object key of a JSON document, at any depth.
func keysOf(tb testing.TB, body string) map[string]bool {
	tb.Helper()
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		tb.Fatalf("not JSON: %v: %s", err, body)
	}
	keys := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				keys[k] = true
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return keys
}

// TestResponderView: the survey as a responder sees it, and nothing of its
// owner's: no ids of the survey or its owner, no preview or report code,
// no counts, no correct_choice, no codes.
func TestResponderView(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	slug, sid := f.survey(t, map[string]any{"code_auth": true, "hide_progressbar": true, "responding_ duration": "00:10:00"}, "SECRET-CODE-1")
	q := f.textQuestion(t, sid, "Your name", true)
	quiz := f.choiceQuestion(t, sid, survey.TypeMultipleChoice, 1, "Paris", "Rome")
	if c, err := f.st.SurveyCollection(ctx, f.aid, sid); err != nil || c.Elements[quiz.ID].CorrectChoice == nil {
		t.Fatalf("the quiz has no answer key to hide: %v", err)
	}
	w := survey.NewElement(survey.TypeWelcome)
	w.Title = "Welcome"
	if _, err := f.st.CreateElement(ctx, f.aid, sid, w, survey.Placement{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.CreateVariables(ctx, f.aid, sid, nil, 0, []survey.Variable{{Name: "city", Type: 1}}); err != nil {
		t.Fatal(err)
	}
	sv, err := f.st.Survey(ctx, f.aid, sid)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := f.st.Account(ctx, f.aid)
	if err != nil {
		t.Fatal(err)
	}
	r := send(t, f.h, "GET", surveyPath(slug), "")
	if r.code != 200 {
		t.Fatalf("GET: %d %s", r.code, r.body)
	}
	t.Logf("responder view: %d DynamoDB calls %v; %s", r.calls, r.ops, r.body)
	var got struct {
		URLSlug   string `json:"url_slug"`
		Name      string `json:"name"`
		Language  string `json:"language"`
		State     string `json:"state"`
		Questions [][]struct {
			ID    int64  `json:"id"`
			Title string `json:"title"`
		} `json:"questions"`
		Welcome            []struct{ Title string } `json:"welcome"`
		HideProgressbar    bool                     `json:"hide_progressbar"`
		RespondingDuration *string                  `json:"responding_ duration"`
		CodeAuth           bool                     `json:"code_auth"`
		Variables          []string                 `json:"variables"`
	}
	if err := json.Unmarshal([]byte(r.body), &got); err != nil {
		t.Fatal(err)
	}
	if got.URLSlug != slug || got.Name != "Coded" || got.Language != "fa" || got.State != "open" || !got.HideProgressbar ||
		!got.CodeAuth || got.RespondingDuration == nil || *got.RespondingDuration != "00:10:00" ||
		len(got.Questions) != 2 || got.Questions[0][0].ID != q || got.Questions[1][0].ID != quiz.ID || len(got.Welcome) != 1 ||
		len(got.Variables) != 1 || got.Variables[0] != "city" {
		t.Errorf("responder view %+v", got)
	}
	keys := keysOf(t, r.body)
	for _, k := range []string{"preview_code", "report_code", "correct_choice", "submitted_responses", "views", "folder_id",
		"shared_by", "account_id", "codes", "code_count", "expiration_date", "active", "deleted"} {
		if keys[k] {
			t.Errorf("the responder view has %q", k)
		}
	}
	// Section 16: "settings" carries what a client needs of the responder
	// settings, and nothing else of the owner's.
	var set struct{ Settings map[string]any }
	if err := json.Unmarshal([]byte(r.body), &set); err != nil || len(set.Settings) != 13 {
		t.Errorf("settings %v", set.Settings)
	}
	for _, k := range []string{"captcha_needed", "no_spam", "edit_response_enabled", "location_is_active", "location_is_required",
		"location_description", "privacy_preserving_message_enabled", "branding_removal", "partial_responses",
		// Sign-in (section 18), so that a client knows before it asks.
		"service_auth", "phone_number_auth", "service_auth_domains", "auth_description"} {
		if _, ok := set.Settings[k]; !ok {
			t.Errorf("settings lack %s", k)
		}
	}
	for _, secret := range []string{sv.PreviewCode, sv.ReportCode, "SECRET-CODE-1", acct.Email, acct.LastName} {
		if strings.Contains(r.body, secret) {
			t.Errorf("the responder view holds %q", secret)
		}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.body), &top); err != nil || top["id"] != nil {
		t.Errorf("the responder view has the survey's id: %v", err)
	}
	if !strings.Contains(r.body, `"name":"Rome"`) {
		t.Errorf("the responder view lacks the quiz's choices")
	}
	if cc := r.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q", cc)
	}
	// The session's answer holds nothing of the owner's either.
	sr := f.startSession(t, slug, map[string]any{"code": "SECRET-CODE-1"})
	if sr.code != 201 || strings.Contains(sr.body, "SECRET-CODE-1") {
		t.Errorf("session: %d %s", sr.code, sr.body)
	}
	for k := range keysOf(t, sr.body) {
		if k != "session" && k != "started_at" && k != "values" && k != "choice_orders" && k != "language" {
			t.Errorf("the session answer has %q", k)
		}
	}

	t.Run("states", func(t *testing.T) {
		state := func() string {
			var v struct{ State string }
			r := send(t, f.h, "GET", surveyPath(slug), "")
			if err := json.Unmarshal([]byte(r.body), &v); err != nil || r.code != 200 {
				t.Fatalf("GET: %d %s", r.code, r.body)
			}
			return v.State
		}
		stop, go_ := true, false
		if err := f.st.UpdateSettings(ctx, f.aid, sid, store.SettingsUpdate{IsStopped: &stop}); err != nil {
			t.Fatal(err)
		}
		if s := state(); s != "stopped" {
			t.Errorf("state %q, want stopped", s)
		}
		yesterday := time.Now().UTC().AddDate(0, 0, -1).Format(survey.DateLayout)
		if err := f.st.UpdateSettings(ctx, f.aid, sid, store.SettingsUpdate{IsStopped: &go_, Expire: true, Expiration: yesterday}); err != nil {
			t.Fatal(err)
		}
		if s := state(); s != "closed" {
			t.Errorf("state %q, want closed", s)
		}
		if err := f.st.TrashSurvey(ctx, f.aid, sid); err != nil {
			t.Fatal(err)
		}
		send(t, f.h, "GET", surveyPath(slug), "").is(t, 404, notFound)
		send(t, f.h, "GET", surveyPath(survey.NewCode(survey.SlugLength)), "").is(t, 404, notFound)
		send(t, f.h, "GET", surveyPath("bad.slug"), "").is(t, 404, notFound)
	})
}

// TestViews: each GET counts one view, HEAD none; the owner sees the count
// in the folder list and the detail. A warm GET is one Query and one
// UpdateItem of the views item.
func TestViews(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid := f.survey(t, nil)
	for i := range 3 {
		r := send(t, f.h, "GET", surveyPath(slug), "")
		if r.code != 200 {
			t.Fatalf("GET: %d %s", r.code, r.body)
		}
		if i > 0 && (r.calls != 2 || r.ops["DynamoDB.GetItem"] != 1 || r.ops["DynamoDB.PutItem"] != 1) {
			t.Errorf("a warm GET made %v, want one GetItem (the survey item: the cached collection's version) and one PutItem (the view's record)", r.ops)
		}
	}
	for range 2 {
		r := send(t, f.h, "HEAD", surveyPath(slug), "")
		if r.code != 200 || r.body != "" || r.ops["DynamoDB.PutItem"] != 0 {
			t.Errorf("HEAD: %d %q %v", r.code, r.body, r.ops)
		}
	}
	// A conditional GET still counts: the responder opened the survey.
	etag := send(t, f.h, "GET", surveyPath(slug), "").header.Get("ETag")
	if r := send(t, f.h, "GET", surveyPath(slug), "", "If-None-Match", etag); r.code != 304 {
		t.Errorf("If-None-Match: %d", r.code)
	}
	wantViews(t, f, sid, 5)
}

func wantViews(t *testing.T, f fixture, sid, n int64) {
	t.Helper()
	testenv.Tally(t) // views are counted from the stream
	ctx := context.Background()
	tree, err := f.st.Folders(ctx, f.aid)
	if err != nil {
		t.Fatal(err)
	}
	listed := int64(-1)
	for _, sv := range tree.Surveys[f.fid] {
		if sv.ID == sid {
			listed = sv.Views
		}
	}
	c, err := f.st.SurveyCollection(ctx, f.aid, sid)
	if err != nil {
		t.Fatal(err)
	}
	if listed != n || c.Survey.Views != n {
		t.Errorf("views: folder list %d, detail %d; want %d", listed, c.Survey.Views, n)
	}
}

// TestViewsBurstWithSubmissions: views racing with submissions never make
// a submission fail; every view and every response is counted.
func TestViewsBurstWithSubmissions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid := f.survey(t, nil)
	const responses, views = 10, 40
	sessions := make([]string, responses)
	for i := range sessions {
		sessions[i] = f.session(t, slug, nil)
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	replies := make([]reply, responses+views)
	for i := range replies {
		wg.Go(func() {
			<-start
			if i < responses {
				replies[i] = f.respond(t, slug, sessions[i], nil)
			} else {
				replies[i] = send(t, f.h, "GET", surveyPath(slug), "")
			}
		})
	}
	close(start)
	wg.Wait()
	for i, r := range replies {
		if want := map[bool]int{true: 201, false: 200}[i < responses]; r.code != want {
			t.Errorf("request %d answered %d %.200s, want %d", i, r.code, r.body, want)
		}
	}
	f.wantStored(t, "after the burst", sid, responses)
	wantViews(t, f, sid, views)
}
