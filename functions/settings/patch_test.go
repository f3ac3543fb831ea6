package settings_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func TestGetDefaults(t *testing.T) {
	t.Parallel()
	for _, plan := range plans {
		t.Run(string(plan), func(t *testing.T) {
			f := newFixture(t, plan)
			sid := f.newSurvey(t, "Customer feedback")
			r := f.do("GET", settingsPath(sid), "")
			if r.code != 200 {
				t.Fatalf("GET: %v", r)
			}
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
			if !strings.Contains(string(r.body), `"responding_ duration":`) {
				t.Errorf("body lacks the key \"responding_ duration\" with its space: %s", r.body)
			}
			got := decodeMap(t, r.body)
			sameSettings(t, "defaults", got, defaults("Customer feedback"))
			// The path without its final slash is served the same.
			r2 := f.do("GET", strings.TrimSuffix(settingsPath(sid), "/"), "")
			check(t, "GET without slash", r2, 200, got)
			t.Logf("GET settings: %d DynamoDB calls %v", r.calls.DynamoDB(), r.calls.Ops())
		})
	}
}

// TestPatchEachFieldAlone: every settings field may be sent alone; the
// answer is the whole settings object with that field changed, GET agrees,
// and the survey's detail (its settings summary) reflects it.
func TestPatchEachFieldAlone(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanEnterprise)
	sid := f.newSurvey(t, "Alone")
	cur := f.get(t, sid)
	for _, field := range settingsFields() {
		val := changeValue(field)
		r := f.patch(t, sid, map[string]any{field: val})
		if r.code != 200 {
			t.Errorf("PATCH %s alone: %v", field, r)
			continue
		}
		want := with(cur, map[string]any{field: val})
		sameSettings(t, "answer to PATCH "+field, decodeMap(t, r.body), want)
		sameSettings(t, "GET after PATCH "+field, f.get(t, sid), want)
		cur = want
	}
	c := f.coll(t, sid)
	sum := c.Settings.Summary(c.Layout)
	if !sum.AuthenticationNeeded || !sum.ServiceAuth || !sum.CodeAuth || !sum.EditResponseEnabled ||
		sum.RespondingDurationType != 1 || !sum.ShowAnswerSheetEnabled || !sum.ShowAnswerKeyAfterSurveyStop {
		t.Errorf("detail's settings summary = %+v", sum)
	}
	if c.Survey.ExpirationDate != "2026-07-01" || c.Survey.Closed(f.clk.Now()) || !c.Survey.Active(f.clk.Now()) {
		t.Errorf("survey item: expiration %q closed %v active %v", c.Survey.ExpirationDate, c.Survey.Closed(f.clk.Now()), c.Survey.Active(f.clk.Now()))
	}
	// The key without its space is an unknown field: ignored.
	check(t, "responding_duration without the space", f.patch(t, sid, `{"responding_duration": "02:00:00"}`), 200, cur)
	// An empty object changes nothing.
	check(t, "PATCH {}", f.patch(t, sid, `{}`), 200, cur)
	check(t, "PATCH with no body", f.do("PATCH", settingsPath(sid), ""), 200, cur)
	sameSettings(t, "GET at the end", f.get(t, sid), cur)
}

func TestPatchSurveyObject(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Original")
	cur := f.get(t, sid)
	now := f.clk.Now()

	steps := []struct {
		body   string
		change map[string]any
		check  func(sv survey.Survey) bool
	}{
		{`{"survey": {"name": "Renamed"}}`, map[string]any{"name": "Renamed"}, func(sv survey.Survey) bool { return sv.Name == "Renamed" && sv.Language == 1 }},
		{`{"survey": {"name": "  Padded  "}}`, map[string]any{"name": "Padded"}, func(sv survey.Survey) bool { return sv.Name == "Padded" }},
		{`{"survey": {"language": 4}}`, map[string]any{"language": 4}, func(sv survey.Survey) bool { return sv.Language == 4 && sv.Name == "Padded" }},
		{`{"survey": {"is_stopped": true}}`, map[string]any{"is_stopped": true}, func(sv survey.Survey) bool {
			return sv.IsStopped && !sv.Active(now) && !sv.Closed(now) && sv.Language == 4
		}},
		{`{"survey": {}}`, nil, func(sv survey.Survey) bool { return sv.IsStopped && !sv.Active(now) }},
		{`{"survey": {"is_stopped": false}}`, map[string]any{"is_stopped": false}, func(sv survey.Survey) bool { return !sv.IsStopped && sv.Active(now) }},
		{`{"survey": {"name": "All three", "language": 2, "is_stopped": true}}`, map[string]any{"name": "All three", "language": 2, "is_stopped": true},
			func(sv survey.Survey) bool {
				return sv.Name == "All three" && sv.Language == 2 && sv.IsStopped && !sv.Active(now)
			}},
	}
	for _, s := range steps {
		r := f.patch(t, sid, s.body)
		want := withSurvey(cur, s.change)
		if r.code != 200 {
			t.Errorf("PATCH %s: %v", s.body, r)
			continue
		}
		sameSettings(t, "answer to "+s.body, decodeMap(t, r.body), want)
		sameSettings(t, "GET after "+s.body, f.get(t, sid), want)
		if sv := f.coll(t, sid).Survey; !s.check(sv) {
			t.Errorf("after %s the survey item is %+v", s.body, sv)
		}
		cur = want
	}
	// The settings themselves are untouched by the survey part.
	d := defaults("All three")
	d["survey"] = cur["survey"]
	sameSettings(t, "settings after survey PATCHes", cur, d)
}

// TestPatchNullClears: string settings and the expiration date go back to
// null; service_auth_domains null means [].
func TestPatchNullClears(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanEnterprise)
	sid := f.newSurvey(t, "Nulls")
	nullable := append(slices.Sorted(maps.Keys(specStrings)), append(specDurations, "expiration_date", "service_auth_domains")...)
	set := map[string]any{}
	for _, field := range nullable {
		set[field] = changeValue(field)
	}
	check(t, "set every nullable field", f.patch(t, sid, set), 200, with(defaults("Nulls"), set))
	cur := f.get(t, sid)
	for _, field := range nullable {
		r := f.patch(t, sid, fmt.Sprintf(`{%q: null}`, field))
		var cleared any
		if field == "service_auth_domains" {
			cleared = []any{}
		}
		want := with(cur, map[string]any{field: cleared})
		check(t, field+" null", r, 200, want)
		sameSettings(t, "GET after "+field+" null", f.get(t, sid), want)
		cur = want
	}
	sameSettings(t, "every field cleared", cur, defaults("Nulls"))
	c := f.coll(t, sid)
	s := c.Settings
	if s.CodeAuthenticationFileName != nil || s.AuthDescription != nil || s.LocationDescription != nil ||
		s.RespondingDuration != nil || s.QuestionsRespondingDuration != nil || len(s.ServiceAuthDomains) != 0 {
		t.Errorf("stored settings after clearing: %+v", s)
	}
	if c.Survey.ExpirationDate != "" || c.Survey.Closed(f.clk.Now()) {
		t.Errorf("survey item after clearing the date: %+v", c.Survey)
	}
	// Several at once, and an explicit [] for the domains.
	check(t, "set again", f.patch(t, sid, set), 200, with(defaults("Nulls"), set))
	all := map[string]any{}
	for _, field := range nullable {
		all[field] = nil
	}
	all["service_auth_domains"] = []any{}
	check(t, "all null in one body", f.patch(t, sid, all), 200, defaults("Nulls"))
	sameSettings(t, "GET after all null", f.get(t, sid), defaults("Nulls"))
}

// TestConcurrentPatches: two PATCHes of different fields sent at once
// both land, round after round.
func TestConcurrentPatches(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanEnterprise)
	sid := f.newSurvey(t, "Race")
	for round := range 10 {
		a := fmt.Sprintf("auth %d", round)
		b := fmt.Sprintf("location %d", round)
		var wg sync.WaitGroup
		var ra, rb reply
		wg.Go(func() { ra = f.do("PATCH", settingsPath(sid), fmt.Sprintf(`{"auth_description": %q}`, a)) })
		wg.Go(func() { rb = f.do("PATCH", settingsPath(sid), fmt.Sprintf(`{"location_description": %q}`, b)) })
		wg.Wait()
		if ra.code != 200 || rb.code != 200 {
			t.Errorf("round %d: %v / %v", round, ra, rb)
			continue
		}
		got := f.get(t, sid)
		if got["auth_description"] != a || got["location_description"] != b {
			t.Errorf("round %d: auth_description %v (want %q), location_description %v (want %q)",
				round, got["auth_description"], a, got["location_description"], b)
		}
	}
}

// TestPlanGating is driven by survey.PlanNeeded: each gated field, changed
// on each plan, is accepted exactly when the plan includes it; a refusal is
// 403 naming the field and the plan it needs, and changes nothing, not even
// the ungated fields sent with it.
func TestPlanGating(t *testing.T) {
	t.Parallel()
	fields := slices.Sorted(maps.Keys(survey.PlanNeeded))
	var ungated []string
	for _, field := range settingsFields() {
		if _, gated := survey.PlanNeeded[field]; !gated {
			ungated = append(ungated, field)
		}
	}
	for _, plan := range plans {
		t.Run(string(plan), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, plan)
			sid := f.newSurvey(t, "Gated")
			for _, field := range fields {
				need := survey.PlanNeeded[field]
				before := f.get(t, sid)
				hide := !before["hide_progressbar"].(bool)
				body := map[string]any{
					field: changeValue(field), "hide_progressbar": hide,
					"survey": map[string]any{"name": "Renamed for " + field}, "expiration_date": "2026-07-01",
				}
				r := f.patch(t, sid, body)
				if planRank[plan] >= planRank[need] {
					want := withSurvey(with(before, map[string]any{field: changeValue(field), "hide_progressbar": hide,
						"expiration_date": "2026-07-01"}), map[string]any{"name": "Renamed for " + field})
					check(t, string(plan)+" changing "+field, r, 200, want)
					sameSettings(t, "GET after "+field, f.get(t, sid), want)
					continue
				}
				if r.code != 403 {
					t.Errorf("%s changing %s (needs %s): %v, want 403", plan, field, need, r)
				} else {
					m := decodeMap(t, r.body)
					detail, _ := m["detail"].(string)
					if len(m) != 1 || !strings.Contains(detail, field) || !strings.Contains(detail, string(need)) {
						t.Errorf("%s changing %s: 403 body %s should be a detail naming the field and the %s plan", plan, field, r.body, need)
					}
				}
				sameSettings(t, "GET after the refused "+field, f.get(t, sid), before)
				if sv := f.coll(t, sid).Survey; sv.Name != before["survey"].(map[string]any)["name"] {
					t.Errorf("refused PATCH of %s renamed the survey to %q", field, sv.Name)
				}
			}
			// Ungated fields are open to every plan.
			for _, field := range ungated {
				before := f.get(t, sid)
				val := changeValue(field)
				if field == "expiration_date" {
					val = "2026-08-01"
				}
				check(t, string(plan)+" changing ungated "+field, f.patch(t, sid, map[string]any{field: val}), 200, with(before, map[string]any{field: val}))
			}
			// All the gated fields at once: every one the plan lacks is named.
			all := map[string]any{}
			var lacking []string
			for _, field := range fields {
				all[field] = changeValue(field)
				if planRank[plan] < planRank[survey.PlanNeeded[field]] {
					lacking = append(lacking, field)
				}
			}
			r := f.patch(t, sid, all)
			if len(lacking) == 0 {
				check(t, "every gated field on "+string(plan), r, 200, nil)
			} else if r.code != 403 {
				t.Errorf("every gated field on %s: %v, want 403", plan, r)
			} else {
				for _, field := range lacking {
					if !strings.Contains(string(r.body), field) {
						t.Errorf("403 of every gated field on %s does not name %s: %s", plan, field, r.body)
					}
				}
			}
			// GET-then-PATCH of the whole object is accepted on every plan.
			g := f.get(t, sid)
			check(t, "round trip on "+string(plan), f.patch(t, sid, g), 200, g)
			sameSettings(t, "GET after the round trip", f.get(t, sid), g)
		})
	}
}

// TestSameValueAccepted: a gated field sent with the value it has is no
// change, on any plan, including settings an account kept after a
// downgrade; changing or clearing them is refused.
func TestSameValueAccepted(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)

	// A fresh survey: the defaults of gated fields, in every spelling.
	fresh := f.newSurvey(t, "Defaults")
	check(t, "defaults sent back", f.patch(t, fresh, `{"code_auth": false, "no_spam": false, "tag_spam": false,
		"service_auth_domains": [], "auth_description": null, "location_description": null,
		"code_authentication_file_name": null}`), 200, defaults("Defaults"))
	check(t, "domains null on a survey without domains", f.patch(t, fresh, `{"service_auth_domains": null}`), 200, defaults("Defaults"))
	check(t, "round trip of the defaults", f.patch(t, fresh, defaults("Defaults")), 200, defaults("Defaults"))

	// A survey with enterprise settings on a free account (a downgrade):
	// written through the store, as the plan would not allow it now.
	sid := f.newSurvey(t, "Downgraded")
	err := f.st.UpdateSettings(t.Context(), f.acct.ID, sid, store.SettingsUpdate{Set: map[string]any{
		"code_auth": true, "no_spam": true, "service_auth_domains": []string{"*@example.com"},
		"auth_description": "Enter your code", "location_is_active": true,
	}})
	if err != nil {
		t.Fatal(err)
	}
	g := f.get(t, sid)
	if g["code_auth"] != true || g["auth_description"] != "Enter your code" {
		t.Fatalf("settings written through the store: %v", g)
	}
	check(t, "round trip on a downgraded account", f.patch(t, sid, g), 200, g)
	check(t, "same values, padded", f.patch(t, sid, `{"code_auth": true, "no_spam": true,
		"service_auth_domains": ["*@example.com"], "auth_description": "  Enter your code  "}`), 200, g)
	for _, body := range []string{
		`{"code_auth": false}`, `{"no_spam": false}`, `{"service_auth_domains": null}`, `{"service_auth_domains": []}`,
		`{"service_auth_domains": ["*@example.com", "*@example.org"]}`, `{"auth_description": null}`,
		`{"auth_description": "Another text"}`, `{"location_is_active": false, "hide_next_button": true}`,
	} {
		check(t, "downgraded "+body, f.patch(t, sid, body), 403, nil)
	}
	sameSettings(t, "GET after the refusals", f.get(t, sid), g)
}

// TestInvalidBeforeForbidden: an invalid body is a 400 even when it also
// changes a setting the plan does not include.
func TestInvalidBeforeForbidden(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Invalid first")
	fieldError(t, `{"code_auth": "yes"}`, f.patch(t, sid, `{"code_auth": "yes"}`), "code_auth", msgNotBool)
	fieldError(t, "gated change and invalid ungated field", f.patch(t, sid, `{"code_auth": true, "hide_next_button": "yes"}`), "hide_next_button", msgNotBool)
	fieldError(t, "bad domain", f.patch(t, sid, `{"service_auth_domains": "*@example.com"}`), "service_auth_domains", "")
	fieldError(t, "gated change and past date", f.patch(t, sid, fmt.Sprintf(`{"no_spam": true, "expiration_date": %q}`, today)), "expiration_date", "")
	check(t, "gated change and bad survey object", f.patch(t, sid, `{"branding_removal": true, "survey": "x"}`), 400,
		`{"survey": {"non_field_errors": ["Invalid data. Expected a dictionary, but got str."]}}`)
	sameSettings(t, "GET after", f.get(t, sid), defaults("Invalid first"))
}
