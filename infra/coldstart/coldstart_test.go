package coldstart

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/functions/sweeper"
	"surveyservice/internal/testenv"
	"surveyservice/shared/links"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "coldstart-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		os.Exit(1)
	}
	builds.dir = dir
	testenv.MainThen(m, func() { os.RemoveAll(dir) })
}

const (
	testRuns  = 3  // runs per function in TestColdStart
	benchRuns = 10 // samples per function in BenchmarkColdStart
	// runTimeout bounds one run: a binary that never answers fails the test
	// instead of hanging it.
	runTimeout = 30 * time.Second
	requestID  = "8476a536-e9f4-11e8-9739-2dfe598c3fcd"
	traceID    = "Root=1-5bef4de7-ad49b0e87f6ef6c87fc2e700;Parent=9a9197af755a6419;Sampled=1"
)

// TestColdStart starts every function of the Makefile a few times against
// the Runtime API stub and checks that each run answered its event. Times
// are logged, never asserted.
func TestColdStart(t *testing.T) {
	env := newRunEnv(t)
	for _, fn := range makefileFunctions(t) {
		t.Run(fn, func(t *testing.T) {
			inv := invocationFor(t, fn)
			bin := build(t, fn, runtime.GOOS, runtime.GOARCH)
			for i := range testRuns {
				r := runOnce(t, bin, fn, inv, env)
				t.Logf("run %d: next after %v, response after %v", i+1, r.next.Round(time.Microsecond), r.total.Round(time.Microsecond))
			}
		})
	}
}

// BenchmarkColdStart reports, per function, the median and p90 time from
// exec to the first response over benchRuns cold starts, and the size of
// the deployed linux/arm64 binary. Run it with -benchtime 1x.
func BenchmarkColdStart(b *testing.B) {
	env := newRunEnv(b)
	for _, fn := range makefileFunctions(b) {
		b.Run(fn, func(b *testing.B) {
			inv := invocationFor(b, fn)
			bin := build(b, fn, runtime.GOOS, runtime.GOARCH)
			arm := build(b, fn, "linux", "arm64")
			fi, err := os.Stat(arm)
			if err != nil {
				b.Fatal(err)
			}
			var total, next []time.Duration
			for b.Loop() {
				if total != nil {
					continue // the samples are taken once; see the package doc
				}
				for range benchRuns {
					r := runOnce(b, bin, fn, inv, env)
					total = append(total, r.total)
					next = append(next, r.next)
				}
			}
			b.ReportMetric(ms(median(total)), "median-ms")
			b.ReportMetric(ms(percentile(total, 90)), "p90-ms")
			b.ReportMetric(float64(fi.Size()), "binary-bytes")
			b.Logf("%s: median %.2f ms (init, to the first next: %.2f ms), p90 %.2f ms, linux/arm64 %d bytes; samples %v",
				fn, ms(median(total)), ms(median(next)), ms(percentile(total, 90)), fi.Size(), total)
		})
	}
}

// runEnv is what every run of one top-level test shares: the emulator and
// the test's own table, in the database of its access key.
type runEnv struct {
	endpoint string
	table    string
	key      string
}

func newRunEnv(tb testing.TB) runEnv {
	tb.Helper()
	return runEnv{endpoint: testenv.Endpoint(tb), table: testenv.Store(tb).TableName(), key: testenv.AccessKey(tb)}
}

// invocation is the event a function is started with and what its answer
// must be.
type invocation struct {
	event []byte
	// status is the API Gateway statusCode expected; 0 for a function that
	// is not behind API Gateway (the sweeper).
	status int
	// batch marks an event source's batch (stream, queue): the answer is a
	// partial batch response with no failure.
	batch bool
}

// httpRequests are, per HTTP function, a request answered before any AWS
// call: OPTIONS on a public route, a private route without Authorization
// (401 comes before the key lookup), an unknown path (404 before auth).
var httpRequests = map[string]struct {
	method, path string
	status       int
}{
	"templates":  {"OPTIONS", "/api/templates/", http.StatusOK},
	"responders": {"OPTIONS", "/api/public/surveys/coldstart/authenticate/", http.StatusOK},
	"account":    {"GET", "/api/nothing/here/", http.StatusNotFound},
	"folders":    {"GET", "/api/folders/", http.StatusUnauthorized},
	"surveys":    {"GET", "/api/v2/surveys/1/", http.StatusUnauthorized},
	"elements":   {"GET", "/api/v2/surveys/1/questions/", http.StatusUnauthorized},
	"settings":   {"GET", "/api/surveys/1/settings/", http.StatusUnauthorized},
	"variables":  {"GET", "/api/surveys/1/variables/", http.StatusUnauthorized},
	"webhooks":   {"GET", "/api/surveys/1/webhooks/", http.StatusUnauthorized},
}

// invocationFor picks fn's event. A function added to the Makefile later
// gets, when its main serves through package gateway, a GET of an unknown path
// (404 on every router, before auth); any other kind of function must be
// added here.
func invocationFor(tb testing.TB, fn string) invocation {
	tb.Helper()
	if fn == "sweeper" || fn == "retrier" {
		return invocation{event: scheduledEvent(tb)}
	}
	if fn == "dispatch" || fn == "deliver" || fn == "tally" || fn == "exports" {
		// A stream batch and a queue batch with no records: answered
		// without any AWS call.
		return invocation{event: []byte(`{"Records": []}`), batch: true}
	}
	req, ok := httpRequests[fn]
	if !ok {
		src, err := os.ReadFile(filepath.Join(moduleRoot(tb), "functions", fn, "lambda", "main.go"))
		if err != nil {
			tb.Fatal(err)
		}
		if !bytes.Contains(src, []byte(`"surveyservice/shared/api/gateway"`)) {
			tb.Fatalf("function %s is not an HTTP function: give it an event in invocationFor", fn)
		}
		req.method, req.path, req.status = "GET", "/api/coldstart/unknown/", http.StatusNotFound
	}
	return invocation{event: apiGatewayEvent(tb, req.method, req.path), status: req.status}
}

// apiGatewayEvent is an HTTP API (payload format 2.0) request, as API
// Gateway sends it, with no Authorization header.
func apiGatewayEvent(tb testing.TB, method, path string) []byte {
	tb.Helper()
	now := time.Now().UTC()
	ev := events.APIGatewayV2HTTPRequest{
		Version:        "2.0",
		RouteKey:       "$default",
		RawPath:        path,
		RawQueryString: "",
		Headers: map[string]string{
			"accept":            "application/json",
			"host":              "abc123defg.execute-api.us-east-1.amazonaws.com",
			"user-agent":        "coldstart/1.0",
			"x-forwarded-for":   "203.0.113.7",
			"x-forwarded-port":  "443",
			"x-forwarded-proto": "https",
			"x-amzn-trace-id":   "Root=1-5bef4de7-ad49b0e87f6ef6c87fc2e700",
		},
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RouteKey:     "$default",
			AccountID:    "123456789012",
			Stage:        "$default",
			RequestID:    "coldstart=",
			APIID:        "abc123defg",
			DomainName:   "abc123defg.execute-api.us-east-1.amazonaws.com",
			DomainPrefix: "abc123defg",
			Time:         now.Format("02/Jan/2006:15:04:05 -0700"),
			TimeEpoch:    now.UnixMilli(),
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method: method, Path: path, Protocol: "HTTP/1.1", SourceIP: "203.0.113.7", UserAgent: "coldstart/1.0",
			},
		},
	}
	data, err := json.Marshal(ev)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// scheduledEvent is the EventBridge event of the sweeper's schedule.
func scheduledEvent(tb testing.TB) []byte {
	tb.Helper()
	ev := events.EventBridgeEvent{
		Version:    "0",
		ID:         "53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa",
		DetailType: "Scheduled Event",
		Source:     "aws.events",
		AccountID:  "123456789012",
		Time:       time.Now().UTC().Truncate(time.Second),
		Region:     "us-east-1",
		Resources:  []string{"arn:aws:events:us-east-1:123456789012:rule/survey-service-SweeperFunctionEvery5Minutes-ABC123"},
		Detail:     json.RawMessage("{}"),
	}
	data, err := json.Marshal(ev)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// moduleRoot is the directory of go.mod, found upwards from the test's
// working directory (its package directory).
func moduleRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("coldstart: go.mod not found above the working directory")
		}
		dir = parent
	}
}

var functionsLine = regexp.MustCompile(`(?m)^FUNCTIONS[ \t]*:?=[ \t]*(.*)$`)

// makefileFunctions is the Makefile's FUNCTIONS list.
func makefileFunctions(tb testing.TB) []string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(moduleRoot(tb), "Makefile"))
	if err != nil {
		tb.Fatal(err)
	}
	m := functionsLine.FindSubmatch(data)
	if m == nil {
		tb.Fatal("coldstart: no `FUNCTIONS := ...` line in the Makefile")
	}
	fns := strings.Fields(string(m[1]))
	if len(fns) == 0 || slices.ContainsFunc(fns, func(f string) bool { return strings.ContainsAny(f, `$()\`) }) {
		tb.Fatalf("coldstart: cannot read the Makefile's FUNCTIONS line %q", m[0])
	}
	return fns
}

// builds are the binaries built so far, once each for the whole test
// binary: TestColdStart and BenchmarkColdStart (`make test` runs both in
// one process) start the same native binaries.
var builds struct {
	mu   sync.Mutex
	dir  string
	done map[string]string
}

// build compiles functions/<fn>/lambda as the Makefile's GOBUILD does, for
// goos/goarch, once per test binary, and returns the binary's path.
func build(tb testing.TB, fn, goos, goarch string) string {
	tb.Helper()
	builds.mu.Lock()
	defer builds.mu.Unlock()
	name := fn + "-" + goos + "-" + goarch
	if out, ok := builds.done[name]; ok {
		return out
	}
	out := filepath.Join(builds.dir, name, "bootstrap")
	cmd := exec.Command("go", "build", "-tags", "lambda.norpc nodynamic", "-trimpath", "-ldflags=-s -w", "-o", out, "./functions/"+fn+"/lambda")
	cmd.Dir = moduleRoot(tb)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	if msg, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("build %s for %s/%s: %v\n%s", fn, goos, goarch, err, msg)
	}
	if builds.done == nil {
		builds.done = map[string]string{}
	}
	builds.done[name] = out
	return out
}

// result is one cold start: from exec's Start to the first GET .../next
// (process start, package inits and main's own init), and to the response.
type result struct {
	next, total time.Duration
}

// runOnce starts bin against a fresh Runtime API stub, waits for its answer
// to inv, checks it and kills the process.
func runOnce(tb testing.TB, bin, fn string, inv invocation, env runEnv) result {
	tb.Helper()
	stub := newRuntimeStub(inv.event)
	defer stub.close()

	var out bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Dir = filepath.Dir(bin)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = []string{
		"AWS_LAMBDA_RUNTIME_API=" + stub.addr,
		"AWS_LAMBDA_FUNCTION_NAME=survey-service-" + fn,
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE=256",
		"AWS_LAMBDA_FUNCTION_VERSION=$LATEST",
		"AWS_LAMBDA_LOG_GROUP_NAME=/aws/lambda/survey-service-" + fn,
		"AWS_LAMBDA_LOG_STREAM_NAME=2026/01/01/[$LATEST]coldstart",
		"AWS_EXECUTION_ENV=AWS_Lambda_provided.al2023",
		"LAMBDA_TASK_ROOT=" + filepath.Dir(bin),
		"_HANDLER=bootstrap",
		"TZ=:UTC",
		"AWS_REGION=us-east-1",
		"AWS_DEFAULT_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=" + env.key,
		"AWS_SECRET_ACCESS_KEY=test",
		"AWS_ENDPOINT_URL=" + env.endpoint,
		"TABLE_NAME=" + env.table,
		"KMS_KEY_ID=" + links.DefaultKeyAlias,
		// The API at the address its events come to (the public routes
		// answer only on the service's own hosts: contract section 23).
		"API_BASE_URL=https://abc123defg.execute-api.us-east-1.amazonaws.com",
		"MAIL_FROM=no-reply@example.com", // the functions that send email (shared/sending) do not start without it
	}

	start := time.Now()
	if err := cmd.Start(); err != nil {
		tb.Fatalf("%s: start: %v", fn, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Kill()
		<-exited
	}

	timer := time.NewTimer(runTimeout)
	defer timer.Stop()
	select {
	case <-stub.done:
		stop()
	case err := <-exited:
		tb.Fatalf("%s: the process exited (%v) before answering; stub saw: %s\noutput:\n%s", fn, err, stub.summary(), out.String())
	case <-timer.C:
		stop()
		tb.Fatalf("%s: no answer within %v; stub saw: %s\noutput:\n%s", fn, runTimeout, stub.summary(), out.String())
	}

	stub.mu.Lock()
	defer stub.mu.Unlock()
	if len(stub.errs) > 0 {
		tb.Fatalf("%s: the function reported errors: %s\noutput:\n%s", fn, strings.Join(stub.errs, "; "), out.String())
	}
	checkResponse(tb, fn, inv, stub.respBody, out.String())
	return result{next: stub.nextAt.Sub(start), total: stub.respAt.Sub(start)}
}

// checkResponse checks that body is the answer inv expects: an API Gateway
// v2 response with the expected statusCode, or a complete sweep.
func checkResponse(tb testing.TB, fn string, inv invocation, body []byte, output string) {
	tb.Helper()
	if inv.batch {
		var res struct {
			Failures []any `json:"batchItemFailures"`
		}
		if err := json.Unmarshal(body, &res); err != nil || len(res.Failures) != 0 {
			tb.Fatalf("%s: response %s is not a batch answered whole (%v)\noutput:\n%s", fn, body, err, output)
		}
		return
	}
	if inv.status == 0 {
		var res sweeper.Result
		if err := json.Unmarshal(body, &res); err != nil || !res.Complete {
			tb.Fatalf("%s: response %s is not a complete sweep (%v)\noutput:\n%s", fn, body, err, output)
		}
		return
	}
	var resp events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		tb.Fatalf("%s: response is not an API Gateway v2 response: %v: %s", fn, err, body)
	}
	if resp.StatusCode == 0 {
		tb.Fatalf("%s: response has no statusCode: %s", fn, body)
	}
	if resp.StatusCode != inv.status {
		tb.Fatalf("%s: statusCode %d, want %d: %s\noutput:\n%s", fn, resp.StatusCode, inv.status, body, output)
	}
	// The access log counts the request's AWS calls: the event must make
	// none, or the figure would include the emulator.
	for line := range strings.Lines(output) {
		var entry struct {
			Msg           string `json:"msg"`
			DynamoDBCalls int    `json:"dynamodb_calls"`
			KMSCalls      int    `json:"kms_calls"`
		}
		if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "request" && entry.DynamoDBCalls+entry.KMSCalls > 0 {
			tb.Fatalf("%s: the event made AWS calls: %s", fn, line)
		}
	}
}

// runtimeStub is the Lambda Runtime API for one run: one invocation, then
// a `next` that blocks until the run ends.
type runtimeStub struct {
	srv   *httptest.Server
	addr  string // host:port, as AWS_LAMBDA_RUNTIME_API
	event []byte
	done  chan struct{} // closed on the invocation's response or error
	quit  chan struct{} // closed by close: releases blocked `next` calls

	mu       sync.Mutex
	served   bool
	finished bool
	nextAt   time.Time // first GET .../next
	respAt   time.Time // POST .../response received, body read
	respBody []byte
	errs     []string // invocation and init errors, and protocol misuse
}

func newRuntimeStub(event []byte) *runtimeStub {
	s := &runtimeStub{event: event, done: make(chan struct{}), quit: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2018-06-01/runtime/invocation/next", s.next)
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/response", s.response)
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/error", s.invocationError)
	mux.HandleFunc("POST /2018-06-01/runtime/init/error", s.initError)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(fmt.Sprintf("unexpected %s %s", r.Method, r.URL.Path))
		http.Error(w, "not a Runtime API path", http.StatusNotFound)
	})
	s.srv = httptest.NewServer(mux)
	s.addr = strings.TrimPrefix(s.srv.URL, "http://")
	return s
}

func (s *runtimeStub) close() {
	close(s.quit)
	s.srv.Close()
}

func (s *runtimeStub) next(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	first := !s.served
	if first {
		s.served = true
		s.nextAt = time.Now()
	}
	s.mu.Unlock()
	if !first {
		// The function is idle after its invocation; it is killed now.
		select {
		case <-r.Context().Done():
		case <-s.quit:
		}
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Lambda-Runtime-Aws-Request-Id", requestID)
	h.Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(time.Now().Add(10*time.Second).UnixMilli(), 10))
	h.Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:123456789012:function:coldstart")
	h.Set("Lambda-Runtime-Trace-Id", traceID)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(s.event)
}

func (s *runtimeStub) response(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	at := time.Now()
	w.WriteHeader(http.StatusAccepted)
	switch {
	case err != nil:
		s.fail(fmt.Sprintf("read response body: %v", err))
	case r.PathValue("id") != requestID:
		s.fail(fmt.Sprintf("response for request %q, want %q", r.PathValue("id"), requestID))
	case r.Trailer.Get("Lambda-Runtime-Function-Error-Type") != "":
		s.fail(fmt.Sprintf("response failed while streaming: %s", r.Trailer.Get("Lambda-Runtime-Function-Error-Type")))
	default:
		s.mu.Lock()
		s.respAt, s.respBody = at, body
		s.mu.Unlock()
		s.finish()
	}
}

func (s *runtimeStub) invocationError(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.WriteHeader(http.StatusAccepted)
	s.fail(fmt.Sprintf("invocation %s error: %s", r.PathValue("id"), body))
}

func (s *runtimeStub) initError(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.WriteHeader(http.StatusAccepted)
	s.fail(fmt.Sprintf("init error (%s): %s", r.Header.Get("Lambda-Runtime-Function-Error-Type"), body))
}

// fail records an error and ends the run.
func (s *runtimeStub) fail(msg string) {
	s.mu.Lock()
	s.errs = append(s.errs, msg)
	s.mu.Unlock()
	s.finish()
}

func (s *runtimeStub) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.finished {
		s.finished = true
		close(s.done)
	}
}

func (s *runtimeStub) summary() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	parts := []string{fmt.Sprintf("event served: %v", s.served)}
	if len(s.errs) > 0 {
		parts = append(parts, "errors: "+strings.Join(s.errs, "; "))
	}
	return strings.Join(parts, ", ")
}

// median is the middle of d (the mean of the two middle values for an even
// count).
func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(d))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// percentile is the nearest-rank p-th percentile of d.
func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(d))
	rank := (p*len(s) + 99) / 100 // ceil(p/100 * n)
	return s[max(rank, 1)-1]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
