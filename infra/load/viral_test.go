package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"surveyservice/internal/conflict"
)

// TestViralSurvey runs `make load -scenario viral` small (VIRAL_RESPONDERS,
// default 20, for VIRAL_DURATION, default 5s) against the whole local
// stack with the conflict model on, and asserts what must hold at any
// size: every owner PATCH during the run (of the settings, the survey's
// name and a question, each writing or checking the survey item the
// tally writes) succeeded; the
// responses stored equal the submissions accepted; the survey's
// submitted_responses and views and the public report's counts (responses
// and each choice) equal them after the tally; no answer but 2xx, 503 or
// 429; no transport error. Times are printed, never asserted.
func TestViralSurvey(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the emulators and the local server; run without -short")
	}
	responders, duration := 20, 5*time.Second
	if v, err := strconv.Atoi(os.Getenv("VIRAL_RESPONDERS")); err == nil && v > 0 {
		responders = v
	}
	if v, err := time.ParseDuration(os.Getenv("VIRAL_DURATION")); err == nil && v > 0 {
		duration = v
	}
	for _, tc := range []struct {
		name             string
		partials, signIn bool
		abandon          int
	}{
		{"plain", false, false, 0},
		// make load-viral LOAD_FLAGS='-partials -signin -abandon 3': each
		// responder signs in (a code by email, read from the local outbox),
		// saves a partial and submits; every third round saves a second
		// page (a delta) and leaves, and partial_responses_count and the
		// owner's list must both come to those.
		{"partials and sign-in", true, true, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			res, err := runViral(t.Context(), viralOptions{Responders: responders, Duration: duration, Patches: 3,
				Edits: []string{"settings", "survey", "question"}, Hold: conflict.DefaultHold, Out: &out, Partials: tc.partials, Abandon: tc.abandon, SignIn: tc.signIn})
			t.Log(out.String())
			if err != nil {
				t.Fatal(err)
			}
			if err := res.check(); err != nil {
				t.Fatal(err)
			}
			if len(res.Patches) != 3 {
				t.Errorf("%d owner PATCHes made, want 3", len(res.Patches))
			}
			if got := res.status(routeSubmit, 201); int64(got) != res.Stored {
				t.Errorf("%d submissions answered 201, %d responses stored", got, res.Stored)
			}
			if tc.abandon > 0 && (res.PartialsLeft == 0 || res.Final.Listed != res.PartialsLeft) {
				t.Errorf("%d partials left by their responders, %d listed: want some, all listed", res.PartialsLeft, res.Final.Listed)
			}
			if !tc.signIn {
				return
			}
			sent, confirmed := res.status(routeVerify, 202), res.status(routeConfirm, 200)
			if sent == 0 || confirmed != sent || int64(confirmed) < res.Stored {
				t.Errorf("%d codes sent, %d confirmed, %d responses stored: every response signs in first", sent, confirmed, res.Stored)
			}
		})
	}
}

// TestViralSurveyLimit runs the viral scenario with a response_limit
// (`make load-viral LOAD_FLAGS='-limit N'`, contract section 25): 20
// responders racing for 30 places record exactly 30 (30 × 201), the
// others are answered 410 "This survey is full." and leave, none 503, and
// every count the owner reads comes to 30.
func TestViralSurveyLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the emulators and the local server; run without -short")
	}
	var out strings.Builder
	res, err := runViral(t.Context(), viralOptions{Responders: 20, Duration: 20 * time.Second, Patches: 1,
		Edits: []string{"settings"}, Hold: conflict.DefaultHold, Out: &out, Limit: 30})
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := res.check(); err != nil {
		t.Fatal(err)
	}
	if got := res.status(routeSubmit, 201); got != 30 || res.Stored != 30 {
		t.Errorf("%d submissions answered 201, %d responses stored, want exactly 30", got, res.Stored)
	}
	if busy, _, _ := res.nonSuccess(); busy > 0 || res.Full == 0 {
		t.Errorf("%d × 503 and %d × 410 full, want none and some", busy, res.Full)
	}
	if !strings.Contains(out.String(), "response_limit 30 (its base 0): 30 recorded (exactly the limit") {
		t.Errorf("the report does not say exactly 30 were recorded:\n%s", out.String())
	}
}

// TestViralSurveyLimitSetDuring: the owner sets a response_limit of 1
// while 20 responders submit (`make load-viral LOAD_FLAGS='-limit 1
// -limit-at 3s'`; an outside test's load 33, hostile8, ended 36 responses
// over its limit): what was recorded when it was set is its base, the
// submissions in flight that took no place of it are withdrawn (410, or
// 503 with their withdrawal finished from the stream), and the survey
// ends with exactly its base recorded, each one answered 201.
func TestViralSurveyLimitSetDuring(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the emulators and the local server; run without -short")
	}
	var out strings.Builder
	res, err := runViral(t.Context(), viralOptions{Responders: 20, Duration: 15 * time.Second, Patches: 1,
		Edits: []string{"question"}, Hold: conflict.DefaultHold, Out: &out, Limit: 1, LimitAt: 3 * time.Second})
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := res.check(); err != nil {
		t.Fatal(err)
	}
	if res.LimitBase < 2 || res.Stored != res.LimitBase || res.Full == 0 {
		t.Errorf("base %d, %d stored, %d × 410 full; want the base (more than the limit) stored and some refused", res.LimitBase, res.Stored, res.Full)
	}
}
