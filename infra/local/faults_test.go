package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	kmstypes "github.com/aws/aws-sdk-go-v2/service/kms/types"
	"github.com/aws/smithy-go"

	"surveyservice/functions/sweeper"
	"surveyservice/internal/localaws"
	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/links"
	"surveyservice/shared/responding"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// faultRoutes is a request on every route that touches the store, with the
// owner's placeholders ({folder}, {survey}, {question}, {variable}, {slug},
// {token}).
var faultRoutes = []struct{ method, path, body string }{
	{"GET", "/api/whoami/", ""},
	{"GET", "/api/templates/", ""},
	{"GET", "/api/templates/some-template/", ""},
	{"GET", "/api/folders/", ""},
	{"POST", "/api/folders/", `{"name":"new"}`},
	{"GET", "/api/folders/{folder}/", ""},
	{"PUT", "/api/folders/{folder}/", `{"name":"renamed"}`},
	{"PATCH", "/api/folders/{folder}/", `{"order":3}`},
	{"POST", "/api/v2/surveys/", `{"name":"new","folder_id":{folder}}`},
	{"GET", "/api/v2/surveys/{survey}/", ""},
	{"PATCH", "/api/v2/surveys/{survey}/", `{"name":"renamed"}`},
	{"POST", "/api/v2/surveys/{survey}/restore/", ""},
	{"GET", "/api/v2/surveys/{survey}/questions/", ""},
	{"POST", "/api/v2/surveys/{survey}/questions/", `{"title":"new","type":2}`},
	{"GET", "/api/v2/surveys/{survey}/questions/{question}/", ""},
	{"PATCH", "/api/v2/surveys/{survey}/questions/{question}/", `{"title":"renamed"}`},
	{"GET", "/api/surveys/{survey}/settings/", ""},
	{"PATCH", "/api/surveys/{survey}/settings/", `{"hide_progressbar":true,"survey":{"name":"x"}}`},
	{"GET", "/api/surveys/{survey}/settings/authentication-codes/", ""},
	{"POST", "/api/surveys/{survey}/settings/authentication-codes/", `["NEW-CODE"]`},
	{"GET", "/api/surveys/{survey}/variables/", ""},
	{"POST", "/api/surveys/{survey}/variables/", `{"name":"newvar","variable_source":0}`},
	{"POST", "/api/surveys/{survey}/variables/hashes/", `{"values":[{"city":"Yazd"}]}`},
	{"POST", "/api/public/surveys/{slug}/authenticate/", `{"code":"CODE-1"}`},
	{"GET", "/api/public/surveys/{slug}/variables/?qs={token}", ""},
	{"GET", "/api/public/surveys/{slug}/", ""},
	{"POST", "/api/public/surveys/{slug}/sessions/", `{"code":"CODE-1","qs":"{token}"}`},
	{"POST", "/api/public/surveys/{slug}/responses/", `{"session":"{session}","answers":{"{question}":"an answer"}}`},
	{"GET", "/api/surveys/{survey}/responses/?page_size=1", ""},
	{"GET", "/api/surveys/{survey}/responses/?format=csv&page_size=1", ""},
	{"GET", "/api/surveys/{survey}/responses/{response}/", ""},
	{"GET", "/api/v2/surveys/{survey}/responses/results-table/?page=2&page_size=1", ""},
	{"GET", "/api/v2/surveys/{survey}/responses/export/", ""},
	// destructive ones last
	{"DELETE", "/api/surveys/{survey}/responses/{response}/", ""},
	{"DELETE", "/api/v2/surveys/{survey}/questions/{question}/", ""},
	{"DELETE", "/api/surveys/{survey}/variables/{variable}/", ""},
	{"DELETE", "/api/surveys/{survey}/settings/authentication-codes/", ""},
	{"DELETE", "/api/v2/surveys/{survey}/", ""},
	{"DELETE", "/api/folders/{folder}/", ""},
}

// faultKinds are the failures the AWS clients are made to answer.
var faultKinds = []struct {
	name    string
	service string // "" for every service
	op      string // "" for every operation
	err     error
}{
	{"dynamodb throttled", "DynamoDB", "", &types.ProvisionedThroughputExceededException{Message: aws.String("injected")}},
	{"dynamodb timeout", "DynamoDB", "", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}},
	{"dynamodb internal error", "DynamoDB", "", &types.InternalServerError{Message: aws.String("injected")}},
	{"transaction conflict", "DynamoDB", "TransactWriteItems", &types.TransactionCanceledException{
		Message: aws.String("injected"), CancellationReasons: []types.CancellationReason{{Code: aws.String("TransactionConflict")}, {Code: aws.String("None")}, {Code: aws.String("None")}}}},
	{"kms unavailable", "KMS", "", &kmstypes.KMSInternalException{Message: aws.String("injected")}},
	{"kms timeout", "KMS", "", &kmstypes.DependencyTimeoutException{Message: aws.String("injected")}},
	{"s3 unavailable", "S3", "", &smithy.GenericAPIError{Code: "ServiceUnavailable", Message: "injected"}},
}

// faultFixture is an owner with one of everything, and the handler. The
// sealer and the authenticator are new for each fault kind, so that their
// caches do not hide the failing service.
type faultFixture struct {
	key  string
	ids  map[string]string
	mk   func() http.Handler
	fill func(string) string
}

func newFaultFixture(t *testing.T) faultFixture {
	t.Helper()
	st := testenv.Store(t)
	ctx := context.Background()
	a, key := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "faults", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: f.ID, Name: "faults", Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	e := survey.NewElement(survey.TypeText)
	e.Title = "Q"
	ch, err := st.CreateElement(ctx, a.ID, sv.ID, e, survey.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	vars, err := st.CreateVariables(ctx, a.ID, sv.ID, nil, 0, []survey.Variable{{Name: "city", Type: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.UpdateSettings(ctx, a.ID, sv.ID, store.SettingsUpdate{Set: map[string]any{"code_auth": true}}); err != nil {
		t.Fatal(err)
	}
	if err := st.AddCodes(ctx, a.ID, sv.ID, []string{"CODE-1"}); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var seed []survey.Response
	for i := range 3 {
		seed = append(seed, survey.Response{SurveyID: sv.ID, SubmittedAt: at.Add(time.Duration(i) * time.Second), StartedAt: at.Add(-time.Minute),
			Answers: map[int64]json.RawMessage{ch.Element.ID: json.RawMessage(`"fine"`)}})
	}
	rs, err := storetest.ImportResponses(ctx, st, seed)
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := testenv.Sealer(t).Seal(ctx, sv.ID, []links.Payload{{Values: []links.Value{{Name: "city", Kind: links.KindString, Str: "Yazd"}}}})
	if err != nil {
		t.Fatal(err)
	}
	session, err := testenv.Sealer(t).SealFor(ctx, links.PurposeSession, sv.ID, responding.Session{StartedAt: time.Now(), Code: "CODE-1"}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{
		"folder": fmt.Sprint(f.ID), "survey": fmt.Sprint(sv.ID), "question": fmt.Sprint(ch.Element.ID),
		"variable": fmt.Sprint(vars[0].ID), "slug": sv.URLSlug, "token": tokens[0], "session": session, "response": fmt.Sprint(rs[1].ID),
	}
	fill := func(s string) string {
		for k, v := range ids {
			s = strings.ReplaceAll(s, "{"+k+"}", v)
		}
		return s
	}
	mk := func() http.Handler {
		return serve(routers(st, config{surveyURL: "https://s.example.com", sealer: testenv.Sealer(t),
			exports: testenv.Exports(t)}))
	}
	return faultFixture{key: key, ids: ids, mk: mk, fill: fill}
}

func (fx faultFixture) serve(h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, fx.fill(path), strings.NewReader(fx.fill(body)))
	req.Header.Set("Authorization", "API-Key "+fx.key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	// A submission's key, fresh each time (other routes ignore it).
	req.Header.Set("Idempotency-Key", fmt.Sprintf("faults-%d", faultKeys.Add(1)))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

var faultKeys atomic.Int64

// TestFaultsAnswer503 makes DynamoDB and KMS fail in every way the fault
// kinds list, on every route: the answer is a clean 503 with Retry-After
// (or the route's usual answer when it does not need the failing service),
// never a 500, and nothing the owner can read has changed afterwards. The
// faults fail this test's own calls (testenv.Own): it runs beside others.
func TestFaultsAnswer503(t *testing.T) {
	t.Parallel()
	for _, kind := range faultKinds {
		t.Run(kind.name, func(t *testing.T) {
			fx := newFaultFixture(t) // a fresh survey for each kind
			h := fx.mk()             // and cold caches: the failing service is reached
			var hit atomic.Int64
			restore := localaws.InjectFaults(func(ctx context.Context, service, op string) error {
				if testenv.Own(t, ctx) && (kind.service == "" || kind.service == service) && (kind.op == "" || kind.op == op) {
					hit.Add(1)
					return kind.err
				}
				return nil
			})
			defer restore()
			served503 := 0
			for _, rt := range faultRoutes {
				rec := fx.serve(h, rt.method, rt.path, rt.body)
				switch {
				case rec.Code >= 500 && rec.Code != 503:
					t.Errorf("%s %s = %d %s, want 503 (or the usual answer), never a 500", rt.method, rt.path, rec.Code, rec.Body)
				case rec.Code == 503:
					served503++
					if rec.Header().Get("Retry-After") == "" {
						t.Errorf("%s %s: 503 without Retry-After", rt.method, rt.path)
					}
					var body map[string]string
					if json.Unmarshal(rec.Body.Bytes(), &body) != nil || body["detail"] == "" || strings.Contains(body["detail"], "injected") {
						t.Errorf("%s %s: 503 body %s", rt.method, rt.path, rec.Body)
					}
				}
			}
			if hit.Load() == 0 || served503 == 0 {
				t.Errorf("the fault was never hit (%d) or never answered 503 (%d)", hit.Load(), served503)
			}
			t.Logf("%s: %d of %d routes answered 503; %d calls failed", kind.name, served503, len(faultRoutes), hit.Load())
		})
	}
}

// TestDynamoFaultsChangeNothing runs every write under each DynamoDB fault
// and checks that the owner's data is exactly as before: no write half
// done. The faults fail this test's own calls (testenv.Own): it runs
// beside others.
func TestDynamoFaultsChangeNothing(t *testing.T) {
	t.Parallel()
	fx := newFaultFixture(t)
	read := func() string {
		h := fx.mk()
		var b strings.Builder
		for _, p := range []string{"/api/folders/", "/api/v2/surveys/{survey}/", "/api/v2/surveys/{survey}/questions/",
			"/api/surveys/{survey}/settings/", "/api/surveys/{survey}/settings/authentication-codes/", "/api/surveys/{survey}/variables/",
			"/api/surveys/{survey}/responses/"} {
			b.WriteString(fx.serve(h, "GET", p, "").Body.String())
		}
		return b.String()
	}
	before := read()
	for _, kind := range faultKinds {
		if kind.service != "DynamoDB" {
			continue
		}
		t.Run(kind.name, func(t *testing.T) {
			h := fx.mk()
			// Let reads through, fail every write: the most partial a
			// failure can be.
			restore := localaws.InjectFaults(func(ctx context.Context, service, op string) error {
				switch op {
				case "GetItem", "Query", "BatchGetItem":
					return nil
				}
				if service == "DynamoDB" && testenv.Own(t, ctx) {
					return kind.err
				}
				return nil
			})
			for _, rt := range faultRoutes {
				if rt.method == "GET" {
					continue
				}
				if rec := fx.serve(h, rt.method, rt.path, rt.body); rec.Code >= 500 && rec.Code != 503 {
					t.Errorf("%s %s = %d", rt.method, rt.path, rec.Code)
				}
			}
			restore()
			if after := read(); after != before {
				t.Errorf("a failed write left changes:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// TestSweepResumesAfterAnInterruptedRun: a run that fails half way (the
// store fails after some closes) leaves the rest due, and the next run
// closes them.
func TestSweepResumesAfterAnInterruptedRun(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanFree)
	f, err := st.CreateFolder(ctx, a.ID, "due", nil)
	if err != nil {
		t.Fatal(err)
	}
	svs := make([]survey.Survey, 30)
	for i := range svs {
		svs[i] = survey.Survey{AccountID: a.ID, FolderID: f.ID, Name: "due", Language: 1, ExpirationDate: "2026-01-10", Theme: survey.DefaultTheme()}
	}
	if _, err := st.ImportSurveys(ctx, svs); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 11, 0, 0, 0, 0, time.UTC)
	var closes atomic.Int64
	restore := localaws.InjectFaults(func(_ context.Context, service, op string) error {
		if op == "UpdateItem" && closes.Add(1) > 10 {
			return &types.ProvisionedThroughputExceededException{Message: aws.String("injected")}
		}
		return nil
	})
	first, err := sweeper.New(sweeper.Deps{Store: st}).Run(ctx, now)
	restore()
	if err == nil || first.Complete {
		t.Fatalf("the interrupted run = %+v, %v; want an error", first, err)
	}
	second, err := sweeper.New(sweeper.Deps{Store: st}).Run(ctx, now)
	if err != nil || !second.Complete {
		t.Fatalf("the next run = %+v, %v", second, err)
	}
	if first.Closed+second.Closed != 30 {
		t.Errorf("closed %d + %d, want 30 in all", first.Closed, second.Closed)
	}
	if third, _ := sweeper.New(sweeper.Deps{Store: st}).Run(ctx, now); third.Read != 0 {
		t.Errorf("a third run still reads %d due entries", third.Read)
	}
}
