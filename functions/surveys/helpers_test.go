package surveys_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"

	"surveyservice/functions/surveys"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const (
	listPath = "/api/v2/surveys/"
	// missingID is a valid id that no folder or survey ever gets (ids are
	// handed out from small numbers up).
	missingID  = math.MaxInt32
	deleted    = `{"detail":"Survey is deleted."}`
	notFound   = `{"detail":"Not found."}`
	folderGone = `{"detail":"The survey's folder no longer exists; send folder_id."}`
)

func detailPath(id any) string  { return fmt.Sprintf("/api/v2/surveys/%v/", id) }
func restorePath(id any) string { return fmt.Sprintf("/api/v2/surveys/%v/restore/", id) }

// invalidPK is DRF's body for a folder_id that names no folder of the account.
func invalidPK(id int64) string {
	return fmt.Sprintf(`{"folder_id":["Invalid pk \"%d\" - object does not exist."]}`, id)
}

// reply is one answer of the handler and the DynamoDB calls it made.
type reply struct {
	code   int
	body   []byte
	header http.Header
	calls  int
}

// serve sends one request; a non-empty body is sent with contentType.
func serve(t *testing.T, h http.Handler, method, path, key, contentType, body string) reply {
	t.Helper()
	r := testenv.Serve(h, testenv.NewRequest(method, path, key, contentType, testenv.Body(body)))
	return reply{code: r.Code, body: r.Body, header: r.Header, calls: r.Calls.DynamoDB()}
}

// fixture is one account of its own, its key, and the group's handler.
type fixture struct {
	st   *store.Store
	h    http.Handler
	acct survey.Account
	key  string
}

func newFixture(t *testing.T, clock func() time.Time) *fixture {
	t.Helper()
	o := testenv.NewOwner(t, survey.PlanPro, "")
	f := &fixture{st: o.Store, h: testenv.Conform(surveys.New(surveys.Deps{Auth: api.NewAuthenticator(o.Store), Store: o.Store, Now: clock})), acct: o.Account, key: o.Key}
	// Warm the authenticator: later counts are the handler's own calls.
	o.Warm(t, f.h, detailPath("warm"), 404)
	return f
}

// do sends a request with the fixture's key; a body goes as JSON.
func (f *fixture) do(t *testing.T, method, path, body string) reply {
	t.Helper()
	ct := ""
	if body != "" {
		ct = "application/json"
	}
	return serve(t, f.h, method, path, f.key, ct, body)
}

// folder creates a live folder of the account through the store.
func folder(t *testing.T, st *store.Store, aid int64, name string) int64 {
	t.Helper()
	fo, err := st.CreateFolder(t.Context(), aid, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fo.ID
}

// deletedFolder creates a folder and deletes it.
func deletedFolder(t *testing.T, st *store.Store, aid int64) int64 {
	t.Helper()
	fid := folder(t, st, aid, "Doomed")
	if err := st.DeleteFolder(t.Context(), aid, fid); err != nil {
		t.Fatal(err)
	}
	return fid
}

// listed returns the ids of the live surveys of a live folder.
func listed(t *testing.T, st *store.Store, aid, fid int64) []int64 {
	t.Helper()
	_, svs, err := st.FolderWithSurveys(t.Context(), aid, fid)
	if err != nil {
		t.Fatalf("folder %d: %v", fid, err)
	}
	ids := make([]int64, 0, len(svs))
	for _, sv := range svs {
		ids = append(ids, sv.ID)
	}
	return ids
}

// checkListed asserts that sid is in folder in and in none of out.
func checkListed(t *testing.T, st *store.Store, aid, sid, in int64, out ...int64) {
	t.Helper()
	if in != 0 && !slices.Contains(listed(t, st, aid, in), sid) {
		t.Errorf("survey %d is not in folder %d's list", sid, in)
	}
	for _, fid := range out {
		if slices.Contains(listed(t, st, aid, fid), sid) {
			t.Errorf("survey %d is in folder %d's list", sid, fid)
		}
	}
}

// create makes a survey through the API and returns its detail and id.
func (f *fixture) create(t *testing.T, fid int64, name string) (map[string]any, int64) {
	t.Helper()
	r := f.do(t, "POST", listPath, fmt.Sprintf(`{"name":%q,"folder_id":%d}`, name, fid))
	if r.code != 201 {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	d := decode(t, r.body)
	return d, idOf(t, d)
}

// get answers a survey's detail, which must be 200.
func (f *fixture) get(t *testing.T, sid int64) map[string]any {
	t.Helper()
	r := f.do(t, "GET", detailPath(sid), "")
	if r.code != 200 {
		t.Fatalf("GET %d: %d %s", sid, r.code, r.body)
	}
	return decode(t, r.body)
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body %q: %v", b, err)
	}
	return m
}

func idOf(t *testing.T, d map[string]any) int64 {
	t.Helper()
	id, ok := d["id"].(float64)
	if !ok || id != math.Trunc(id) || id < 1 {
		t.Fatalf("id = %v", d["id"])
	}
	return int64(id)
}

// with returns a copy of a detail with some top-level fields changed.
func with(d map[string]any, changes map[string]any) map[string]any {
	out := make(map[string]any, len(d))
	for k, v := range d {
		out[k] = v
	}
	for k, v := range changes {
		out[k] = v
	}
	return out
}

// expect checks a reply's status and, when want is set, its exact body.
func expect(t *testing.T, what string, r reply, code int, want string) {
	t.Helper()
	if r.code != code {
		t.Errorf("%s: status %d, want %d (%s)", what, r.code, code, r.body)
		return
	}
	if want != "" {
		testenv.SameJSON(t, what, r.body, want)
	}
}

// sameDetail compares two details; updated_at moves with every write
// (contract section 19), so it need only not go back.
func sameDetail(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	g, _ := got["updated_at"].(string)
	w, _ := want["updated_at"].(string)
	if g < w {
		t.Errorf("%s: updated_at %q went back from %q", what, g, w)
	}
	got, want = with(got, map[string]any{"updated_at": nil}), with(want, map[string]any{"updated_at": nil})
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s: detail\n got %s\nwant %s", what, g, w)
	}
}
