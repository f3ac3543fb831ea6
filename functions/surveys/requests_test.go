package surveys_test

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"surveyservice/internal/testenv"
	"surveyservice/shared/survey"
)

// TestPathIDs: ids that cannot name a survey of the account answer 404, the
// same for another account's survey, which stays unchanged.
func TestPathIDs(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	mine := folder(t, f.st, f.acct.ID, "Mine")
	_, ownSID := f.create(t, mine, "Own")
	other, otherKey := testenv.NewAccount(t, survey.PlanEnterprise)
	theirFolder := folder(t, f.st, other.ID, "Theirs")
	them := &fixture{st: f.st, h: f.h, acct: other, key: otherKey}
	theirs, theirSID := them.create(t, theirFolder, "Theirs")
	malformed := []string{"abc", "0", "-1", "99999999999", "2147483648", "1.5", "1e3", "+1", "0x10", "%20"}
	ids := append(slices.Clone(malformed), fmt.Sprint(missingID), fmt.Sprint(theirSID))
	requests := []struct {
		method, suffix, body string
	}{
		{"GET", "", ""},
		{"PATCH", "", `{"name":"Hijacked"}`},
		{"PATCH", "", fmt.Sprintf(`{"folder_id":%d}`, mine)},
		{"PATCH", "", fmt.Sprintf(`{"folder_id":%d}`, theirFolder)},
		{"PATCH", "", `{}`},
		{"DELETE", "", ""},
		{"POST", "restore/", ""},
		{"POST", "restore/", fmt.Sprintf(`{"folder_id":%d}`, mine)},
	}
	for _, id := range ids {
		for _, rq := range requests {
			path := detailPath(id) + rq.suffix
			r := f.do(t, rq.method, path, rq.body)
			expect(t, rq.method+" "+path+" "+rq.body, r, 404, notFound)
			if slices.Contains(malformed, id) && r.calls != 0 {
				t.Errorf("%s %s: %d DynamoDB calls for an id that cannot exist, want 0", rq.method, path, r.calls)
			}
		}
	}
	// A trashed foreign survey answers 404 too, not 409.
	expect(t, "their DELETE", them.do(t, "DELETE", detailPath(theirSID), ""), 204, "")
	for _, rq := range requests {
		path := detailPath(theirSID) + rq.suffix
		expect(t, "trashed: "+rq.method+" "+path+" "+rq.body, f.do(t, rq.method, path, rq.body), 404, notFound)
	}
	expect(t, "their restore", them.do(t, "POST", restorePath(theirSID), ""), 200, "")
	sameDetail(t, "their survey afterwards", them.get(t, theirSID), theirs)
	checkListed(t, f.st, other.ID, theirSID, theirFolder)
	if got := listed(t, f.st, f.acct.ID, mine); !slices.Equal(got, []int64{ownSID}) {
		t.Errorf("my folder lists %v, want only %d", got, ownSID)
	}
	g := f.do(t, "GET", detailPath(ownSID), "")
	if g.code != 200 || g.calls != 2 { // the collection, the account's subdomain
		t.Errorf("GET own survey: %d in %d calls", g.code, g.calls)
	}
}

// TestMethodsAndAuth: 405 with DRF's Allow, 401 without a key.
func TestMethodsAndAuth(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	fid := folder(t, f.st, f.acct.ID, "A")
	orig, sid := f.create(t, fid, "Guarded")
	const (
		listAllow    = "POST, OPTIONS"
		detailAllow  = "GET, PATCH, DELETE, HEAD, OPTIONS"
		restoreAllow = "POST, OPTIONS"
	)
	methods := []struct {
		method, path, allow string
	}{
		{"GET", listPath, listAllow},
		{"GET", strings.TrimSuffix(listPath, "/"), listAllow},
		{"PUT", listPath, listAllow},
		{"DELETE", listPath, listAllow},
		{"PUT", detailPath(sid), detailAllow},
		{"POST", detailPath(sid), detailAllow},
		{"GET", restorePath(sid), restoreAllow},
		{"PUT", restorePath(sid), restoreAllow},
		{"DELETE", restorePath(sid), restoreAllow},
	}
	for _, m := range methods {
		t.Run(m.method+" "+m.path, func(t *testing.T) {
			r := f.do(t, m.method, m.path, "")
			expect(t, m.method, r, 405, fmt.Sprintf(`{"detail":"Method \"%s\" not allowed."}`, m.method))
			if got := r.header.Get("Allow"); got != m.allow {
				t.Errorf("Allow = %q, want %q", got, m.allow)
			}
		})
	}
	if r := f.do(t, "GET", detailPath(sid), ""); r.header.Get("Allow") != detailAllow {
		t.Errorf("GET detail: Allow = %q", r.header.Get("Allow"))
	}

	const noCreds = `{"detail":"Authentication credentials were not provided."}`
	const badKey = `{"detail":"Invalid API key."}`
	auth := []struct {
		name, method, path, header, body, want string
	}{
		{"create without a key", "POST", listPath, "", fmt.Sprintf(`{"name":"Sneaky","folder_id":%d}`, fid), noCreds},
		{"GET without a key", "GET", detailPath(sid), "", "", noCreds},
		{"PATCH without a key", "PATCH", detailPath(sid), "", `{"name":"Sneaky"}`, noCreds},
		{"DELETE without a key", "DELETE", detailPath(sid), "", "", noCreds},
		{"restore without a key", "POST", restorePath(sid), "", "", noCreds},
		{"405 without a key is 401 first", "GET", listPath, "", "", noCreds},
		{"bad id without a key is 401 first", "GET", detailPath("abc"), "", "", noCreds},
		{"another scheme", "DELETE", detailPath(sid), "Bearer " + f.key, "", noCreds},
		{"unknown key", "DELETE", detailPath(sid), "API-Key " + survey.NewKey(), "", badKey},
		{"empty key", "PATCH", detailPath(sid), "API-Key ", `{"name":"Sneaky"}`, badKey},
	}
	for _, a := range auth {
		t.Run(a.name, func(t *testing.T) {
			req := httptest.NewRequest(a.method, a.path, strings.NewReader(a.body))
			if a.header != "" {
				req.Header.Set("Authorization", a.header)
			}
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			f.h.ServeHTTP(rec, req)
			expect(t, a.name, reply{code: rec.Code, body: rec.Body.Bytes()}, 401, a.want)
			if got := rec.Header().Get("WWW-Authenticate"); got != "API-Key" {
				t.Errorf("WWW-Authenticate = %q", got)
			}
		})
	}
	sameDetail(t, "survey after refused requests", f.get(t, sid), orig)
	if got := listed(t, f.st, f.acct.ID, fid); !slices.Equal(got, []int64{sid}) {
		t.Errorf("folder lists %v, want only %d", got, sid)
	}
}
