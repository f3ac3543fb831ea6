package main

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"surveyservice/internal/localaws"
	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestPagesBackfill: admin pages backfill gives a survey whose codes and
// responses predate the page indexes both indexes (--survey), then every
// survey (--all), idempotently: page N then reads the indexes, not the
// pages before it, and is the same page as before. Bad command lines are
// usage errors; an unknown survey is not found.
func TestPagesBackfill(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := e.store(t)
	ctx := t.Context()
	if err := localaws.EnsureTable(ctx, st.Client(), e.table); err != nil {
		t.Fatal(err)
	}
	a, err := st.CreateAccount(ctx, survey.Account{Email: "pages@example.com", Plan: survey.PlanEnterprise})
	if err != nil {
		t.Fatal(err)
	}
	svs := sweepSurveys(t, st, a.ID, 3, "")
	// The first survey's responses predate the page index.
	if err := storetest.PreIndexSurvey(ctx, st, svs[0].ID); err != nil {
		t.Fatal(err)
	}
	codes := make([]string, 1200)
	for i := range codes {
		codes[i] = fmt.Sprintf("c%06d", i*7)
	}
	for _, sv := range svs[:2] {
		testenv.SeedCodes(t, st, sv.ID, codes)
	}
	ids, err := st.NewIDs(ctx, store.KindResponse, 600)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().UTC().Add(-3 * time.Hour).Truncate(time.Minute)
	rs := make([]survey.Response, len(ids))
	for i := range rs {
		at := t0.Add(time.Duration(i) * 4 * time.Second)
		rs[i] = survey.Response{ID: ids[i], SurveyID: svs[0].ID, SubmittedAt: at, StartedAt: at}
	}
	if err := storetest.SeedResponses(ctx, st, rs); err != nil {
		t.Fatal(err)
	}
	codePage := func(sid int64) ([]string, int) {
		t.Helper()
		got, read, err := st.CodesPageRead(ctx, sid, 10, 100)
		if err != nil {
			t.Fatal(err)
		}
		return got, read
	}
	skip := func() (*store.ResponsePosition, int) {
		t.Helper()
		pos, read, err := st.SkipResponses(ctx, svs[0].ID, store.ResponseQuery{Ascending: true}, 500)
		if err != nil {
			t.Fatal(err)
		}
		return pos, read
	}
	beforeCodes, readCodes := codePage(svs[0].ID)
	beforePos, readResponses := skip()
	t.Logf("before the backfill: page 10 of 100 of 1,200 codes: %d items read; the 500th of 600 responses: %d", readCodes, readResponses)
	if readCodes < 900 || readResponses < 450 {
		t.Fatalf("before the backfill: codes page 10 read %d, the 500th response %d items: want the old way's reads", readCodes, readResponses)
	}

	for _, bad := range [][]string{
		{"pages", "backfill"},
		{"pages", "backfill", "--all", "--survey", "1"},
		{"pages", "backfill", "--survey", "x"},
		{"pages", "backfill", "--all", "--segments", "0"},
		{"pages", "backfill", "--all", "extra"},
	} {
		e.run(t, bad...).fails(t, 2, "pages backfill")
	}
	e.run(t, "pages", "backfill", "--survey", "999999").fails(t, 1, "not found")

	var one store.PagesBackfill
	e.run(t, "pages", "backfill", "--survey", fmt.Sprint(svs[0].ID)).ok(t, &one, "survey_id", "codes", "responses")
	if !one.Codes.Complete || one.Codes.Marked != len(codes) || !one.Responses.Complete || one.Responses.Responses != len(rs) {
		t.Fatalf("pages backfill --survey: %+v", one)
	}
	gotCodes, readCodes := codePage(svs[0].ID)
	gotPos, readResponses := skip()
	if !slices.Equal(gotCodes, beforeCodes) || gotPos == nil || beforePos == nil || *gotPos != *beforePos {
		t.Fatalf("after the backfill page 10 is %q.., the 500th %+v; before %q.., %+v", first(gotCodes), gotPos, first(beforeCodes), beforePos)
	}
	if readCodes > 250 || readResponses > 60 {
		t.Errorf("after the backfill: codes page 10 read %d items (want <= 250), the 500th response %d (want <= 60)", readCodes, readResponses)
	}
	t.Logf("page 10 of 100 of 1,200 codes: %d items read; the 500th of 600 responses: %d", readCodes, readResponses)

	var all pagesAll
	keys := []string{"scanned", "surveys", "codes_complete", "codes_incomplete", "codes_unrepairable", "responses_complete", "responses_incomplete"}
	e.run(t, "pages", "backfill", "--all").ok(t, &all, keys...)
	if all.Surveys != 3 || all.CodesComplete != 3 || all.ResponsesComplete != 3 || len(all.CodesIncomplete)+len(all.ResponsesIncomplete) != 0 {
		t.Fatalf("pages backfill --all: %+v", all)
	}
	if _, read := codePage(svs[1].ID); read > 250 {
		t.Errorf("the second survey's page 10 read %d items after --all", read)
	}
	// Again: nothing left to do.
	e.run(t, "pages", "backfill", "--survey", fmt.Sprint(svs[0].ID)).ok(t, &one, "survey_id", "codes", "responses")
	if one.Codes.Marked != 0 || one.Codes.Passes != 0 || one.Responses.Rounds != 0 || !one.Codes.Complete || !one.Responses.Complete {
		t.Fatalf("pages backfill again: %+v", one)
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
