package testenv

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Reply is one answer of a handler and the AWS calls the request made.
type Reply struct {
	Code   int
	Body   []byte
	Header http.Header
	Calls  *awsenv.Calls
}

// NewRequest builds a request as a survey owner's script sends it: with
// "Authorization: API-Key key" when key is not empty, the Content-Type when
// contentType is not empty, and body as given (nil sends none at all).
func NewRequest(method, target, key, contentType string, body io.Reader) *http.Request {
	req := httptest.NewRequest(method, target, body)
	if key != "" {
		req.Header.Set("Authorization", "API-Key "+key)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}

// Body is a request body: nil for the empty string, so that tests can
// send "no body" and "a body" with one string.
func Body(s string) io.Reader {
	if s == "" {
		return nil
	}
	return strings.NewReader(s)
}

// APIBase is the API's address (API_BASE_URL) the tests serve their
// handlers at (api.ServeAt): the host httptest.NewRequest gives a request,
// so the links a handler writes read as before the address was configured.
const APIBase = "http://example.com"

// Serve sends req to h and counts the AWS calls the handler makes for it.
func Serve(h http.Handler, req *http.Request) Reply {
	ctx, calls := awsenv.WithCalls(req.Context())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req.WithContext(ctx))
	return Reply{Code: rec.Code, Body: rec.Body.Bytes(), Header: rec.Header(), Calls: calls}
}

// Owner is a survey owner of one test: an account of its own on the test's
// table, its API key and, when asked for, a live folder.
type Owner struct {
	Store   *store.Store
	Account survey.Account
	Key     string
	Folder  int64
}

// NewOwner makes an owner on plan; a non-empty folder name also creates a
// folder of that name, whose id is Owner.Folder.
func NewOwner(tb testing.TB, plan survey.Plan, folder string) Owner {
	tb.Helper()
	st := Store(tb)
	acct, key := NewAccount(tb, plan)
	o := Owner{Store: st, Account: acct, Key: key}
	if folder != "" {
		fo, err := st.CreateFolder(tb.Context(), acct.ID, folder, nil)
		if err != nil {
			tb.Fatalf("testenv: create folder: %v", err)
		}
		o.Folder = fo.ID
	}
	return o
}

// Warm sends one request with the owner's key that must answer code, so
// that the handler's authenticator knows the key: the calls counted
// afterwards are the handler's own.
func (o Owner) Warm(tb testing.TB, h http.Handler, target string, code int) {
	tb.Helper()
	if r := Serve(h, NewRequest("GET", target, o.Key, "", nil)); r.Code != code {
		tb.Fatalf("warm-up: %d %s", r.Code, r.Body)
	}
}

// NewSurvey creates a live survey named name in folder fid of account aid,
// through the store, in language 1 with the default theme.
func NewSurvey(tb testing.TB, st *store.Store, aid, fid int64, name string) survey.Survey {
	tb.Helper()
	sv, err := st.CreateSurvey(tb.Context(), survey.Survey{
		AccountID: aid, FolderID: fid, Name: name, Language: 1, Theme: survey.DefaultTheme(),
	})
	if err != nil {
		tb.Fatalf("testenv: create survey: %v", err)
	}
	return sv
}
