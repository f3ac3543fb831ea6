package ratelimit_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/ratelimit"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// at is a fixed clock 20 s into a minute.
func at() time.Time { return time.Date(2026, 6, 15, 12, 0, 20, 0, time.UTC) }

var scopes atomic.Int64

// scope is a fresh scope, so tests on one table never share counters.
func scope(name string) string { return fmt.Sprintf("%s%d", name, scopes.Add(1)) }

// TestAcrossContainers: containers (limiters with stores of their own, on
// one table) serving one key at once, each one request at a time as a
// Lambda container does, admit the limit and at most the documented
// overshoot (N containers × the step), and write only every few requests.
func TestAcrossContainers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		rate ratelimit.Rate
	}{
		{"survey, sharded", ratelimit.Rate{Limit: 2000, Window: time.Minute, Shards: 8, Spread: 256, MaxStep: 32}},
		{"client, one item", ratelimit.Rate{Limit: 600, Window: time.Minute, Shards: 1, Spread: 64, MaxStep: 16}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const containers, attempts = 8, 400
			sc := scope("t")
			var admitted atomic.Int64
			var syncs int64
			var mu sync.Mutex
			var wg sync.WaitGroup
			for range containers {
				l := ratelimit.New(sc, tc.rate, testenv.Container(t), at)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range attempts {
						if l.Allow(context.Background(), "k") == nil {
							admitted.Add(1)
						}
					}
					mu.Lock()
					syncs += l.Syncs()
					mu.Unlock()
				}()
			}
			wg.Wait()
			step := max(1, min(tc.rate.Limit/tc.rate.Spread, tc.rate.MaxStep))
			bound := tc.rate.Limit + containers*step
			n := admitted.Load()
			t.Logf("%d containers, %d attempts each, limit %d: %d admitted (bound %d), %d synchronisations (%.3f a request admitted)",
				containers, attempts, tc.rate.Limit, n, bound, syncs, float64(syncs)/float64(n))
			if n < tc.rate.Limit || n > bound {
				t.Errorf("admitted %d, want between the limit %d and %d", n, tc.rate.Limit, bound)
			}
			if syncs > n/2 {
				t.Errorf("%d synchronisations for %d requests: the counters are written too often", syncs, n)
			}
		})
	}
}

// TestQuietKeyWritesNothing: a key far below its limit, as a responder's
// few requests are, never touches the table.
func TestQuietKeyWritesNothing(t *testing.T) {
	t.Parallel()
	l := ratelimit.New(scope("q"), ratelimit.ClientRate, testenv.Container(t), at)
	ctx, calls := awsenv.WithCalls(context.Background())
	for i := range 4 {
		if err := l.Allow(ctx, fmt.Sprintf("192.0.2.%d", i)); err != nil {
			t.Fatal(err)
		}
		if err := l.Allow(ctx, "192.0.2.200"); err != nil {
			t.Fatal(err)
		}
	}
	if calls.DynamoDB() != 0 || l.Syncs() != 0 {
		t.Errorf("quiet keys made %d DynamoDB calls", calls.DynamoDB())
	}
}

// reply is one answer of a wrapped handler.
type reply struct {
	code   int
	body   string
	header http.Header
}

func get(h http.Handler, path, ip string, headers ...string) reply {
	req := httptest.NewRequest("GET", path, nil)
	req.RemoteAddr = ip + ":4000"
	if strings.Contains(ip, ":") {
		req.RemoteAddr = "[" + ip + "]:4000"
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return reply{rec.Code, rec.Body.String(), rec.Header()}
}

var ok = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })

// policy is a function's policy with small limits on the test's table: a
// step of one request, so every container knows every count.
func policy(t *testing.T, sc string, surveyOf func(string) (string, bool)) ratelimit.Policy {
	st := testenv.Container(t)
	return ratelimit.Policy{
		Client:   ratelimit.New(sc+"-c", ratelimit.Rate{Limit: 5, Window: time.Minute, Shards: 1, Spread: 64, MaxStep: 16}, st, at),
		Survey:   ratelimit.New(sc+"-s", ratelimit.Rate{Limit: 8, Window: time.Second, Shards: 4, Spread: 256, MaxStep: 32}, st, at),
		SurveyOf: surveyOf,
	}
}

// TestPerClient: a client's sixth request in a minute answers 429 in
// DRF's shape with Retry-After to the window's end, on any container;
// X-Forwarded-For changes nothing; an IPv6 /64 is one client; other
// clients pass.
func TestPerClient(t *testing.T) {
	t.Parallel()
	sc := scope("c")
	one, two := policy(t, sc, ratelimit.RespondersSurvey).Wrap(ok), policy(t, sc, ratelimit.RespondersSurvey).Wrap(ok)
	for i := range 5 {
		h := []http.Handler{one, two}[i%2]
		if r := get(h, fmt.Sprintf("/api/public/surveys/s%d/", i), "198.51.100.7"); r.code != 200 {
			t.Fatalf("request %d: %d %s", i, r.code, r.body)
		}
	}
	// Past the limit each container admits at most its step (here one
	// request) before it learns the total; then both refuse.
	extra := 0
	for range 2 {
		for _, h := range []http.Handler{one, two} {
			r := get(h, "/api/public/surveys/other/", "198.51.100.7", "X-Forwarded-For", "203.0.113.1")
			if r.code == 200 {
				extra++
				continue
			}
			if r.code != 429 || r.body != `{"detail":"Request was throttled. Expected available in 40 seconds."}` || r.header.Get("Retry-After") != "40" {
				t.Errorf("over the limit: %d %s Retry-After %q", r.code, r.body, r.header.Get("Retry-After"))
			}
		}
	}
	if extra > 1 {
		t.Errorf("%d requests admitted past the limit by 2 containers, want at most 1 (N × step, less the container that knew)", extra)
	}
	if r := get(one, "/api/public/surveys/x/", "203.0.113.1"); r.code != 200 {
		t.Errorf("another client: %d %s", r.code, r.body)
	}
	for i := range 5 {
		if r := get(two, "/api/public/surveys/x/", fmt.Sprintf("2001:db8:0:7::%x", i+1)); r.code != 200 {
			t.Fatalf("IPv6 request %d: %d", i, r.code)
		}
	}
	if r := get(two, "/api/public/surveys/x/", "2001:db8:0:7:ffff::9"); r.code != 429 {
		t.Errorf("the same /64: %d, want 429", r.code)
	}
	if r := get(one, "/api/public/surveys/x/", "2001:db8:0:8::1"); r.code != 200 {
		t.Errorf("another /64: %d, want 200", r.code)
	}
}

// TestPerSurvey: a survey's requests from many clients add up, across
// containers, to its limit a second; then 429 with Retry-After 1; another
// survey, and the next second, pass. The pages' assets are never limited.
func TestPerSurvey(t *testing.T) {
	t.Parallel()
	sc := scope("s")
	one, two := policy(t, sc, ratelimit.PagesSurvey).Wrap(ok), policy(t, sc, ratelimit.PagesSurvey).Wrap(ok)
	for i := range 8 {
		if r := get([]http.Handler{one, two}[i%2], "/s/viral/", fmt.Sprintf("192.0.2.%d", i+1)); r.code != 200 {
			t.Fatalf("request %d: %d %s", i, r.code, r.body)
		}
	}
	extra := 0
	for i := range 4 {
		r := get([]http.Handler{one, two}[i%2], "/s/viral/", fmt.Sprintf("192.0.2.%d", 100+i))
		if r.code == 200 {
			extra++
			continue
		}
		if r.code != 429 || r.body != `{"detail":"Request was throttled. Expected available in 1 second."}` || r.header.Get("Retry-After") != "1" {
			t.Errorf("over the survey's limit: %d %s Retry-After %q", r.code, r.body, r.header.Get("Retry-After"))
		}
	}
	if extra > 1 {
		t.Errorf("%d requests admitted past the survey's limit by 2 containers, want at most 1", extra)
	}
	if r := get(two, "/s/quiet/", "192.0.2.102"); r.code != 200 {
		t.Errorf("another survey: %d", r.code)
	}
	for range 10 {
		if r := get(one, "/assets/app.js/", "192.0.2.1"); r.code != 200 {
			t.Fatalf("an asset: %d", r.code)
		}
	}
}

// marked is the context key of requests whose store calls fail.
type marked struct{}

// TestTableFailureAdmits: when the counters cannot be written, requests
// are served (a limit never turns a DynamoDB throttle into an outage).
func TestTableFailureAdmits(t *testing.T) {
	t.Parallel()
	restore := localaws.InjectFaults(func(ctx context.Context, _, op string) error {
		if ctx.Value(marked{}) != nil {
			return &types.ProvisionedThroughputExceededException{Message: aws.String("injected")}
		}
		return nil
	})
	defer restore()
	l := ratelimit.New(scope("f"), ratelimit.Rate{Limit: 3, Window: time.Minute}, testenv.Container(t), at)
	ctx := context.WithValue(context.Background(), marked{}, true)
	for i := range 3 {
		if err := l.Allow(ctx, "k"); err != nil {
			t.Fatalf("request %d while the table fails: %v", i, err)
		}
	}
	if l.Syncs() == 0 {
		t.Errorf("no synchronisation was tried")
	}
}

// TestKeys: clients by address (IPv6 by /64), surveys by slug (a hash
// when it is long or not plain), paths by function.
func TestKeys(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"192.0.2.1": "192.0.2.1", "::ffff:192.0.2.1": "192.0.2.1", "2001:db8:1:2:3:4:5:6": "2001:db8:1:2::/64",
		"fe80::1%eth0": "fe80::/64", "": "unknown", "not an ip": "unknown",
	} {
		if got := ratelimit.ClientKey(in); got != want {
			t.Errorf("ClientKey(%q) = %q, want %q", in, got, want)
		}
	}
	if ratelimit.SurveyKey("abc-D_9") != "abc-D_9" || !strings.HasPrefix(ratelimit.SurveyKey("نظرسنجی"), "h") || len(ratelimit.SurveyKey(strings.Repeat("a", 500))) != 25 {
		t.Errorf("SurveyKey")
	}
	for path, want := range map[string]string{"/api/public/surveys/abc/sessions/": "abc", "/api/public/surveys/abc/": "abc", "/api/oembed/": ""} {
		if got, _ := ratelimit.RespondersSurvey(path); got != want {
			t.Errorf("RespondersSurvey(%q) = %q", path, got)
		}
	}
	for path, want := range map[string]string{"/s/abc/": "abc", "/s/abc/sheet/x/": "abc", "/r/R1/": "report-R1", "/api/oembed/": ""} {
		if got, _ := ratelimit.PagesSurvey(path); got != want {
			t.Errorf("PagesSurvey(%q) = %q", path, got)
		}
	}
	if _, exempt := ratelimit.PagesSurvey("/assets/app.js/"); !exempt {
		t.Errorf("assets are limited")
	}
}

// FuzzKeys: no path or address makes a key that is long or not plain.
func FuzzKeys(f *testing.F) {
	f.Add("/s/abc/", "2001:db8::1")
	f.Add("/api/public/surveys/%E2%80%AE/", "192.0.2.1")
	f.Fuzz(func(t *testing.T, path, ip string) {
		for _, fn := range []func(string) (string, bool){ratelimit.PagesSurvey, ratelimit.RespondersSurvey} {
			slug, _ := fn(path)
			if k := ratelimit.SurveyKey(slug); len(k) > 64 || strings.ContainsAny(k, "#/ \x00") {
				t.Errorf("SurveyKey(%q) = %q", slug, k)
			}
		}
		if k := ratelimit.ClientKey(ip); len(k) > 64 || strings.Contains(k, "#") {
			t.Errorf("ClientKey(%q) = %q", ip, k)
		}
	})
}

// TestSourceIPOnLambda: behind API Gateway the client is the request
// context's sourceIp, as the Lambda adapter hands it over; a forged
// X-Forwarded-For moves nothing.
func TestSourceIPOnLambda(t *testing.T) {
	t.Parallel()
	h := gateway.New(policy(t, scope("g"), ratelimit.RespondersSurvey).Wrap(ok))
	call := func(ip, forwarded string) int {
		ev := events.APIGatewayV2HTTPRequest{RawPath: "/api/public/surveys/x/", Headers: map[string]string{"x-forwarded-for": forwarded}}
		ev.RequestContext.HTTP.Method, ev.RequestContext.HTTP.Path, ev.RequestContext.HTTP.SourceIP = "GET", ev.RawPath, ip
		resp, err := h(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode
	}
	for i := range 5 {
		if code := call("198.51.100.50", fmt.Sprintf("10.0.0.%d", i)); code != 200 {
			t.Fatalf("request %d: %d", i, code)
		}
	}
	if code := call("198.51.100.50", "10.9.9.9"); code != 429 {
		t.Errorf("the sixth request of one source IP, another X-Forwarded-For: %d, want 429", code)
	}
	if code := call("198.51.100.51", "198.51.100.50"); code != 200 {
		t.Errorf("another source IP forwarding for the first: %d, want 200", code)
	}
}

// TestRatesFromEnv is make run's RATE_LIMITS: the service's rates, none,
// or the client's sized; anything else an error.
func TestRatesFromEnv(t *testing.T) {
	t.Parallel()
	sized := ratelimit.Service
	sized.Client.Limit = 5
	for v, want := range map[string]ratelimit.Rates{"": ratelimit.Service, " ": ratelimit.Service, "off": {Off: true}, "5": sized} {
		if got, err := ratelimit.RatesFromEnv(v); err != nil || got != want {
			t.Errorf("ratelimit.RatesFromEnv(%q) = %+v, %v; want %+v", v, got, err, want)
		}
	}
	for _, v := range []string{"0", "-3", "on", "5/s", "1e3"} {
		if _, err := ratelimit.RatesFromEnv(v); err == nil {
			t.Errorf("ratelimit.RatesFromEnv(%q) accepted", v)
		}
	}
	// Off serves every request, without a counter.
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	h := ratelimit.NewPolicyAt("t", ratelimit.Rates{Off: true}, nil, ratelimit.RespondersSurvey, nil).Wrap(next)
	for range 3 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/public/surveys/s/", nil))
		if rec.Code != 204 {
			t.Fatalf("off: %d", rec.Code)
		}
	}
}
