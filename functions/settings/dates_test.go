package settings_test

import (
	"fmt"
	"testing"
	"time"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func TestExpirationDate(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Expiring")
	now := f.clk.Now()
	cur := with(defaults("Expiring"), map[string]any{"expiration_date": tomorrow})
	check(t, "tomorrow", f.patch(t, sid, fmt.Sprintf(`{"expiration_date": %q}`, tomorrow)), 200, cur)
	sameSettings(t, "GET", f.get(t, sid), cur)
	if sv := f.coll(t, sid).Survey; sv.ExpirationDate != tomorrow || sv.Closed(now) || !sv.Active(now) {
		t.Errorf("survey with tomorrow's date: %q closed %v active %v", sv.ExpirationDate, sv.Closed(now), sv.Active(now))
	}
	const wrongFormat = "Date has wrong format. Use one of these formats instead: YYYY-MM-DD."
	for _, c := range []struct{ value, msg string }{
		{`"` + today + `"`, ""},
		{`"` + yesterday + `"`, ""},
		{`"2020-01-01"`, ""},
		{`"2026-02-30"`, wrongFormat},
		{`"2026-6-1"`, wrongFormat},
		{`"2026-06-20T00:00:00Z"`, wrongFormat},
		{`"20260620"`, wrongFormat},
		{`"tomorrow"`, wrongFormat},
		{`5`, ""},
		{`true`, ""},
		{`""`, ""},
	} {
		fieldError(t, "expiration_date "+c.value, f.patch(t, sid, `{"expiration_date": `+c.value+`}`), "expiration_date", c.msg)
	}
	sameSettings(t, "GET after the refusals", f.get(t, sid), cur)
	check(t, "null", f.patch(t, sid, `{"expiration_date": null}`), 200, defaults("Expiring"))
	if sv := f.coll(t, sid).Survey; sv.ExpirationDate != "" || sv.Closed(now) || !sv.Active(now) {
		t.Errorf("survey with its date cleared: %+v", sv)
	}
	check(t, "far future", f.patch(t, sid, `{"expiration_date": "2099-12-31"}`), 200, with(defaults("Expiring"), map[string]any{"expiration_date": "2099-12-31"}))
}

// TestExpiryCloses: a survey reads closed from its expiration date on,
// before any sweep; a later date reopens it; the same (now past) date sent
// back is accepted.
func TestExpiryCloses(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Closing")
	check(t, "tomorrow", f.patch(t, sid, fmt.Sprintf(`{"expiration_date": %q}`, tomorrow)), 200, nil)

	justBefore := time.Date(2026, 6, 15, 23, 59, 59, 0, time.UTC)
	midnight := time.Date(2026, 6, 16, 0, 0, 0, 0, time.UTC)
	sv := f.coll(t, sid).Survey
	if sv.Closed(justBefore) || !sv.Active(justBefore) {
		t.Errorf("at 23:59:59 the day before: closed %v active %v", sv.Closed(justBefore), sv.Active(justBefore))
	}
	if !sv.Closed(midnight) || sv.Active(midnight) {
		t.Errorf("at 00:00 UTC of the date, before any sweep: closed %v active %v", sv.Closed(midnight), sv.Active(midnight))
	}
	f.clk.Set(midnight)
	g := f.get(t, sid)
	if g["expiration_date"] != tomorrow {
		t.Errorf("expiration_date after the clock moved: %v", g["expiration_date"])
	}
	// The same date, today now: accepted (nothing changes); another day
	// that is not after today is not.
	check(t, "same date, now today", f.patch(t, sid, fmt.Sprintf(`{"expiration_date": %q}`, tomorrow)), 200, g)
	check(t, "round trip of a closed survey", f.patch(t, sid, g), 200, g)
	fieldError(t, "another past date", f.patch(t, sid, fmt.Sprintf(`{"expiration_date": %q}`, today)), "expiration_date", "")

	// A later day reopens it.
	check(t, "a later day", f.patch(t, sid, `{"expiration_date": "2026-06-17"}`), 200, with(g, map[string]any{"expiration_date": "2026-06-17"}))
	if sv := f.coll(t, sid).Survey; sv.Closed(midnight) || !sv.Active(midnight) {
		t.Errorf("after moving the date later: closed %v active %v", sv.Closed(midnight), sv.Active(midnight))
	}

	// Past by two days, and closed by the sweep: the same date sent back
	// is accepted; a later one reopens it; so does null.
	later := time.Date(2026, 6, 19, 8, 0, 0, 0, time.UTC)
	f.clk.Set(later)
	closed, err := f.st.CloseExpired(t.Context(), store.DueSurvey{ID: sid, ExpirationDate: "2026-06-17"})
	if err != nil || !closed {
		t.Fatalf("sweep: closed %v, %v", closed, err)
	}
	if sv := f.coll(t, sid).Survey; !sv.Closed(later) || sv.Active(later) {
		t.Errorf("after the sweep: closed %v active %v", sv.Closed(later), sv.Active(later))
	}
	g = f.get(t, sid)
	check(t, "same past date", f.patch(t, sid, `{"expiration_date": "2026-06-17"}`), 200, g)
	check(t, "round trip of an expired survey", f.patch(t, sid, g), 200, g)
	fieldError(t, "another past date", f.patch(t, sid, `{"expiration_date": "2026-06-18"}`), "expiration_date", "")
	check(t, "reopen", f.patch(t, sid, `{"expiration_date": "2026-06-20"}`), 200, with(g, map[string]any{"expiration_date": "2026-06-20"}))
	if sv := f.coll(t, sid).Survey; sv.Closed(later) || !sv.Active(later) {
		t.Errorf("after moving a swept date later: closed %v active %v (%+v)", sv.Closed(later), sv.Active(later), sv)
	}
	f.clk.Set(time.Date(2026, 6, 25, 0, 0, 0, 0, time.UTC))
	if sv := f.coll(t, sid).Survey; !sv.Closed(f.clk.Now()) {
		t.Errorf("past the new date the survey is open")
	}
	check(t, "clear", f.patch(t, sid, `{"expiration_date": null}`), 200, with(g, map[string]any{"expiration_date": nil}))
	if sv := f.coll(t, sid).Survey; sv.Closed(f.clk.Now()) || !sv.Active(f.clk.Now()) {
		t.Errorf("after clearing the date: %+v", sv)
	}
}

// TestUnchangedPastDateIsNoError: the expiration date a survey has, now
// past, is accepted when sent back (round trip); so a 400 for another
// field of the same body must not report it as an error.
func TestUnchangedPastDateIsNoError(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Past date")
	check(t, "tomorrow", f.patch(t, sid, fmt.Sprintf(`{"expiration_date": %q}`, tomorrow)), 200, nil)
	f.clk.Set(time.Date(2026, 6, 20, 0, 0, 0, 0, time.UTC))
	g := f.get(t, sid)
	check(t, "same past date alone", f.patch(t, sid, fmt.Sprintf(`{"expiration_date": %q}`, tomorrow)), 200, g)
	fieldError(t, "same past date with an invalid field",
		f.patch(t, sid, fmt.Sprintf(`{"expiration_date": %q, "hide_next_button": "x"}`, tomorrow)), "hide_next_button", msgNotBool)
	g["hide_next_button"] = "x"
	r := f.patch(t, sid, g)
	fieldError(t, "round trip with one invalid field", r, "hide_next_button", msgNotBool)
}

func TestDurations(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Durations")
	for _, field := range specDurations {
		for _, ok := range []string{"01:30:00", "00:00:00", "99:59:59", "24:00:00", "00:59:59"} {
			r := f.patch(t, sid, map[string]any{field: ok})
			if r.code != 200 || decodeMap(t, r.body)[field] != ok {
				t.Errorf("%s %q: %v", field, ok, r)
			}
		}
		for _, bad := range []string{`"24:60:00"`, `"1:2:3"`, `"-01:00:00"`, `"00:00:60"`, `"01:30"`, `"01:30:00.5"`,
			`"1 01:00:00"`, `"aa:bb:cc"`, `"０1:00:00"`, `""`, `5`, `true`} {
			fieldError(t, field+" "+bad, f.patch(t, sid, fmt.Sprintf(`{%q: %s}`, field, bad)), field, "")
		}
		if g := f.get(t, sid); g[field] != "00:59:59" {
			t.Errorf("%s after the refusals: %v", field, g[field])
		}
		check(t, field+" null", f.patch(t, sid, fmt.Sprintf(`{%q: null}`, field)), 200, nil)
		if g := f.get(t, sid); g[field] != nil {
			t.Errorf("%s after null: %v", field, g[field])
		}
	}
}
