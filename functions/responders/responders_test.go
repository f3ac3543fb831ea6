package responders_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/kms"

	"surveyservice/functions/responders"
	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const (
	authenticated = `{"authenticated":true}`
	notFound      = `{"detail":"Not found."}`
)

func authPath(slug string) string { return "/api/public/surveys/" + slug + "/authenticate/" }

// reply is one answer of the handler and the DynamoDB calls it made.
type reply struct {
	code   int
	body   string
	header http.Header
	calls  int
	ops    map[string]int
}

// send sends one request; headers are name, value pairs.
func send(t testing.TB, h http.Handler, method, path, body string, headers ...string) reply {
	t.Helper()
	req := testenv.NewRequest(method, path, "", "", testenv.Body(body))
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	r := testenv.Serve(h, req)
	return reply{code: r.Code, body: string(r.Body), header: r.Header, calls: r.Calls.DynamoDB(), ops: r.Calls.Ops()}
}

// authenticate posts {"code": code} as JSON, without an API key.
func authenticate(t testing.TB, h http.Handler, slug, code string) reply {
	t.Helper()
	body, err := json.Marshal(map[string]string{"code": code})
	if err != nil {
		t.Fatal(err)
	}
	return send(t, h, "POST", authPath(slug), string(body), "Content-Type", "application/json")
}

func (r reply) is(t testing.TB, code int, body string) {
	t.Helper()
	if r.code != code || r.body != body {
		t.Fatalf("got %d %s, want %d %s", r.code, r.body, code, body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
}

// refused checks a 403 and returns its body, which must be the same in
// every refused case.
func (r reply) refused(t testing.TB) string {
	t.Helper()
	if r.code != http.StatusForbidden {
		t.Fatalf("got %d %s, want 403", r.code, r.body)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(r.body), &v); err != nil {
		t.Fatalf("403 body %q is not JSON: %v", r.body, err)
	}
	return r.body
}

// fixture is an account of its own with a folder, in the test's table,
// served by a container of its own (its own store, sealer and clock).
type fixture struct {
	st     *store.Store
	sealer *links.Sealer
	h      http.Handler
	aid    int64
	fid    int64
	// skew moves the container's clock (the store's and the handlers'
	// alike), in nanoseconds.
	skew *atomic.Int64
	// held, when not zero, is the instant (Unix nanoseconds) the clock
	// stands at (before skew): hold.
	held *atomic.Int64
}

// container is a Lambda container on the test's table: its own clients,
// store (slug cache, id leases, clock) and sealer (data key cache).
func container(tb testing.TB) (*store.Store, *links.Sealer) {
	tb.Helper()
	env := map[string]string{
		"AWS_ENDPOINT_URL": testenv.Endpoint(tb), "AWS_REGION": "us-east-1",
		"AWS_ACCESS_KEY_ID": testenv.AccessKey(tb), "AWS_SECRET_ACCESS_KEY": "test",
	}
	cfg, err := localaws.Load(context.Background(), awsenv.FromEnv(func(k string) string { return env[k] }))
	if err != nil {
		tb.Fatal(err)
	}
	st := store.New(cfg, testenv.Store(tb).TableName())
	return st, links.NewSealer(kms.NewFromConfig(cfg), testenv.KMSKeyID(tb), st)
}

func newFixture(tb testing.TB) fixture {
	tb.Helper()
	testenv.KeepErrorLog(tb)
	st, sealer := container(tb)
	skew, held := &atomic.Int64{}, &atomic.Int64{}
	st.Now = func() time.Time {
		if h := held.Load(); h != 0 {
			return time.Unix(0, h).Add(time.Duration(skew.Load()))
		}
		return time.Now().Add(time.Duration(skew.Load()))
	}
	a, _ := testenv.NewAccount(tb, survey.PlanEnterprise)
	fo, err := st.CreateFolder(context.Background(), a.ID, "Public", nil)
	if err != nil {
		tb.Fatal(err)
	}
	// The handlers read the store's clock, so that a test that replaces it
	// moves both.
	now := func() time.Time { return st.Now() }
	return fixture{st: st, sealer: sealer, h: testenv.Conform(responders.New(responders.Deps{Store: st, Sealer: sealer, Now: now})), aid: a.ID, fid: fo.ID, skew: skew, held: held}
}

// hold stops the fixture's clock where it is (advance still moves it):
// for a test whose counts live in a window of time (a minute's failed
// guesses), which a loaded machine's slow requests must not straddle.
func (f fixture) hold() { f.held.Store(time.Now().UnixNano()) }

// advance moves the fixture's clock forward.
func (f fixture) advance(d time.Duration) { f.skew.Add(int64(d)) }

// survey creates a survey with the given settings and codes and returns its
// public slug and id.
func (f fixture) survey(t testing.TB, set map[string]any, codes ...string) (string, int64) {
	t.Helper()
	ctx := context.Background()
	sv, err := f.st.CreateSurvey(ctx, survey.Survey{AccountID: f.aid, FolderID: f.fid, Name: "Coded", Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	if len(set) > 0 {
		if err := f.st.UpdateSettings(ctx, f.aid, sv.ID, store.SettingsUpdate{Set: set}); err != nil {
			t.Fatalf("settings %v: %v", set, err)
		}
	}
	if len(codes) > 0 {
		if err := f.st.AddCodes(ctx, f.aid, sv.ID, codes); err != nil {
			t.Fatalf("add codes: %v", err)
		}
	}
	if sv.URLSlug == "" || !survey.ValidSlug(sv.URLSlug) {
		t.Fatalf("survey %d has slug %q", sv.ID, sv.URLSlug)
	}
	return sv.URLSlug, sv.ID
}

var (
	shared = map[string]any{"code_auth": true, "code_auth_is_unique": false}
	unique = map[string]any{"code_auth": true, "code_auth_is_unique": true}
	off    = map[string]any{"code_auth": false, "code_auth_is_unique": false}
)

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, _ := f.survey(t, shared, "alpha", "beta-2", "کد-۱۲", "with space")

	var refusals []string
	t.Run("existing code, repeatable", func(t *testing.T) {
		for i := range 3 {
			r := authenticate(t, f.h, slug, "alpha")
			r.is(t, 200, authenticated)
			if i == 0 {
				t.Logf("success: %d DynamoDB calls %v", r.calls, r.ops)
				if r.calls > 3 {
					t.Errorf("success made %d DynamoDB calls (%v), want at most 3", r.calls, r.ops)
				}
			}
		}
		for _, code := range []string{"beta-2", "کد-۱۲", "with space"} {
			authenticate(t, f.h, slug, code).is(t, 200, authenticated)
		}
	})
	t.Run("unknown code", func(t *testing.T) {
		for _, code := range []string{"gamma", "ALPHA", "alph", "alpha2", "beta"} {
			refusals = append(refusals, authenticate(t, f.h, slug, code).refused(t))
		}
	})
	t.Run("code_auth off", func(t *testing.T) {
		offSlug, _ := f.survey(t, off, "alpha", "delta")
		for _, code := range []string{"alpha", "delta", "unknown"} {
			refusals = append(refusals, authenticate(t, f.h, offSlug, code).refused(t))
		}
		// Settings never written: code_auth is off by default.
		bareSlug, _ := f.survey(t, nil, "alpha")
		refusals = append(refusals, authenticate(t, f.h, bareSlug, "alpha").refused(t))
	})
	t.Run("unique code", func(t *testing.T) {
		uSlug, uid := f.survey(t, unique, "once", "twice")
		// Checking a code does not spend it (contract 11 amends 7).
		for i := range 3 {
			r := authenticate(t, f.h, uSlug, "once")
			r.is(t, 200, authenticated)
			// The slug's read is cached after the first request.
			want := 2
			if i == 0 {
				want = 3
			}
			if r.calls > want || r.ops["DynamoDB.UpdateItem"]+r.ops["DynamoDB.PutItem"] > 0 {
				t.Errorf("check %d of a unique code made %d DynamoDB calls (%v), want %d reads", i, r.calls, r.ops, want)
			}
		}
		// The response that carries it does.
		if r := f.respond(t, uSlug, f.session(t, uSlug, map[string]any{"code": "once"}), nil); r.code != 201 {
			t.Fatalf("a response with the code: %d %s", r.code, r.body)
		}
		refusals = append(refusals, authenticate(t, f.h, uSlug, "once").refused(t))
		refusals = append(refusals, authenticate(t, f.h, uSlug, "once").refused(t))
		// The other code is still fresh.
		authenticate(t, f.h, uSlug, "twice").is(t, 200, authenticated)
		// An unknown code is refused and not invented by the attempt.
		refusals = append(refusals, authenticate(t, f.h, uSlug, "never").refused(t))
		codes, err := f.st.CodesPage(t.Context(), uid, 1, 500)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(codes, []string{"once", "twice"}) {
			t.Errorf("codes after the attempts %v, want [once twice]", codes)
		}
		// Uploading a spent code again keeps it spent.
		if err := f.st.AddCodes(t.Context(), f.aid, uid, []string{"once"}); err != nil {
			t.Fatal(err)
		}
		refusals = append(refusals, authenticate(t, f.h, uSlug, "once").refused(t))
	})
	if len(refusals) == 0 {
		t.Fatal("no refusal was recorded")
	}
	for i, body := range refusals {
		if body != refusals[0] {
			t.Errorf("refusal #%d body %s differs from refusal #0 %s", i, body, refusals[0])
		}
	}
	t.Logf("refusal body: %s", refusals[0])
}

// TestUniqueChecksRace: ten checks of the same unique code at once are all
// admitted (checking spends nothing) and the code stays fresh.
func TestUniqueChecksRace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, _ := f.survey(t, unique, "shared-once")
	const n = 10
	replies := make([]reply, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range replies {
		wg.Go(func() {
			<-start
			replies[i] = authenticate(t, f.h, slug, "shared-once")
		})
	}
	close(start)
	wg.Wait()
	for _, r := range replies {
		if r.code != 200 || r.body != authenticated {
			t.Errorf("unexpected answer %d %s", r.code, r.body)
		}
	}
	authenticate(t, f.h, slug, "shared-once").is(t, 200, authenticated)
}

func TestSlugs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, _ := f.survey(t, shared, "alpha")
	// A valid slug of no survey.
	unknown := survey.NewCode(survey.SlugLength)
	if unknown == slug {
		t.Fatal("drew the survey's own slug")
	}
	// Contract 7: "403 otherwise" — an unknown survey is refused like an
	// unknown code, with the same body, so the route tells nothing.
	authenticate(t, f.h, unknown, "alpha").refused(t)
	// The slug is exact.
	authenticate(t, f.h, strings.ToUpper(slug)+"X", "alpha").refused(t)

	for _, bad := range []string{"bad.slug", "bad%20slug", "a$b", "a%2Fb", "%00abc", "a%7Eb", strings.Repeat("a", survey.MaxSlugLength+1)} {
		t.Run(bad[:min(len(bad), 20)], func(t *testing.T) {
			r := authenticate(t, f.h, bad, "alpha")
			r.refused(t)
			if r.calls != 0 {
				t.Errorf("a malformed slug cost %d DynamoDB calls (%v), want 0", r.calls, r.ops)
			}
		})
	}
}

func TestBody(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, _ := f.survey(t, shared, "alpha", "5")
	path := authPath(slug)
	js := []string{"Content-Type", "application/json"}
	tests := []struct {
		name, body string
		headers    []string
		code       int
		want       string
	}{
		{"missing code", `{}`, js, 400, `{"code":["This field is required."]}`},
		{"other field only", `{"token":"alpha"}`, js, 400, `{"code":["This field is required."]}`},
		{"no body", ``, js, 400, `{"code":["This field is required."]}`},
		{"number", `{"code":5}`, js, 400, `{"code":["Not a valid string."]}`},
		{"list of code", `{"code":["alpha"]}`, js, 400, `{"code":["Not a valid string."]}`},
		{"null", `{"code":null}`, js, 400, `{"code":["This field may not be null."]}`},
		{"blank", `{"code":""}`, js, 400, `{"code":["This field may not be blank."]}`},
		{"array body", `[]`, js, 400, `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
		{"string body", `"alpha"`, js, 400, `{"non_field_errors":["Invalid data. Expected a dictionary, but got str."]}`},
		{"text/plain", `{"code":"alpha"}`, []string{"Content-Type", "text/plain"}, 415, `{"detail":"Unsupported media type \"text/plain\" in request."}`},
		{"form", `code=alpha`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, `{"detail":"Unsupported media type \"application/x-www-form-urlencoded\" in request."}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			send(t, f.h, "POST", path, tc.body, tc.headers...).is(t, tc.code, tc.want)
		})
	}
	t.Run("not JSON", func(t *testing.T) {
		r := send(t, f.h, "POST", path, `{"code": alpha}`, js...)
		if r.code != 400 || !strings.HasPrefix(r.body, `{"detail":"JSON parse error - `) {
			t.Fatalf("got %d %s, want 400 JSON parse error", r.code, r.body)
		}
	})
	t.Run("no content type is 415", func(t *testing.T) {
		send(t, f.h, "POST", path, `{"code":"alpha"}`).is(t, 415, `{"detail":"Unsupported media type \"\" in request."}`)
	})
	t.Run("string code 5 is a code", func(t *testing.T) {
		authenticate(t, f.h, slug, "5").is(t, 200, authenticated)
	})
}

func TestPublic(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, _ := f.survey(t, shared, "alpha")
	path := authPath(slug)
	body := `{"code":"alpha"}`
	for _, auth := range []string{"", "API-Key garbage", "API-Key svk_notakey", "Bearer x.y.z", "Basic Zm9vOmJhcg==", "nonsense"} {
		t.Run("Authorization "+auth, func(t *testing.T) {
			headers := []string{"Content-Type", "application/json"}
			if auth != "" {
				headers = append(headers, "Authorization", auth)
			}
			r := send(t, f.h, "POST", path, body, headers...)
			r.is(t, 200, authenticated)
			if r.header.Get("WWW-Authenticate") != "" {
				t.Errorf("WWW-Authenticate %q on a public route", r.header.Get("WWW-Authenticate"))
			}
		})
	}
	t.Run("without the final slash", func(t *testing.T) {
		send(t, f.h, "POST", strings.TrimSuffix(path, "/"), body, "Content-Type", "application/json").is(t, 200, authenticated)
	})
	for _, method := range []string{"GET", "PUT", "PATCH", "DELETE"} {
		t.Run(method, func(t *testing.T) {
			r := send(t, f.h, method, path, "", "Authorization", "API-Key garbage")
			r.is(t, 405, `{"detail":"Method \"`+method+`\" not allowed."}`)
			if got := r.header.Get("Allow"); got != "POST, OPTIONS" {
				t.Errorf("Allow %q, want \"POST, OPTIONS\"", got)
			}
		})
	}
}
