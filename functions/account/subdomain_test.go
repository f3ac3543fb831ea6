package account_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"surveyservice/functions/account"
	"surveyservice/functions/folders"
	"surveyservice/functions/surveys"
	"surveyservice/internal/conflict"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

const subdomainPath = "/api/account/subdomain/"

// freshName is a subdomain no other test claims.
func freshName(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, time.Now().UnixNano()%1e9, rand.IntN(1e6))
}

func subdomainHandler(st *store.Store) http.Handler {
	return testenv.Conform(account.New(account.Deps{Auth: api.NewAuthenticator(st), Store: st}))
}

func putSubdomain(h http.Handler, key, body string) testenv.Reply {
	return testenv.Serve(h, testenv.NewRequest("PUT", subdomainPath, key, "application/json", testenv.Body(body)))
}

func wantReply(t *testing.T, what string, r testenv.Reply, code int, body string) {
	t.Helper()
	if r.Code != code || body != "" && strings.TrimSpace(string(r.Body)) != body {
		t.Fatalf("%s: %d %s, want %d %s", what, r.Code, r.Body, code, body)
	}
}

const (
	takenBody    = `{"subdomain":["This subdomain is taken."]}`
	reservedBody = `{"subdomain":["This subdomain is reserved."]}`
	invalidBody  = `{"subdomain":["Enter a valid subdomain: 3-63 characters of a-z, 0-9 and -, not starting or ending with -."]}`
)

// TestSubdomainValidation: names are checked before the plan, the invalid
// message before the reserved one; capitals are accepted and answered
// lower-cased; the plan is Pro (contract section 23).
func TestSubdomainValidation(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	h := subdomainHandler(st)
	_, free := testenv.NewAccount(t, survey.PlanFree)
	_, pro := testenv.NewAccount(t, survey.PlanPro)
	upper := strings.ToUpper(freshName("caps"))
	tests := []struct {
		name, key, body string
		code            int
		want            string
	}{
		{"too short", pro, `{"subdomain": "ab"}`, 400, invalidBody},
		{"64 characters", pro, `{"subdomain": "` + strings.Repeat("a", 64) + `"}`, 400, invalidBody},
		{"leading hyphen", pro, `{"subdomain": "-acme"}`, 400, invalidBody},
		{"trailing hyphen", pro, `{"subdomain": "acme-"}`, 400, invalidBody},
		{"underscore", pro, `{"subdomain": "ac_me"}`, 400, invalidBody},
		{"dot", pro, `{"subdomain": "ac.me"}`, 400, invalidBody},
		{"non-ASCII", pro, `{"subdomain": "accmé"}`, 400, invalidBody},
		{"a Kelvin sign, which Unicode lower-cases to k", pro, `{"subdomain": "\u212A` + freshName("elvin") + `"}`, 400, invalidBody},
		{"an IDN's punycode: a Cyrillic look-alike of apple", pro, `{"subdomain": "xn--80ak6aa92e"}`, 400, reservedBody},
		{"punycode in capitals", pro, `{"subdomain": "XN--80AK6AA92E"}`, 400, reservedBody},
		{"hyphens third and fourth, as IDNA reserves", pro, `{"subdomain": "ab--` + freshName("cd") + `"}`, 400, reservedBody},
		{"reserved", pro, `{"subdomain": "www"}`, 400, reservedBody},
		{"reserved in capitals", pro, `{"subdomain": "API"}`, 400, reservedBody},
		{"reserved route prefix s is invalid first (too short)", pro, `{"subdomain": "s"}`, 400, invalidBody},
		{"status", pro, `{"subdomain": "status"}`, 400, reservedBody},
		{"missing", pro, `{}`, 400, `{"subdomain":["This field is required."]}`},
		{"not a string", pro, `{"subdomain": 5}`, 400, `{"subdomain":["Not a valid string."]}`},
		{"invalid on the free plan is 400 first", free, `{"subdomain": "a"}`, 400, invalidBody},
		{"free plan", free, `{"subdomain": "` + freshName("free") + `"}`, 403, `{"detail":"Subdomains need the Pro plan."}`},
		{"capitals answered lower-cased", pro, `{"subdomain": "` + upper + `"}`, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := putSubdomain(h, tt.key, tt.body)
			wantReply(t, tt.name, r, tt.code, tt.want)
			if tt.code == 200 && !strings.Contains(string(r.Body), `"subdomain":"`+strings.ToLower(upper)+`"`) {
				t.Errorf("answer %s, want the name lower-cased", r.Body)
			}
		})
	}
	if r := testenv.Serve(h, testenv.NewRequest("PUT", subdomainPath, pro, "text/plain", testenv.Body("acme"))); r.Code != 415 {
		t.Errorf("text/plain body: %d %s", r.Code, r.Body)
	}
}

// TestSubdomainLifecycle: claim, read, taken by another account, rename
// (the old name held: taken for others, claimable again by its account),
// release (held 30 days, then free), GET and DELETE 404 without one.
func TestSubdomainLifecycle(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	h := subdomainHandler(st)
	_, key := testenv.NewAccount(t, survey.PlanPro)
	_, other := testenv.NewAccount(t, survey.PlanEnterprise)
	first, second := freshName("first"), freshName("second")

	wantReply(t, "GET before a claim", testenv.Serve(h, testenv.NewRequest("GET", subdomainPath, key, "", nil)), 404, `{"detail":"Not found."}`)
	wantReply(t, "DELETE before a claim", testenv.Serve(h, testenv.NewRequest("DELETE", subdomainPath, key, "", nil)), 404, `{"detail":"Not found."}`)
	r := putSubdomain(h, key, `{"subdomain": "`+first+`"}`)
	wantReply(t, "claim", r, 200, "")
	var id int64
	if _, err := fmt.Sscanf(string(r.Body), `{"id":%d,`, &id); err != nil || id <= 0 {
		t.Fatalf("claim answered %s", r.Body)
	}
	obj := fmt.Sprintf(`{"id":%d,"subdomain":"%s","is_active":true}`, id, first)
	wantReply(t, "claim body", r, 200, obj)
	wantReply(t, "claim again (same name)", putSubdomain(h, key, `{"subdomain": "`+first+`"}`), 200, obj)
	wantReply(t, "GET", testenv.Serve(h, testenv.NewRequest("GET", subdomainPath, key, "", nil)), 200, obj)
	wantReply(t, "another account", putSubdomain(h, other, `{"subdomain": "`+strings.ToUpper(first)+`"}`), 400, takenBody)

	renamed := fmt.Sprintf(`{"id":%d,"subdomain":"%s","is_active":true}`, id, second)
	wantReply(t, "rename", putSubdomain(h, key, `{"subdomain": "`+second+`"}`), 200, renamed)
	wantReply(t, "the renamed name, for another account", putSubdomain(h, other, `{"subdomain": "`+first+`"}`), 400, takenBody)
	wantReply(t, "the new name, for another account", putSubdomain(h, other, `{"subdomain": "`+second+`"}`), 400, takenBody)
	wantReply(t, "the held name, claimed back by its account", putSubdomain(h, key, `{"subdomain": "`+first+`"}`), 200, obj)

	wantReply(t, "DELETE", testenv.Serve(h, testenv.NewRequest("DELETE", subdomainPath, key, "", nil)), 204, "")
	wantReply(t, "GET after DELETE", testenv.Serve(h, testenv.NewRequest("GET", subdomainPath, key, "", nil)), 404, `{"detail":"Not found."}`)
	wantReply(t, "the released name, for another account", putSubdomain(h, other, `{"subdomain": "`+first+`"}`), 400, takenBody)

	// 30 days on, both former names are free.
	later := testenv.Store(t)
	lst := store.New(testenv.Config(t), later.TableName())
	lst.Now = func() time.Time { return time.Now().Add(survey.SubdomainHold + time.Minute) }
	lh := subdomainHandler(lst)
	wantReply(t, "the released name after 30 days", putSubdomain(lh, other, `{"subdomain": "`+first+`"}`), 200, "")
	wantReply(t, "the renamed name after 30 days", putSubdomain(lh, key, `{"subdomain": "`+second+`"}`), 200, "")
}

// TestResolveSubdomain: an active name serves its account; a renamed one,
// within its hold, redirects to the account's current name; a released
// one serves nothing; an expired hold nothing.
func TestResolveSubdomain(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanPro)
	b, _ := testenv.NewAccount(t, survey.PlanPro)
	old, cur, gone := freshName("old"), freshName("cur"), freshName("gone")
	for _, c := range []struct {
		aid  int64
		name string
	}{{a.ID, old}, {a.ID, cur}, {b.ID, gone}} {
		if _, err := st.ClaimSubdomain(ctx, c.aid, c.name); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.ReleaseSubdomain(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	later := store.New(testenv.Config(t), st.TableName())
	later.Now = func() time.Time { return time.Now().Add(survey.SubdomainHold + time.Minute) }
	tests := []struct {
		name string
		st   *store.Store
		host string
		want store.SubdomainHost
	}{
		{"active", st, cur, store.SubdomainHost{AccountID: a.ID, Active: true}},
		{"renamed", st, old, store.SubdomainHost{AccountID: a.ID, Redirect: cur}},
		{"released", st, gone, store.SubdomainHost{}},
		{"unknown", st, freshName("never"), store.SubdomainHost{}},
		{"renamed, after the hold", later, old, store.SubdomainHost{}},
		{"active, 30 days on", later, cur, store.SubdomainHost{AccountID: a.ID, Active: true}},
	}
	for _, tt := range tests {
		got, err := tt.st.ResolveSubdomain(ctx, tt.host)
		if err != nil || got != tt.want {
			t.Errorf("%s: %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
	}
}

// TestSubdomainRacingClaims: 30 accounts claim one name at once on the
// conflict model (DynamoDB cancels contending transactions): exactly one
// 200, 29 × 400 taken, no 503 (contract sections 3 and 23).
func TestSubdomainRacingClaims(t *testing.T) {
	t.Parallel()
	cfg, p := testenv.ConflictConfig(t, conflict.DefaultHold)
	st := store.New(cfg, testenv.Store(t).TableName())
	h := subdomainHandler(st)
	keys := make([]string, 30)
	for i := range keys {
		_, keys[i] = testenv.NewAccount(t, survey.PlanPro)
		if r := testenv.Serve(h, testenv.NewRequest("GET", subdomainPath, keys[i], "", nil)); r.Code != 404 { // warms the key
			t.Fatalf("warm-up: %d %s", r.Code, r.Body)
		}
	}
	name := freshName("race")
	before := p.Conflicts()
	replies := make([]testenv.Reply, len(keys))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range keys {
		wg.Go(func() {
			<-start
			replies[i] = putSubdomain(h, keys[i], `{"subdomain": "`+name+`"}`)
		})
	}
	close(start)
	wg.Wait()
	n := map[string]int{}
	for _, r := range replies {
		n[fmt.Sprintf("%d %s", r.Code, strings.TrimSpace(string(r.Body)))]++
	}
	var out []string
	for k, c := range n {
		if strings.HasPrefix(k, "200 ") {
			k = "200"
		}
		out = append(out, fmt.Sprintf("%s ×%d", k, c))
	}
	sort.Strings(out)
	t.Logf("30 claims of one name: %s (%d conflicts)", strings.Join(out, ", "), p.Conflicts()-before)
	wins, taken := 0, 0
	for _, r := range replies {
		switch {
		case r.Code == 200:
			wins++
		case r.Code == 400 && strings.TrimSpace(string(r.Body)) == takenBody:
			taken++
		default:
			t.Errorf("a claim answered %d %s", r.Code, r.Body)
		}
	}
	if wins != 1 || taken != 29 {
		t.Fatalf("%d × 200 and %d × 400 taken, want 1 and 29", wins, taken)
	}
}

// TestSurveysShowTheSubdomain: the survey detail and every survey in the
// folder lists show the account's subdomain object at once, null without
// one (contract section 23).
func TestSurveysShowTheSubdomain(t *testing.T) {
	t.Parallel()
	o := testenv.NewOwner(t, survey.PlanPro, "Domains")
	sv := testenv.NewSurvey(t, o.Store, o.Account.ID, o.Folder, "Shown")
	sh := testenv.Conform(surveys.New(surveys.Deps{Auth: api.NewAuthenticator(o.Store), Store: o.Store, Now: time.Now}))
	fh := testenv.Conform(folders.New(folders.Deps{Auth: api.NewAuthenticator(o.Store), Store: o.Store, Now: time.Now}))
	ah := subdomainHandler(o.Store)
	paths := []struct{ name, path string }{
		{"detail", fmt.Sprintf("/api/v2/surveys/%d/", sv.ID)},
		{"folder list", "/api/folders/"},
		{"folder", fmt.Sprintf("/api/folders/%d/", o.Folder)},
	}
	check := func(when, want string) {
		t.Helper()
		for _, p := range paths {
			h := sh
			if p.name != "detail" {
				h = fh
			}
			r := testenv.Serve(h, testenv.NewRequest("GET", p.path, o.Key, "", nil))
			if r.Code != 200 || !strings.Contains(string(r.Body), `"subdomain":`+want) {
				t.Errorf("%s, %s: %d %s, want subdomain %s", when, p.name, r.Code, r.Body, want)
			}
		}
	}
	check("before a claim", "null")
	name := freshName("shown")
	r := putSubdomain(ah, o.Key, `{"subdomain": "`+name+`"}`)
	wantReply(t, "claim", r, 200, "")
	check("after the claim", strings.TrimSpace(string(r.Body)))
	wantReply(t, "release", testenv.Serve(ah, testenv.NewRequest("DELETE", subdomainPath, o.Key, "", nil)), 204, "")
	check("after the release", "null")
}
