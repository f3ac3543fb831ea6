package settings_test

import (
	"context"
	"testing"
	"time"

	"surveyservice/internal/storetest"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestResponseLimitSetting (contract section 25): response_limit is an
// integer 1-10,000,000 or null, on the Pro plan; a bad value is a 400 on
// the field that changes nothing; setting one where there was none gives
// it new counters and, as base, the responses recorded so far.
func TestResponseLimitSetting(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanPro)
	sid := f.newSurvey(t, "Limit")
	if g := f.get(t, sid); g["response_limit"] != nil {
		t.Fatalf("default response_limit %v, want null", g["response_limit"])
	}
	for _, c := range []struct {
		v    any
		code int
		want any
	}{
		{1, 200, nil},
		{10_000_000, 200, nil},
		{nil, 200, nil},
		{0, 400, map[string]any{"response_limit": []string{"Ensure this value is greater than or equal to 1."}}},
		{10_000_001, 400, map[string]any{"response_limit": []string{"Ensure this value is less than or equal to 10000000."}}},
		{"5", 400, map[string]any{"response_limit": []string{"A valid integer is required."}}},
		{1.5, 400, map[string]any{"response_limit": []string{"A valid integer is required."}}},
		{250, 200, nil},
	} {
		before := f.get(t, sid)["response_limit"]
		r := f.patch(t, sid, map[string]any{"response_limit": c.v})
		check(t, "response_limit", r, c.code, c.want)
		after := f.get(t, sid)["response_limit"]
		switch {
		case c.code == 200 && c.v == nil && after != nil:
			t.Errorf("response_limit null: GET %v", after)
		case c.code == 200 && c.v != nil && after != float64(c.v.(int)):
			t.Errorf("response_limit %v: GET %v", c.v, after)
		case c.code != 200 && after != before:
			t.Errorf("a refused response_limit %v changed it: %v -> %v", c.v, before, after)
		}
	}
	_, set, err := f.st.SurveySettings(context.Background(), f.acct.ID, sid)
	if err != nil {
		t.Fatal(err)
	}
	if set.ResponseLimitGen == 0 || set.ResponseLimitBase != 0 || set.LimitPlaces() != 250 {
		t.Errorf("a limit set: gen %d base %d places %d, want a generation, base 0, 250 places", set.ResponseLimitGen, set.ResponseLimitBase, set.LimitPlaces())
	}

	free := newFixture(t, survey.PlanFree)
	fsid := free.newSurvey(t, "Limit on Free")
	r := free.patch(t, fsid, map[string]any{"response_limit": 10})
	check(t, "response_limit on Free", r, 403, map[string]any{"detail": "Your free plan does not include these settings: response_limit (needs the pro plan)."})
}

// TestResponseLimitBaseCountsUntallied (contract section 25: "never one
// response more than the limit"): a limit set where there was none takes
// as its base the responses recorded before it, counted exactly, not the
// survey's submitted_responses, which the tally adds up to 5 seconds
// later (here never: no tally runs). A survey that answered 4 responses
// (one 3 s before, three just before) when its owner set a limit of 5
// keeps 1 place, not 5; a response stamped after the setting is not in
// the base (it takes a place). Both for a survey whose responses' page index counts them and
// for one from before the index (every key read).
func TestResponseLimitBaseCountsUntallied(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		preIndex bool
	}{{"indexed", false}, {"from before the index", true}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFixture(t, survey.PlanPro)
			sid := f.newSurvey(t, "Limit on a live survey")
			if c.preIndex {
				if err := storetest.PreIndexSurvey(ctx, f.st, sid); err != nil {
					t.Fatal(err)
				}
			}
			t0 := time.Now().UTC().Truncate(time.Microsecond)
			var rs []survey.Response
			// One before the last two seconds (the first count), three in
			// them (the second), one after the limit's time.
			for i, at := range []time.Duration{-3 * time.Second, time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond, time.Hour} {
				id, err := f.st.NewID(ctx, store.KindResponse)
				if err != nil {
					t.Fatal(err)
				}
				rs = append(rs, survey.Response{ID: id, SurveyID: sid, SubmittedAt: t0.Add(at), StartedAt: t0.Add(at - time.Second),
					Variables: map[string]any{"i": i}})
			}
			if err := storetest.SeedResponses(ctx, f.st, rs); err != nil {
				t.Fatal(err)
			}
			f.clk.Set(t0.Add(time.Second))
			check(t, "response_limit 5", f.patch(t, sid, map[string]any{"response_limit": 5}), 200, nil)
			sv, set, err := f.st.SurveySettings(ctx, f.acct.ID, sid)
			if err != nil {
				t.Fatal(err)
			}
			if sv.SubmittedResponses != 0 || set.ResponseLimitBase != 4 || set.LimitPlaces() != 1 {
				t.Errorf("tally's count %d; base %d, places %d: want base 4 (the responses before the setting), 1 place",
					sv.SubmittedResponses, set.ResponseLimitBase, set.LimitPlaces())
			}
		})
	}
}
