package main

import (
	"fmt"
	"testing"

	"surveyservice/internal/localaws"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

type sweepResult struct {
	Closed int `json:"closed"`
}

// sweepOK runs the sweep as of now and checks that it prints exactly
// {"closed":N}.
func (e adminEnv) sweepOK(t *testing.T, now string, closed int) {
	t.Helper()
	r := e.run(t, "sweep", "--now", now)
	var out sweepResult
	r.ok(t, &out, "closed")
	if want := fmt.Sprintf("{\"closed\":%d}\n", closed); r.stdout != want {
		t.Fatalf("sweep --now %s printed %q, want %q", now, r.stdout, want)
	}
}

// sweepSurveys imports n surveys of an account with the expiration date
// ("" for none) into the admin test's table.
func sweepSurveys(t *testing.T, st *store.Store, aid int64, n int, date string) []survey.Survey {
	t.Helper()
	in := make([]survey.Survey, n)
	for i := range in {
		in[i] = survey.Survey{AccountID: aid, FolderID: 1, Name: fmt.Sprintf("Sweep %d", i), Language: 1,
			Theme: survey.DefaultTheme(), ExpirationDate: date}
	}
	out, err := st.ImportSurveys(t.Context(), in)
	if err != nil {
		t.Fatalf("import surveys: %v", err)
	}
	return out
}

func TestSweep(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := e.store(t)
	if err := localaws.EnsureTable(t.Context(), st.Client(), e.table); err != nil {
		t.Fatal(err)
	}
	a, err := st.CreateAccount(t.Context(), survey.Account{Email: "sweep@example.com", Plan: survey.PlanPro})
	if err != nil {
		t.Fatal(err)
	}
	var due []survey.Survey
	due = append(due, sweepSurveys(t, st, a.ID, 3, "2026-06-19")...)
	due = append(due, sweepSurveys(t, st, a.ID, 2, "2026-06-20")...)
	due = append(due, sweepSurveys(t, st, a.ID, 1, "2026-01-01")...)
	notDue := sweepSurveys(t, st, a.ID, 2, "2026-06-21")
	notDue = append(notDue, sweepSurveys(t, st, a.ID, 2, "")...)

	at := "2026-06-20T00:00:00Z"
	e.sweepOK(t, at, len(due))
	check := func(t *testing.T, sid int64, closed bool) {
		t.Helper()
		sv, err := st.Survey(t.Context(), a.ID, sid)
		if err != nil {
			t.Fatal(err)
		}
		if sv.ClosedBySweep != closed {
			t.Errorf("survey %d (expires %q): closed by the sweep %v, want %v", sid, sv.ExpirationDate, sv.ClosedBySweep, closed)
		}
	}
	for _, sv := range due {
		check(t, sv.ID, true)
	}
	for _, sv := range notDue {
		check(t, sv.ID, false)
	}

	// Again: nothing left to close.
	e.sweepOK(t, at, 0)
	// The last second of the 20th is still the 20th.
	e.sweepOK(t, "2026-06-20T23:59:59Z", 0)
	// The next day the survey due on the 21st closes.
	e.sweepOK(t, "2026-06-21T00:00:00Z", 2)
	for _, sv := range notDue[:2] {
		check(t, sv.ID, true)
	}
	for _, sv := range notDue[2:] {
		check(t, sv.ID, false)
	}
}

// TestSweepDefaultNow: without --now the sweep runs as of the real time;
// a survey due long ago closes, one due far ahead stays open.
func TestSweepDefaultNow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := e.store(t)
	if err := localaws.EnsureTable(t.Context(), st.Client(), e.table); err != nil {
		t.Fatal(err)
	}
	past := sweepSurveys(t, st, 1, 1, "2000-01-01")
	future := sweepSurveys(t, st, 1, 1, "2999-01-01")
	var out sweepResult
	e.run(t, "sweep").ok(t, &out, "closed")
	if out.Closed != 1 {
		t.Fatalf("closed %d, want 1", out.Closed)
	}
	for sid, want := range map[int64]bool{past[0].ID: true, future[0].ID: false} {
		sv, err := st.Survey(t.Context(), 1, sid)
		if err != nil || sv.ClosedBySweep != want {
			t.Errorf("survey %d: closed %v (%v), want %v", sid, sv.ClosedBySweep, err, want)
		}
	}
}

func TestSweepUsage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name     string
		args     []string
		fragment string
	}{
		{"date only", []string{"sweep", "--now", "2026-06-20"}, `--now "2026-06-20" is not YYYY-MM-DDTHH:MM:SSZ`},
		{"word", []string{"sweep", "--now", "yesterday"}, `--now "yesterday" is not YYYY-MM-DDTHH:MM:SSZ`},
		{"offset", []string{"sweep", "--now", "2026-06-20T00:00:00+02:00"}, "is not YYYY-MM-DDTHH:MM:SSZ"},
		// time.Parse accepts a fractional second after the seconds field
		// even when the layout has none; the contract's form has none.
		{"fraction", []string{"sweep", "--now", "2026-06-20T00:00:00.5Z"}, "is not YYYY-MM-DDTHH:MM:SSZ"},
		{"impossible day", []string{"sweep", "--now", "2026-02-30T00:00:00Z"}, "is not YYYY-MM-DDTHH:MM:SSZ"},
		{"without value", []string{"sweep", "--now"}, "flag needs an argument: -now"},
		{"extra argument", []string{"sweep", "extra"}, "sweep takes 0 argument(s), got 1"},
		{"extra argument after --now", []string{"sweep", "--now", "2026-06-20T00:00:00Z", "extra"}, "sweep takes 0 argument(s), got 1"},
		{"unknown flag", []string{"sweep", "--dry-run"}, "flag provided but not defined: -dry-run"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e.run(t, tc.args...).fails(t, 2, tc.fragment)
		})
	}
}
