package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"surveyservice/functions/folders"
	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestRetryPolicyFitsEachFunction reads template.yaml and the functions'
// mains: an HTTP function (one with HttpApi events) runs its AWS calls
// under awsenv.HTTP, whose worst single call ends (the SDK gives up, and
// the handler answers its 503) before the deadline the handler is cut at;
// every other function under awsenv.Events, whose worst call fits its
// timeout.
func TestRetryPolicyFitsEachFunction(t *testing.T) {
	t.Parallel()
	tpl := loadTemplate(t)
	dirs := map[string]string{}
	data, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	var fns, ids []string
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "FUNCTIONS := "); ok {
			fns = strings.Fields(v)
		}
		if v, ok := strings.CutPrefix(line, "LOGICAL_IDS := "); ok {
			ids = strings.Fields(v)
		}
	}
	for i := range ids {
		dirs[ids[i]] = fns[i]
	}
	for name, res := range tpl.Resources {
		if res.Type != "AWS::Serverless::Function" || name == "SchemaFunction" { // no AWS calls
			continue
		}
		timeout := 10 * time.Second // Globals
		if v, ok := res.Properties["Timeout"].(int); ok {
			timeout = time.Duration(v) * time.Second
		}
		http := false
		events, _ := res.Properties["Events"].(map[string]any)
		for _, ev := range events {
			if ev.(map[string]any)["Type"] == "HttpApi" {
				http = true
			}
		}
		src, err := os.ReadFile("../../functions/" + dirs[name] + "/lambda/main.go")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		main := string(src)
		switch {
		case http:
			if !strings.Contains(main, "lambdamain.Main(") {
				t.Errorf("%s (HTTP) does not start with lambdamain.Main (awsenv.HTTP)", name)
			}
			if w := awsenv.HTTP.WorstCall(); w >= timeout-api.DeadlineMargin {
				t.Errorf("%s: a call may take %v, past the %v its handler has", name, w, timeout-api.DeadlineMargin)
			}
		default:
			if !strings.Contains(main, "lambdamain.MainEvents(") {
				t.Errorf("%s (events) does not start with lambdamain.MainEvents (awsenv.Events)", name)
			}
			if w := awsenv.Events.WorstCall(); w >= timeout {
				t.Errorf("%s: a call may take %v, past its %v timeout", name, w, timeout)
			}
		}
	}
}

// TestSlowDependencyAnswers503BeforeTheDeadline: DynamoDB stops answering
// (every request hangs). Under awsenv.HTTP the request's first call is
// tried MaxAttempts times, each cut at AttemptTimeout, and the handler
// answers the API's own JSON 503 with Retry-After, from its own error
// path, long before the deadline. Under the policy before (3 attempts of
// 3 s) the same call outlasted the handler's time: the answer was the
// deadline's 503 (MsgTooLate), with no time left for anything else.
func TestSlowDependencyAnswers503BeforeTheDeadline(t *testing.T) {
	t.Parallel()
	var requests atomic.Int64
	stop := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer slow.Close()
	defer close(stop)
	serveWith := func(p awsenv.Policy, lambdaTimeout time.Duration) (*httptest.ResponseRecorder, time.Duration) {
		cfg, err := localaws.Load(context.Background(), awsenv.Config{Region: "us-east-1", Policy: p,
			Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")})
		if err != nil {
			t.Fatal(err)
		}
		cfg.BaseEndpoint = aws.String(slow.URL)
		st := store.New(cfg, "slow")
		h := testenv.Conform(api.Mount(folders.New(folders.Deps{Auth: api.NewAuthenticator(st), Store: st, Now: time.Now})))
		// Lambda's deadline, as the adapter hands it to the handler.
		ctx, cancel := context.WithTimeout(context.Background(), lambdaTimeout)
		defer cancel()
		req := httptest.NewRequest("GET", "/api/folders/", nil).WithContext(ctx)
		req.Header.Set("Authorization", "Api-Key "+survey.NewKey())
		rec := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(rec, req)
		return rec, time.Since(start)
	}
	detail := func(rec *httptest.ResponseRecorder) string {
		var body struct{ Detail string }
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("not the API's JSON: %s", rec.Body)
		}
		return body.Detail
	}

	rec, took := serveWith(awsenv.HTTP, 10*time.Second)
	if rec.Code != 503 || rec.Header().Get("Retry-After") == "" || detail(rec) == api.MsgTooLate {
		t.Fatalf("under awsenv.HTTP: %d %q Retry-After %q; want the handler's own 503 with Retry-After", rec.Code, detail(rec), rec.Header().Get("Retry-After"))
	}
	if n := requests.Load(); n != int64(awsenv.HTTP.MaxAttempts) {
		t.Errorf("%d requests to the stuck store, want %d attempts of the first call", n, awsenv.HTTP.MaxAttempts)
	}
	t.Logf("awsenv.HTTP: 503 %q after %v (%d attempts; the deadline was %v away)", detail(rec), took.Round(time.Millisecond), requests.Load(), 10*time.Second-api.DeadlineMargin)

	if testing.Short() {
		return
	}
	requests.Store(0)
	before := awsenv.Policy{MaxAttempts: 3, AttemptTimeout: 3 * time.Second, S3AttemptTimeout: 3 * time.Second, MaxBackoff: 500 * time.Millisecond}
	rec, took = serveWith(before, 10*time.Second)
	if rec.Code != 503 || detail(rec) != api.MsgTooLate {
		t.Errorf("under the policy before: %d %q; want the deadline's 503", rec.Code, detail(rec))
	}
	t.Logf("the policy before (3 x 3 s): 503 %q after %v (%d attempts)", detail(rec), took.Round(time.Millisecond), requests.Load())
}
