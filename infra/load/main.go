// Command load is `make load`: it starts the whole local stack (`make
// run`'s server on DynamoDB Local behind the conflict model, and moto) and
// runs one scenario against it on loopback, bounded in count and time:
//
//	go run ./infra/load [-clients 50] [-requests 2000] [-duration 90s]
//	go run ./infra/load -scenario viral [-responders 200] [-duration 60s] [-limit N]
//
// The mix scenario (the default) prepares an account's data through the
// API, then drives a mixed workload from 50 concurrent clients and prints
// throughput, p50/p99 latency per route and the count of 5xx answers. The
// viral scenario is a survey shared with a crowd; see viral.go.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"surveyservice/internal/conflict"
)

func main() {
	scenario := flag.String("scenario", "mix", "mix or viral")
	clients := flag.Int("clients", 50, "mix: concurrent clients")
	requests := flag.Int("requests", 2000, "mix: requests in all")
	duration := flag.Duration("duration", 0, "mix: stop after this long at the most (default 90s); viral: how long the responders respond (default 60s)")
	responders := flag.Int("responders", 200, "viral: concurrent responders on the one survey")
	patches := flag.Int("patches", 3, "viral: the owner's PATCHes during the run, evenly spread")
	edits := flag.String("edits", "settings,survey,question", "viral: what the owner's PATCHes change, in turn (settings, survey, question; comma-separated)")
	partials := flag.Bool("partials", false, "viral: the survey keeps partial responses; each responder saves one before it submits")
	abandon := flag.Int("abandon", 0, "viral, with -partials: every Nth round saves two pages of its partial (the second a delta) and leaves without submitting")
	signIn := flag.Bool("signin", false, "viral: the survey asks for a sign-in; each responder confirms a code by email (read from the local outbox) before it saves and submits")
	limit := flag.Int64("limit", 0, "viral: the survey's response_limit; exactly that many must be recorded (0: none)")
	limitAt := flag.Duration("limit-at", 0, "viral: set -limit this long into the run, not before it; exactly the limit, or its base when more, must be recorded")
	hold := flag.Duration("hold", conflict.DefaultHold, "how long the conflict model holds a write transaction's items")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch *scenario {
	case "mix":
		err = run(ctx, *clients, *requests, or(*duration, 90*time.Second), *hold)
	case "viral":
		var res viralResult
		res, err = runViral(ctx, viralOptions{Responders: *responders, Duration: or(*duration, time.Minute), Patches: *patches,
			Edits: strings.Split(*edits, ","), Hold: *hold, Out: os.Stdout, Partials: *partials, Abandon: *abandon, SignIn: *signIn, Limit: *limit, LimitAt: *limitAt})
		if err == nil {
			err = res.check()
		}
	default:
		err = fmt.Errorf("unknown scenario %q (mix or viral)", *scenario)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func or(d, fallback time.Duration) time.Duration {
	if d <= 0 {
		return fallback
	}
	return d
}

var client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 100}}

// call sends one request and answers the status, the body and the time.
func (s *server) call(method, path, body string, auth bool) (int, []byte, time.Duration, error) {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.base+path, r)
	if err != nil {
		return 0, nil, 0, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth {
		req.Header.Set("Authorization", "API-Key "+s.key)
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, time.Since(start), err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, time.Since(start), err
}

// fixture is the data the workload reads and writes.
type fixture struct {
	folder, survey int64
	slug, template string
	tokens         []string
}

func (s *server) prepare() (fixture, error) {
	var fx fixture
	must := func(method, path, body string, want int, out any) error {
		code, b, _, err := s.call(method, path, body, true)
		if err != nil {
			return err
		}
		if code != want {
			return fmt.Errorf("prepare: %s %s = %d %s", method, path, code, b)
		}
		if out != nil {
			return json.Unmarshal(b, out)
		}
		return nil
	}
	var folder struct{ ID int64 }
	if err := must("POST", "/api/folders/", `{"name":"Load"}`, 201, &folder); err != nil {
		return fx, err
	}
	var sv struct {
		ID      int64
		URLSlug string `json:"url_slug"`
	}
	if err := must("POST", "/api/v2/surveys/", fmt.Sprintf(`{"name":"Load","folder_id":%d}`, folder.ID), 201, &sv); err != nil {
		return fx, err
	}
	fx.folder, fx.survey, fx.slug = folder.ID, sv.ID, sv.URLSlug
	if err := must("POST", fmt.Sprintf("/api/surveys/%d/variables/", sv.ID), `[{"name":"city","variable_source":0},{"name":"age","variable_source":0,"type":2}]`, 201, nil); err != nil {
		return fx, err
	}
	if err := must("PATCH", fmt.Sprintf("/api/surveys/%d/settings/", sv.ID), `{"code_auth":true}`, 200, nil); err != nil {
		return fx, err
	}
	codes := make([]string, 200)
	for i := range codes {
		codes[i] = fmt.Sprintf("CODE-%04d", i)
	}
	b, _ := json.Marshal(codes)
	if err := must("POST", fmt.Sprintf("/api/surveys/%d/settings/authentication-codes/", sv.ID), string(b), 201, nil); err != nil {
		return fx, err
	}
	var links struct{ URLs []string }
	if err := must("POST", fmt.Sprintf("/api/surveys/%d/variables/hashes/", sv.ID), `{"values":[{"city":"Tehran","age":30},{"city":"Yazd"}]}`, 200, &links); err != nil {
		return fx, err
	}
	for _, u := range links.URLs {
		pu, err := url.Parse(u)
		if err != nil {
			return fx, err
		}
		fx.tokens = append(fx.tokens, pu.Query().Get("qs"))
	}
	var catalog struct {
		Results []struct {
			URLSlug string `json:"url_slug"`
		}
	}
	code, body, _, err := s.call("GET", "/api/templates/", "", false)
	if err != nil || code != 200 || json.Unmarshal(body, &catalog) != nil || len(catalog.Results) == 0 {
		return fx, fmt.Errorf("prepare: the catalog: %d %v", code, err)
	}
	fx.template = url.PathEscape(catalog.Results[0].URLSlug)
	return fx, nil
}

// op is one kind of request of the mix.
type op struct {
	route  string
	weight int
	make   func(fx fixture, n int) (method, path, body string, auth bool)
}

var mix = []op{
	{"GET /api/folders/", 15, func(fx fixture, _ int) (string, string, string, bool) { return "GET", "/api/folders/", "", true }},
	{"GET /api/v2/surveys/{id}/", 20, func(fx fixture, _ int) (string, string, string, bool) {
		return "GET", fmt.Sprintf("/api/v2/surveys/%d/", fx.survey), "", true
	}},
	{"GET /api/templates/", 8, func(fx fixture, _ int) (string, string, string, bool) {
		return "GET", "/api/templates/?page_size=5", "", false
	}},
	{"GET /api/templates/{slug}/", 8, func(fx fixture, _ int) (string, string, string, bool) {
		return "GET", "/api/templates/" + fx.template + "/", "", false
	}},
	{"POST /api/v2/surveys/{id}/questions/", 8, func(fx fixture, n int) (string, string, string, bool) {
		return "POST", fmt.Sprintf("/api/v2/surveys/%d/questions/", fx.survey), fmt.Sprintf(`{"title":"Question %d","type":2}`, n), true
	}},
	{"PATCH /api/v2/surveys/{id}/", 5, func(fx fixture, n int) (string, string, string, bool) {
		return "PATCH", fmt.Sprintf("/api/v2/surveys/%d/", fx.survey), fmt.Sprintf(`{"name":"Load %d"}`, n), true
	}},
	{"GET /api/surveys/{id}/settings/", 6, func(fx fixture, _ int) (string, string, string, bool) {
		return "GET", fmt.Sprintf("/api/surveys/%d/settings/", fx.survey), "", true
	}},
	{"POST .../authentication-codes/", 5, func(fx fixture, n int) (string, string, string, bool) {
		return "POST", fmt.Sprintf("/api/surveys/%d/settings/authentication-codes/", fx.survey), fmt.Sprintf(`["LOAD-%d-A","LOAD-%d-B"]`, n, n), true
	}},
	{"GET .../authentication-codes/", 5, func(fx fixture, _ int) (string, string, string, bool) {
		return "GET", fmt.Sprintf("/api/surveys/%d/settings/authentication-codes/?page_size=50", fx.survey), "", true
	}},
	{"POST .../variables/hashes/", 6, func(fx fixture, n int) (string, string, string, bool) {
		return "POST", fmt.Sprintf("/api/surveys/%d/variables/hashes/", fx.survey), fmt.Sprintf(`{"values":[{"city":"C%d","age":%d},{"city":"D"}]}`, n, n), true
	}},
	{"GET /api/public/.../variables/", 7, func(fx fixture, n int) (string, string, string, bool) {
		return "GET", "/api/public/surveys/" + fx.slug + "/variables/?qs=" + fx.tokens[n%len(fx.tokens)], "", false
	}},
	{"POST /api/public/.../authenticate/", 7, func(fx fixture, n int) (string, string, string, bool) {
		return "POST", "/api/public/surveys/" + fx.slug + "/authenticate/", fmt.Sprintf(`{"code":"CODE-%04d"}`, n%200), false
	}},
}

type sample struct {
	route  string
	status int
	d      time.Duration
	err    error
}

func run(ctx context.Context, clients, requests int, duration time.Duration, hold time.Duration) error {
	fmt.Printf("Starting the local API (DynamoDB Local behind the conflict model, hold %v, and moto)...\n", hold)
	s, err := startStack(ctx, hold, nil)
	if err != nil {
		return err
	}
	defer s.stop()
	fx, err := s.prepare()
	if err != nil {
		return err
	}
	total := 0
	for _, o := range mix {
		total += o.weight
	}
	pick := func(r *rand.Rand) op {
		n := r.IntN(total)
		for _, o := range mix {
			if n < o.weight {
				return o
			}
			n -= o.weight
		}
		return mix[0]
	}
	fmt.Printf("Driving %d requests from %d clients on %s (at most %s)...\n", requests, clients, s.base, duration)
	ctx, cancel := context.WithTimeout(ctx, duration)
	defer cancel()
	var next atomic.Int64
	samples := make(chan sample, requests)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(c), 42))
			for ctx.Err() == nil {
				n := int(next.Add(1))
				if n > requests {
					return
				}
				o := pick(r)
				method, path, body, auth := o.make(fx, n)
				code, _, d, err := s.call(method, path, body, auth)
				samples <- sample{route: o.route, status: code, d: d, err: err}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(samples)
	err = report(samples, elapsed)
	fmt.Printf("conflict model: %d writes cancelled\n", s.model.Conflicts())
	return err
}

func report(samples chan sample, elapsed time.Duration) error {
	byRoute := map[string][]time.Duration{}
	statuses := map[string]map[int]int{}
	var n, s5xx, s503, errs int
	for sm := range samples {
		n++
		if sm.err != nil {
			errs++
			continue
		}
		byRoute[sm.route] = append(byRoute[sm.route], sm.d)
		if statuses[sm.route] == nil {
			statuses[sm.route] = map[int]int{}
		}
		statuses[sm.route][sm.status]++
		if sm.status >= 500 {
			s5xx++
			if sm.status == 503 {
				s503++
			}
		}
	}
	routes := make([]string, 0, len(byRoute))
	for r := range byRoute {
		routes = append(routes, r)
	}
	sort.Strings(routes)
	var b bytes.Buffer
	fmt.Fprintf(&b, "\n%d requests in %.1fs: %.1f requests/s; %d transport errors\n", n, elapsed.Seconds(), float64(n)/elapsed.Seconds(), errs)
	fmt.Fprintf(&b, "%-40s %6s %9s %9s  %s\n", "route", "count", "p50 ms", "p99 ms", "statuses")
	for _, r := range routes {
		ds := byRoute[r]
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		p := func(q float64) float64 {
			return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))].Microseconds()) / 1000
		}
		var st []string
		for code, c := range statuses[r] {
			st = append(st, fmt.Sprintf("%d×%d", c, code))
		}
		sort.Strings(st)
		fmt.Fprintf(&b, "%-40s %6d %9.1f %9.1f  %s\n", r, len(ds), p(0.50), p(0.99), strings.Join(st, " "))
	}
	fmt.Fprintf(&b, "5xx: %d (of which 503, throttling/busy: %d; other 5xx: %d)\n", s5xx, s503, s5xx-s503)
	fmt.Print(b.String())
	if s5xx-s503 > 0 || errs > 0 {
		return errors.New("answers other than 503 in the 5xx range, or transport errors")
	}
	return nil
}
