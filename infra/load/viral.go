package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/shared/challenge"
	"surveyservice/shared/store"
)

// viralOptions configure the scenario.
//
// The "viral survey" scenario: one survey shared with a crowd.
// Responders, each a client of its own (its own loopback address, so the
// service sees distinct clients, its own cookies and connection), answer the
// one survey in a loop for the run's duration, as the hosted page does:
// GET the survey (a view), POST a session, POST the response with its
// session's own Idempotency-Key. Meanwhile the owner PATCHes the survey's settings a few
// times; each must succeed. After the run the scenario counts the responses
// stored (consistent Queries of the table's response partitions, apart
// from every count the service keeps) and waits until the survey's
// submitted_responses and views and the public report's counts (responses
// and each choice's picks) equal what was stored and answered: counts come
// from the tally function on the table's stream, so they may lag; that lag
// is measured.
type viralOptions struct {
	Responders int
	Duration   time.Duration
	// Patches is the owner's PATCHes, spread evenly over the run; Edits
	// what they change, in turn: "settings" (the survey's settings, the
	// default), "survey" (its name), "question" (a question's title).
	Patches int
	Edits   []string
	// Hold is the conflict model's hold (conflict.DefaultHold).
	Hold time.Duration
	// Settle bounds the wait for the counts after the run (2 minutes when 0).
	Settle time.Duration
	// Partials turns the survey's partial_responses on: each responder
	// saves its partial (PUT .../partial/, contract section 20) before it
	// submits, and the partial count must come back to the partials no
	// submission replaced.
	Partials bool
	// Abandon, with Partials, makes every Abandon-th round of a responder
	// save its partial (two pages, the second's answers long enough for a
	// delta) and leave without submitting: partial_responses_count and the
	// owner's list of partials must both come back to those (0: none).
	Abandon int
	// SignIn turns the survey's service_auth on (contract section 18):
	// each responder solves the survey's challenge, asks for a code by
	// email (to an address of its own each round, from a client address of
	// its own each round: the per-address and per-client budgets hold a
	// real responder to a few codes an hour), reads it from the local
	// outbox (the SES stand-in's, GET /local/outbox/) and confirms it, and
	// saves and submits with the signed-in session.
	SignIn bool
	// Limit, when set, is the survey's response_limit (contract section
	// 25): exactly that many must be recorded; a responder that meets the
	// survey full (410) leaves, as a person would.
	Limit int64
	// LimitAt, when set, is when into the run the owner sets Limit (as an
	// outside test did, hostile8): the submissions in flight then are
	// fenced, and those that took no place of it withdrawn. What is
	// recorded must be exactly the limit, or the limit's base (what was
	// recorded when it was set) when that is more.
	LimitAt time.Duration
	Out     io.Writer
}

// Routes of a responder's round, as the scenario names them.
const (
	routeView      = "GET /api/public/surveys/{slug}/"
	routeSession   = "POST .../sessions/"
	routeSubmit    = "POST .../responses/"
	routePartial   = "PUT .../partial/"
	routeChallenge = "GET .../challenge/"
	routeVerify    = "POST .../verifications/"
	routeConfirm   = "POST .../verifications/confirm/"
)

// routeOrder is the routes in a round's order, as printed.
var routeOrder = []string{routeView, routeSession, routeChallenge, routeVerify, routeConfirm, routePartial, routeSubmit}

// signInDomain is the domains the sign-in survey admits, and its
// responders' addresses.
const signInDomain = "load.example"

// signInLimits are the server's survey and account budgets of codes
// (VERIFY_LIMITS) with -signin: wide enough for the run, so that what it
// measures is the service under load, not the budgets' refusals (their
// counters are written all the same).
const signInLimits = "survey=10000000/h,account=100000000/d"

// choiceNames are the choices of the survey's question; responder i's
// round n picks choiceNames[(i+n)%3].
var choiceNames = []string{"Yes", "No", "Maybe"}

// routeStats are one route's answers.
type routeStats struct {
	lat      []time.Duration
	statuses map[int]int
	errs     int // transport errors
	first    map[int]string
}

func (r *routeStats) add(code int, d time.Duration, body []byte, err error) {
	if r.statuses == nil {
		r.statuses, r.first = map[int]int{}, map[int]string{}
	}
	if err != nil {
		r.errs++
		return
	}
	r.lat = append(r.lat, d)
	r.statuses[code]++
	if code >= 300 {
		if _, ok := r.first[code]; !ok {
			r.first[code] = fmt.Sprintf("%.200s", body)
		}
	}
}

func (r *routeStats) merge(o *routeStats) {
	if r.statuses == nil {
		r.statuses, r.first = map[int]int{}, map[int]string{}
	}
	for code, n := range o.statuses {
		r.statuses[code] += n
	}
	for code, b := range o.first {
		if _, ok := r.first[code]; !ok {
			r.first[code] = b
		}
	}
	r.lat = append(r.lat, o.lat...)
	r.errs += o.errs
}

// patchResult is one owner PATCH made during the run.
type patchResult struct {
	Edit   string
	At     time.Duration // after the run's start
	Status int
	Took   time.Duration
	Err    error
}

// counts are what the owner reads: the survey's counts and its public
// report's.
type counts struct {
	Submitted, Views, Report int64
	Choices                  map[string]int64
	// Partials is the detail's partial_responses_count; Listed the
	// partials the owner's list (?status=partial) holds, read page by page.
	Partials, Listed int64
}

// viralResult is what the scenario measured.
type viralResult struct {
	Responders int
	Elapsed    time.Duration
	Routes     map[string]*routeStats
	// Accepted counts the 201s of submissions, by the choice they picked;
	// Viewed the 200s of views.
	Accepted map[string]int64
	Viewed   int64
	// PartialsLeft counts the partials saved (204) whose submission was
	// not accepted: what partial_responses_count must come back to.
	PartialsLeft int64
	Patches      []patchResult
	// Stored is the responses in the table after the run.
	Stored int64
	// Final is the owner's counts when they last were read; Exact whether
	// they equalled what was stored and answered, Lag how long after the
	// run's end they first did.
	Final     counts
	Exact     bool
	Lag       time.Duration
	Conflicts int64
	// ServerErrors counts the server's ERROR log lines.
	ServerErrors int
	ServerFirst  []string
	// Limit is the survey's response_limit (0: none); Full counts the
	// answers 410 "full" it gave.
	Limit int64
	Full  int
	// LimitBase is the limit's base (survey.Settings.ResponseLimitBase):
	// 0 for a limit set before the run.
	LimitBase int64
}

// limitWant is how many responses a run with a limit must record: the
// limit, or its base when that is more.
func (r viralResult) limitWant() int64 { return max(r.Limit, r.LimitBase) }

func (r viralResult) accepted() int64 {
	var n int64
	for _, c := range r.Accepted {
		n += c
	}
	return n
}

// status answers how many answers of route had code.
func (r viralResult) status(route string, code int) int {
	if s := r.Routes[route]; s != nil {
		return s.statuses[code]
	}
	return 0
}

// refused counts the answers of the scenario's routes that are the
// service's refusals under load (503 busy, 429 limited): figures, not
// failures; other counts the non-2xx answers that are neither.
func (r viralResult) nonSuccess() (busy, limited, other int) {
	for _, s := range r.Routes {
		for code, n := range s.statuses {
			switch {
			case code == http.StatusGone && r.Limit > 0 && strings.Contains(s.first[code], fullDetail):
				// The survey full: the limit's refusal, not a failure.
			case code == http.StatusServiceUnavailable:
				busy += n
			case code == http.StatusTooManyRequests:
				limited += n
			case code < 200 || code >= 300:
				other += n
			}
		}
	}
	return busy, limited, other
}

func (r viralResult) transportErrors() int {
	n := 0
	for _, s := range r.Routes {
		n += s.errs
	}
	return n
}

// check answers an error unless every owner PATCH succeeded, the counts
// were exact, and no answer was a failure (transport error, or non-2xx
// other than 503 and 429).
func (r viralResult) check() error {
	var errs []error
	for _, p := range r.Patches {
		if p.Err != nil || p.Status != http.StatusOK {
			errs = append(errs, fmt.Errorf("the owner's %s PATCH at %v answered %d %v", p.Edit, p.At.Round(time.Millisecond), p.Status, p.Err))
		}
	}
	if len(r.Patches) == 0 {
		errs = append(errs, errors.New("no owner PATCH was made during the run"))
	}
	if !r.Exact {
		errs = append(errs,
			fmt.Errorf("counts not exact: %d responses stored, %d submissions accepted (201), %d views answered; "+
				"the owner reads submitted_responses %d, views %d, report %d, choices %v (want %v), partials %d and %d listed (want %d)",
				r.Stored, r.accepted(), r.Viewed, r.Final.Submitted, r.Final.Views, r.Final.Report, r.Final.Choices, r.Accepted, r.Final.Partials,
				r.Final.Listed, r.PartialsLeft))
	}
	if _, _, other := r.nonSuccess(); other > 0 {
		errs = append(errs, fmt.Errorf("%d answers were neither 2xx nor 503/429", other))
	}
	if n := r.transportErrors(); n > 0 {
		errs = append(errs, fmt.Errorf("%d transport errors", n))
	}
	if r.accepted() == 0 {
		errs = append(errs, errors.New("no submission was accepted"))
	}
	if r.Limit > 0 && (r.Stored != r.limitWant() || r.accepted() != r.limitWant()) {
		errs = append(errs, fmt.Errorf("response_limit %d (base %d): %d responses stored, %d accepted (201), want exactly %d", r.Limit, r.LimitBase,
			r.Stored, r.accepted(), r.limitWant()))
	}
	return errors.Join(errs...)
}

// runViral starts the stack, runs the scenario and prints its figures.
func runViral(ctx context.Context, o viralOptions) (viralResult, error) {
	if o.Responders < 1 || o.Responders > 250*250 || o.Duration <= 0 {
		return viralResult{}, fmt.Errorf("viral: %d responders for %v", o.Responders, o.Duration)
	}
	if o.Settle <= 0 {
		o.Settle = 2 * time.Minute
	}
	for _, e := range o.Edits {
		if e != "settings" && e != "survey" && e != "question" {
			return viralResult{}, fmt.Errorf("viral: unknown edit %q (settings, survey or question)", e)
		}
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	fmt.Fprintf(o.Out, "Starting the local API (DynamoDB Local behind the conflict model, hold %v, and moto)...\n", o.Hold)
	var env map[string]string
	if o.SignIn {
		env = map[string]string{"VERIFY_LIMITS": signInLimits}
	}
	s, err := startStack(ctx, o.Hold, env)
	if err != nil {
		return viralResult{}, err
	}
	defer s.stop()
	sv, err := s.viralSurvey()
	if err != nil {
		return viralResult{}, err
	}
	if o.Partials {
		code, b, _, err := s.call("PATCH", fmt.Sprintf("/api/surveys/%d/settings/", sv.id), `{"partial_responses": true}`, true)
		if err != nil || code != http.StatusOK {
			return viralResult{}, fmt.Errorf("viral: partial_responses on: %d %v %.200s", code, err, b)
		}
	}
	if o.SignIn {
		body := fmt.Sprintf(`{"service_auth": true, "service_auth_domains": ["*@%s"]}`, signInDomain)
		code, b, _, err := s.call("PATCH", fmt.Sprintf("/api/surveys/%d/settings/", sv.id), body, true)
		if err != nil || code != http.StatusOK {
			return viralResult{}, fmt.Errorf("viral: service_auth on: %d %v %.200s", code, err, b)
		}
	}
	setLimit := func() error {
		code, b, _, err := s.call("PATCH", fmt.Sprintf("/api/surveys/%d/settings/", sv.id), fmt.Sprintf(`{"response_limit": %d}`, o.Limit), true)
		if err != nil || code != http.StatusOK {
			return fmt.Errorf("viral: response_limit %d: %d %v %.200s", o.Limit, code, err, b)
		}
		return nil
	}
	if o.Limit > 0 && o.LimitAt == 0 {
		if err := setLimit(); err != nil {
			return viralResult{}, err
		}
	}
	fmt.Fprintf(o.Out, "Viral survey %d (/s/%s/): %d responders for %v on %s, %d owner PATCHes...\n",
		sv.id, sv.slug, o.Responders, o.Duration, s.base, o.Patches)
	res := viralResult{Responders: o.Responders, Routes: map[string]*routeStats{}, Accepted: map[string]int64{}, Limit: o.Limit}

	runCtx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	type tally struct {
		routes   map[string]*routeStats
		accepted map[string]int64
		viewed   int64
		left     int64
	}
	tallies := make([]tally, o.Responders)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range o.Responders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := tally{routes: map[string]*routeStats{routeView: {}, routeSession: {}, routeSubmit: {}}, accepted: map[string]int64{}}
			if o.Partials {
				t.routes[routePartial] = &routeStats{}
			}
			if o.SignIn {
				t.routes[routeChallenge], t.routes[routeVerify], t.routes[routeConfirm] = &routeStats{}, &routeStats{}, &routeStats{}
			}
			r := newResponder(i)
			for n := 0; runCtx.Err() == nil; n++ {
				choice := choiceNames[(i+n)%len(choiceNames)]
				abandon := o.Partials && o.Abandon > 0 && (i+n)%o.Abandon == 0
				viewed, saved, picked := r.round(s.base, sv, choice, fmt.Sprintf("viral-%d-%d", i, n), o, abandon, t.routes)
				if viewed {
					t.viewed++
				}
				if picked {
					t.accepted[choice]++
				}
				if saved && !picked {
					t.left++
				}
				if o.Limit > 0 && (t.routes[routeSession].statuses[http.StatusGone] > 0 || t.routes[routeSubmit].statuses[http.StatusGone] > 0) {
					break // the survey is full: this responder leaves
				}
			}
			r.client.CloseIdleConnections()
			tallies[i] = t
		}()
	}
	// The limit set during the run (-limit-at).
	limitSet := make(chan error, 1)
	if o.Limit > 0 && o.LimitAt > 0 {
		go func() {
			select {
			case <-time.After(time.Until(start.Add(o.LimitAt))):
				limitSet <- setLimit()
			case <-runCtx.Done():
				limitSet <- errors.New("viral: the run ended before -limit-at")
			}
		}()
	} else {
		limitSet <- nil
	}
	// The owner's PATCHes, evenly spread over the run.
	edits := o.Edits
	if len(edits) == 0 {
		edits = []string{"settings"}
	}
	patched := make(chan []patchResult, 1)
	go func() {
		var out []patchResult
		for k := range o.Patches {
			at := o.Duration * time.Duration(k+1) / time.Duration(o.Patches+1)
			select {
			case <-time.After(time.Until(start.Add(at))):
			case <-runCtx.Done():
			}
			edit := edits[k%len(edits)]
			path, body := fmt.Sprintf("/api/surveys/%d/settings/", sv.id), fmt.Sprintf(`{"hide_progressbar": %t}`, k%2 == 0)
			switch edit {
			case "survey":
				path, body = fmt.Sprintf("/api/v2/surveys/%d/", sv.id), fmt.Sprintf(`{"name": "Viral (%d)"}`, k)
			case "question":
				path, body = fmt.Sprintf("/api/v2/surveys/%d/questions/%d/", sv.id, sv.text), fmt.Sprintf(`{"title": "Why? (%d)"}`, k)
			}
			code, b, d, err := s.call("PATCH", path, body, true)
			if err == nil && code != http.StatusOK {
				err = fmt.Errorf("%.200s", b)
			}
			out = append(out, patchResult{Edit: edit, At: time.Since(start), Status: code, Took: d, Err: err})
		}
		patched <- out
	}()
	wg.Wait()
	res.Elapsed = time.Since(start)
	end := time.Now()
	res.Patches = <-patched
	if err := <-limitSet; err != nil {
		return res, err
	}
	if o.Limit > 0 {
		_, settings, err := s.st.SurveySettings(ctx, s.account, sv.id)
		if err != nil {
			return res, err
		}
		res.LimitBase = settings.ResponseLimitBase
	}
	for _, t := range tallies {
		for route, rs := range t.routes {
			if res.Routes[route] == nil {
				res.Routes[route] = &routeStats{}
			}
			res.Routes[route].merge(rs)
		}
		for c, n := range t.accepted {
			res.Accepted[c] += n
		}
		res.Viewed += t.viewed
		res.PartialsLeft += t.left
	}
	for _, c := range choiceNames {
		res.Accepted[c] += 0
	}
	for _, route := range []string{routeSession, routeSubmit} {
		res.Full += res.status(route, http.StatusGone)
	}

	// The counts: stored, then what the owner reads until it agrees.
	res.Stored, err = storedResponses(ctx, s.st, sv.id)
	if err != nil {
		return res, err
	}
	for {
		res.Final, err = s.ownerCounts(sv)
		if err != nil {
			return res, err
		}
		if res.Final.equal(res.Stored, res.accepted(), res.Viewed, res.Accepted) && res.Final.Partials == res.PartialsLeft && res.Final.Listed == res.PartialsLeft {
			res.Exact, res.Lag = true, time.Since(end)
			break
		}
		if time.Since(end) > o.Settle {
			res.Lag = time.Since(end)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	res.Conflicts = s.model.Conflicts()
	res.ServerErrors, res.ServerFirst = s.errs.errors()
	res.print(o.Out)
	return res, nil
}

func (c counts) equal(stored, accepted, viewed int64, choices map[string]int64) bool {
	if stored != accepted || c.Submitted != stored || c.Report != stored || c.Views != viewed {
		return false
	}
	for name, n := range choices {
		if c.Choices[name] != n {
			return false
		}
	}
	return true
}

// fullDetail is the limit's refusal (contract section 25).
const fullDetail = "This survey is full."

// viralSurvey is the scenario's survey.
type viralSurvey struct {
	id         int64
	slug       string
	reportCode string
	choice     int64 // the question's id
	choices    map[string]int64
	text       int64
}

// viralSurvey creates, through the API with the demo account's key, a
// survey of one required multiple-choice question (charted on the public
// report) and one text question.
func (s *stack) viralSurvey() (viralSurvey, error) {
	var sv viralSurvey
	must := func(method, path, body string, want int, out any) error {
		code, b, _, err := s.call(method, path, body, true)
		if err != nil {
			return err
		}
		if code != want {
			return fmt.Errorf("viral: %s %s = %d %s", method, path, code, b)
		}
		if out != nil {
			return json.Unmarshal(b, out)
		}
		return nil
	}
	var folder struct{ ID int64 }
	if err := must("POST", "/api/folders/", `{"name":"Viral"}`, 201, &folder); err != nil {
		return sv, err
	}
	var created struct {
		ID         int64  `json:"id"`
		URLSlug    string `json:"url_slug"`
		ReportCode string `json:"report_code"`
	}
	if err := must("POST", "/api/v2/surveys/", fmt.Sprintf(`{"name":"Viral","folder_id":%d}`, folder.ID), 201, &created); err != nil {
		return sv, err
	}
	sv.id, sv.slug, sv.reportCode = created.ID, created.URLSlug, created.ReportCode
	var q struct {
		ID      int64 `json:"id"`
		Choices []struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		} `json:"choices"`
	}
	body, _ := json.Marshal(map[string]any{"type": 3, "title": "Will you share this survey?", "answer_required": true, "show_charts": true,
		"choices": []map[string]string{{"name": choiceNames[0]}, {"name": choiceNames[1]}, {"name": choiceNames[2]}}})
	if err := must("POST", fmt.Sprintf("/api/v2/surveys/%d/questions/", sv.id), string(body), 201, &q); err != nil {
		return sv, err
	}
	sv.choice, sv.choices = q.ID, map[string]int64{}
	for _, c := range q.Choices {
		sv.choices[c.Name] = c.ID
	}
	if len(sv.choices) != len(choiceNames) {
		return sv, fmt.Errorf("viral: the question has choices %v", q.Choices)
	}
	var text struct{ ID int64 }
	if err := must("POST", fmt.Sprintf("/api/v2/surveys/%d/questions/", sv.id), `{"type":2,"title":"Why?"}`, 201, &text); err != nil {
		return sv, err
	}
	sv.text = text.ID
	return sv, nil
}

// responder is one responder's client: its own loopback source address,
// cookies and connection.
type responder struct {
	client *http.Client
}

func newResponder(i int) *responder {
	// 127.1.x.y: distinct addresses for up to 62,500 responders, all
	// routed to loopback.
	local := &net.TCPAddr{IP: net.IPv4(127, 1, byte(i/250), byte(i%250+1))}
	jar, _ := cookiejar.New(nil)
	tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: local, Timeout: 10 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 2, IdleConnTimeout: time.Minute}
	return &responder{client: &http.Client{Transport: tr, Jar: jar, Timeout: 60 * time.Second}}
}

// round is one response, as the hosted page makes it: the survey, a
// session, with partials the partial's save (the choice answered), the
// submission. It answers whether the view was counted (200), whether a
// partial was saved (204) and whether the response was accepted (201).
func (r *responder) round(base string, sv viralSurvey, choice, key string, o viralOptions, abandon bool, routes map[string]*routeStats) (viewed, saved, accepted bool) {
	public := base + "/api/public/surveys/" + sv.slug + "/"
	code, b, d, err := r.do("GET", public, "", nil)
	routes[routeView].add(code, d, b, err)
	viewed = err == nil && code == http.StatusOK
	if !viewed {
		return viewed, false, false
	}
	code, b, d, err = r.do("POST", public+"sessions/", "{}", nil)
	routes[routeSession].add(code, d, b, err)
	var session struct {
		Session string `json:"session"`
	}
	if err != nil || code != http.StatusCreated || json.Unmarshal(b, &session) != nil {
		return viewed, false, false
	}
	if o.SignIn {
		signed, ok := r.signIn(base, public, session.Session, key, routes)
		if !ok {
			return viewed, false, false
		}
		session.Session = signed
	}
	if o.Partials {
		body, _ := json.Marshal(map[string]any{"session": session.Session, "page": 0,
			"answers": map[string]any{strconv.FormatInt(sv.choice, 10): []int64{sv.choices[choice]}}})
		code, b, d, err = r.do("PUT", public+"partial/", string(body), nil)
		routes[routePartial].add(code, d, b, err)
		saved = err == nil && code == http.StatusNoContent
		if abandon {
			// A second page, its answer past the header's room (a delta),
			// and the responder leaves.
			body, _ := json.Marshal(map[string]any{"session": session.Session, "page": 1,
				"answers": map[string]any{strconv.FormatInt(sv.choice, 10): []int64{sv.choices[choice]},
					strconv.FormatInt(sv.text, 10): strings.Repeat("I will come back to this later, ", 12) + key}})
			code, b, d, err = r.do("PUT", public+"partial/", string(body), nil)
			routes[routePartial].add(code, d, b, err)
			return viewed, saved || err == nil && code == http.StatusNoContent, false
		}
	}
	answers, _ := json.Marshal(map[string]any{
		"session": session.Session,
		"answers": map[string]any{
			strconv.FormatInt(sv.choice, 10): []int64{sv.choices[choice]},
			strconv.FormatInt(sv.text, 10):   "Because everyone in the channel did (" + key + ")",
		},
	})
	// The page's key: its session's own (responding.SessionKey).
	pageKey := "session:" + session.Session[max(0, len(session.Session)-32):]
	code, b, d, err = r.do("POST", public+"responses/", string(answers), map[string]string{"Idempotency-Key": pageKey})
	routes[routeSubmit].add(code, d, b, err)
	return viewed, saved, err == nil && code == http.StatusCreated
}

// signInClients numbers the client addresses of sign-ins: 127.2.x.y, one
// a sign-in.
var signInClients atomic.Int64

// codeInBody is a sign-in code in a message's body.
var codeInBody = regexp.MustCompile(`\b[0-9]{6}\b`)

// signIn signs the session in as the hosted page does (contract section
// 18): a challenge solved, a code sent by email (to an address of this
// round's own, from a client address of its own), the code read from the
// local outbox and confirmed. It answers the signed-in session token.
func (r *responder) signIn(base, public, session, key string, routes map[string]*routeStats) (string, bool) {
	code, b, d, err := r.do("GET", public+"challenge/", "", nil)
	routes[routeChallenge].add(code, d, b, err)
	var is challenge.Issued
	if err != nil || code != http.StatusOK || json.Unmarshal(b, &is) != nil {
		return "", false
	}
	k := signInClients.Add(1) - 1
	client := &http.Client{Jar: r.client.Jar, Timeout: r.client.Timeout, Transport: &http.Transport{
		DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 2, byte(k/250%250), byte(k%250+1))}, Timeout: 10 * time.Second}).DialContext}}
	defer client.CloseIdleConnections()
	from := &responder{client: client}
	address := key + "@" + signInDomain
	body, _ := json.Marshal(map[string]any{"session": session, "channel": "email", "address": address,
		"captcha": map[string]any{"challenge": is.Challenge, "nonce": challenge.Solve(is.Salt, is.Difficulty)}})
	code, b, d, err = from.do("POST", public+"verifications/", string(body), nil)
	routes[routeVerify].add(code, d, b, err)
	var sent struct {
		Verification string `json:"verification"`
	}
	if err != nil || code != http.StatusAccepted || json.Unmarshal(b, &sent) != nil {
		return "", false
	}
	sentCode, ok := r.outboxCode(base, address)
	if !ok {
		routes[routeVerify].add(0, 0, nil, fmt.Errorf("no code in the outbox for %s", address))
		return "", false
	}
	body, _ = json.Marshal(map[string]any{"session": session, "verification": sent.Verification, "code": sentCode})
	code, b, d, err = from.do("POST", public+"verifications/confirm/", string(body), nil)
	routes[routeConfirm].add(code, d, b, err)
	var confirmed struct {
		Session string `json:"session"`
	}
	if err != nil || code != http.StatusOK || json.Unmarshal(b, &confirmed) != nil || confirmed.Session == "" {
		return "", false
	}
	return confirmed.Session, true
}

// outboxCode reads the code last sent to address from the local outbox
// (make run's, newest first). The send is done when its request answers,
// so the first read finds it; a few more cover a slow read.
func (r *responder) outboxCode(base, address string) (string, bool) {
	for range 5 {
		code, b, _, err := r.do("GET", base+"/local/outbox/", "", nil)
		var msgs []struct {
			To   string `json:"to"`
			Body string `json:"body"`
		}
		if err == nil && code == http.StatusOK && json.Unmarshal(b, &msgs) == nil {
			for _, m := range msgs {
				if m.To == address {
					if c := codeInBody.FindString(m.Body); c != "" {
						return c, true
					}
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return "", false
}

func (r *responder) do(method, url, body string, header map[string]string) (int, []byte, time.Duration, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, nil, 0, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	start := time.Now()
	resp, err := r.client.Do(req)
	if err != nil {
		return 0, nil, time.Since(start), err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, time.Since(start), err
}

// storedResponses counts the survey's responses in the table: a
// consistent Query (Select COUNT) of each response partition.
func storedResponses(ctx context.Context, st *store.Store, sid int64) (int64, error) {
	var n int64
	for shard := range store.ResponseShards {
		in := &dynamodb.QueryInput{
			TableName:              aws.String(st.TableName()),
			KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :sk)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":pk": &types.AttributeValueMemberS{Value: store.ResponsesShardPK(sid, shard)},
				":sk": &types.AttributeValueMemberS{Value: "RESPONSE#"},
			},
			Select:         types.SelectCount,
			ConsistentRead: aws.Bool(true),
		}
		for {
			out, err := st.Client().Query(ctx, in)
			if err != nil {
				return 0, fmt.Errorf("count the stored responses: %w", err)
			}
			n += int64(out.Count)
			if len(out.LastEvaluatedKey) == 0 {
				break
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
	return n, nil
}

var (
	reportCount  = regexp.MustCompile(`id="count">[^<]*<strong>([^<]*)</strong>`)
	reportChoice = regexp.MustCompile(`<desc id="chart0-d">([^<]*)</desc>`)
)

// ownerCounts reads the survey's detail and its public report page.
func (s *stack) ownerCounts(sv viralSurvey) (counts, error) {
	var c counts
	code, b, _, err := s.call("GET", fmt.Sprintf("/api/v2/surveys/%d/", sv.id), "", true)
	if err != nil || code != http.StatusOK {
		return c, fmt.Errorf("viral: the survey's detail: %d %v %.200s", code, err, b)
	}
	var detail struct {
		Submitted int64 `json:"submitted_responses"`
		Views     int64 `json:"views"`
		Partials  int64 `json:"partial_responses_count"`
	}
	if err := json.Unmarshal(b, &detail); err != nil {
		return c, err
	}
	c.Submitted, c.Views, c.Partials = detail.Submitted, detail.Views, detail.Partials
	// The owner's list of partials, page by page through its cursor.
	for next := fmt.Sprintf("/api/surveys/%d/responses/?status=partial&limit=100", sv.id); next != ""; {
		code, b, _, err := s.call("GET", next, "", true)
		if err != nil || code != http.StatusOK {
			return c, fmt.Errorf("viral: the owner's list of partials: %d %v %.200s", code, err, b)
		}
		var page struct {
			Next    *string           `json:"next"`
			Results []json.RawMessage `json:"results"`
		}
		if err := json.Unmarshal(b, &page); err != nil {
			return c, err
		}
		c.Listed += int64(len(page.Results))
		next = ""
		if page.Next != nil && *page.Next != "" {
			u, err := url.Parse(*page.Next)
			if err != nil {
				return c, err
			}
			next = u.RequestURI()
		}
	}
	code, b, _, err = s.call("GET", "/r/"+sv.reportCode+"/", "", false)
	if err != nil || code != http.StatusOK {
		return c, fmt.Errorf("viral: the report: %d %v", code, err)
	}
	m := reportCount.FindSubmatch(b)
	if m == nil {
		return c, fmt.Errorf("viral: no count on the report page")
	}
	if c.Report, err = readCount(string(m[1])); err != nil {
		return c, fmt.Errorf("viral: the report's count %q", m[1])
	}
	m = reportChoice.FindSubmatch(b)
	if m == nil {
		return c, fmt.Errorf("viral: no chart on the report page")
	}
	c.Choices = map[string]int64{}
	for _, part := range strings.Split(html.UnescapeString(string(m[1])), "; ") {
		name, n, ok := strings.Cut(part, ": ")
		v, err := readCount(n)
		if !ok || err != nil {
			return c, fmt.Errorf("viral: the report's chart reads %q", m[1])
		}
		c.Choices[name] = v
	}
	return c, nil
}

// readCount reads a count as the report writes it for people: in the
// survey language's digits (Persian ۰-۹, Arabic ٠-٩ or Latin), grouping
// separators ignored.
func readCount(s string) (int64, error) {
	latin := strings.Map(func(r rune) rune {
		switch {
		case r >= '۰' && r <= '۹':
			return '0' + r - '۰'
		case r >= '٠' && r <= '٩':
			return '0' + r - '٠'
		case r == ',' || r == '٬':
			return -1
		}
		return r
	}, s)
	return strconv.ParseInt(latin, 10, 64)
}

func pct(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))].Microseconds()) / 1000
}

func (r viralResult) print(w io.Writer) {
	var b strings.Builder
	secs := r.Elapsed.Seconds()
	fmt.Fprintf(&b, "\nViral survey: %d responders for %.1fs\n", r.Responders, secs)
	fmt.Fprintf(&b, "%-34s %7s %9s %9s %9s  %s\n", "route", "count", "per s", "p50 ms", "p99 ms", "statuses")
	for _, route := range routeOrder {
		rs := r.Routes[route]
		if rs == nil {
			continue
		}
		sort.Slice(rs.lat, func(i, j int) bool { return rs.lat[i] < rs.lat[j] })
		var st []string
		for code, n := range rs.statuses {
			st = append(st, fmt.Sprintf("%d×%d", n, code))
		}
		sort.Strings(st)
		if rs.errs > 0 {
			st = append(st, fmt.Sprintf("%d transport errors", rs.errs))
		}
		fmt.Fprintf(&b, "%-34s %7d %9.1f %9.1f %9.1f  %s\n", route, len(rs.lat), float64(len(rs.lat))/secs, pct(rs.lat, 0.50), pct(rs.lat, 0.99), strings.Join(st, " "))
	}
	fmt.Fprintf(&b, "submissions: %d accepted (201), %.1f/s\n", r.accepted(), float64(r.accepted())/secs)
	busy, limited, other := r.nonSuccess()
	fmt.Fprintf(&b, "503 (busy): %d; 429 (limited): %d; other non-2xx: %d; transport errors: %d\n", busy, limited, other, r.transportErrors())
	for _, route := range routeOrder {
		if rs := r.Routes[route]; rs != nil {
			for code, body := range rs.first {
				fmt.Fprintf(&b, "  first %d of %s: %s\n", code, route, body)
			}
		}
	}
	for _, p := range r.Patches {
		fmt.Fprintf(&b, "owner's %s PATCH at %5.1fs: %d in %.1f ms", p.Edit, p.At.Seconds(), p.Status, float64(p.Took.Microseconds())/1000)
		if p.Err != nil {
			fmt.Fprintf(&b, " (%v)", p.Err)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "stored responses: %d; accepted: %d; views answered: %d\n", r.Stored, r.accepted(), r.Viewed)
	fmt.Fprintf(&b, "owner reads: submitted_responses %d, views %d, report %d, choices %v (accepted %v)\n",
		r.Final.Submitted, r.Final.Views, r.Final.Report, r.Final.Choices, r.Accepted)
	if r.Routes[routePartial] != nil {
		fmt.Fprintf(&b, "partials: partial_responses_count %d, listed %d, partials saved and not submitted %d\n", r.Final.Partials, r.Final.Listed, r.PartialsLeft)
	}
	if r.Routes[routeVerify] != nil {
		fmt.Fprintf(&b, "sign-ins: %d codes sent (202), %d confirmed (200)\n", r.status(routeVerify, http.StatusAccepted), r.status(routeConfirm, http.StatusOK))
	}
	if r.Limit > 0 {
		verdict := "exactly"
		if r.Stored != r.limitWant() || r.accepted() != r.limitWant() {
			verdict = "NOT exactly"
		}
		fmt.Fprintf(&b, "response_limit %d (its base %d): %d recorded (%s the limit, or its base when more), %d accepted, %d answers 410 full\n",
			r.Limit, r.LimitBase, r.Stored, verdict, r.accepted(), r.Full)
	}
	if r.Exact {
		fmt.Fprintf(&b, "counts exact: yes, %.1fs after the run's last answer (the count lag)\n", r.Lag.Seconds())
	} else {
		fmt.Fprintf(&b, "counts exact: NO, still not after %.1fs\n", r.Lag.Seconds())
	}
	fmt.Fprintf(&b, "conflict model: %d writes cancelled\n", r.Conflicts)
	fmt.Fprintf(&b, "server ERROR log lines: %d\n", r.ServerErrors)
	for _, l := range r.ServerFirst {
		fmt.Fprintf(&b, "  %.300s\n", l)
	}
	fmt.Fprint(w, b.String())
}
