package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestCodePagesBackfill: a survey whose codes predate the page index is
// backfilled while its owner uploads and deletes codes at the same time;
// then every page is exactly that page of the codes in byte order, a deep
// page reads about its own codes and not the pages before it, and writes
// after keep the index whole. A writer that read the survey before the
// backfill began (stale) cannot make it count wrong: its codes are left
// uncounted (the index is not used) until a second run counts them.
func TestCodePagesBackfill(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "codes", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "old codes")
	rng := rand.New(rand.NewPCG(3, 4))
	random := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = survey.NewCode(5 + rng.IntN(5))
		}
		return out
	}
	want := map[string]bool{}
	seeded := make([]string, 2000)
	for i := range seeded {
		seeded[i] = fmt.Sprintf("old-%05d", i)
		want[seeded[i]] = true
	}
	testenv.SeedCodes(t, st, sv.ID, seeded)
	// Uploaded through the store, still before any index: unindexed.
	early := random(150)
	if err := st.AddCodes(ctx, a.ID, sv.ID, early); err != nil {
		t.Fatal(err)
	}
	for _, c := range early {
		want[c] = true
	}
	check := func(t *testing.T, size int) {
		t.Helper()
		exp := make([]string, 0, len(want))
		for c := range want {
			exp = append(exp, c)
		}
		slices.Sort(exp)
		if n, err := st.CodeCount(ctx, a.ID, sv.ID); err != nil || n != int64(len(exp)) {
			t.Fatalf("count %d (%v), want %d", n, err, len(exp))
		}
		for page := 1; (page-1)*size < len(exp); page++ {
			got, _, err := st.CodesPageRead(ctx, sv.ID, page, size)
			if err != nil {
				t.Fatal(err)
			}
			if w := exp[(page-1)*size : min(page*size, len(exp))]; !slices.Equal(got, w) {
				t.Fatalf("page %d of %d: got %d codes from %q, want %d from %q", page, size, len(got), first(got), len(w), first(w))
			}
		}
	}
	deepRead := func(t *testing.T) int {
		t.Helper()
		_, read, err := st.CodesPageRead(ctx, sv.ID, 18, 100)
		if err != nil {
			t.Fatal(err)
		}
		return read
	}
	if read := deepRead(t); read < 1700 {
		t.Fatalf("before the backfill page 18 of 100 read %d items: it should read the pages before it", read)
	}

	// The backfill, with uploads and deletions at once.
	uploads := [][]string{random(200), random(200), random(200)}
	deletes := [][]string{seeded[100:400], seeded[1000:1200], early[:50]}
	var wg, writers sync.WaitGroup
	var res store.CodePagesBackfill
	// The backfill's wait for writers that read "no index" before it
	// began: here, until this test's writers have ended.
	defer store.SetCodeBackfillSettle(sv.ID, func(context.Context) error { writers.Wait(); return nil })()
	wg.Go(func() {
		r, err := st.BackfillCodePages(ctx, sv.ID)
		if err != nil {
			t.Error(err)
		}
		res = r
	})
	for i := range uploads {
		writers.Go(func() {
			if err := st.AddCodes(ctx, a.ID, sv.ID, uploads[i]); err != nil {
				t.Error(err)
			}
		})
		writers.Go(func() {
			if err := st.DeleteCodes(ctx, a.ID, sv.ID, deletes[i]); err != nil {
				t.Error(err)
			}
		})
	}
	writers.Wait()
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for i := range uploads {
		for _, c := range uploads[i] {
			want[c] = true
		}
		for _, c := range deletes[i] {
			delete(want, c)
		}
	}
	t.Logf("backfill with concurrent writes: %+v", res)
	if !res.Complete {
		// Writers racing every pass may leave it incomplete (it says so):
		// a second run completes it.
		r, err := st.BackfillCodePages(ctx, sv.ID)
		if err != nil || !r.Complete {
			t.Fatalf("second backfill: %+v, %v", r, err)
		}
	}
	check(t, 97)
	if read := deepRead(t); read > 300 {
		t.Errorf("after the backfill page 18 of 100 read %d items, want at most 300", read)
	} else {
		t.Logf("page 18 of 100 of %d backfilled codes: %d items read", len(want), read)
	}
	// Idempotent: a second run finds it whole and marks nothing.
	if r, err := st.BackfillCodePages(ctx, sv.ID); err != nil || !r.Complete || r.Marked != 0 || r.Passes != 0 {
		t.Fatalf("backfill again: %+v, %v", r, err)
	}

	// Writes after, through the marks index: still whole.
	more := random(120)
	if err := st.AddCodes(ctx, a.ID, sv.ID, more); err != nil {
		t.Fatal(err)
	}
	gone := append(slices.Clone(seeded[1500:1600]), more[:20]...)
	if err := st.DeleteCodes(ctx, a.ID, sv.ID, gone); err != nil {
		t.Fatal(err)
	}
	for _, c := range more {
		want[c] = true
	}
	for _, c := range gone {
		delete(want, c)
	}
	check(t, 100)
	if read := deepRead(t); read > 300 {
		t.Errorf("page 18 of 100 after more writes read %d items, want at most 300", read)
	}

	// Stale writers (read the survey before the index): a deletion of a
	// counted code finds it marked and takes it off the index; codes put
	// unmarked are not counted, so the index is not used until a backfill
	// counts them.
	if err := st.StaleCodeWrite(ctx, sv.ID, seeded[1700:1750], false); err != nil {
		t.Fatal(err)
	}
	stale := random(40)
	if err := st.StaleCodeWrite(ctx, sv.ID, stale, true); err != nil {
		t.Fatal(err)
	}
	for _, c := range seeded[1700:1750] {
		delete(want, c)
	}
	for _, c := range stale {
		want[c] = true
	}
	check(t, 100)
	if read := deepRead(t); read < 1700 {
		t.Errorf("with uncounted codes page 18 of 100 read %d items: the index cannot know them, it must not be used", read)
	}
	r, err := st.BackfillCodePages(ctx, sv.ID)
	if err != nil || !r.Complete || r.Marked != len(stale) {
		t.Fatalf("backfill of the stale codes: %+v, %v (want %d marked)", r, err, len(stale))
	}
	check(t, 100)
	if read := deepRead(t); read > 300 {
		t.Errorf("page 18 of 100 after the second backfill read %d items, want at most 300", read)
	}

	// Delete-all leaves the index at zero, and new codes are counted.
	if err := st.DeleteAllCodes(ctx, a.ID, sv.ID); err != nil {
		t.Fatal(err)
	}
	want = map[string]bool{}
	check(t, 10)
	again := random(300)
	if err := st.AddCodes(ctx, a.ID, sv.ID, again); err != nil {
		t.Fatal(err)
	}
	for _, c := range again {
		want[c] = true
	}
	check(t, 50)
	if r, err := st.BackfillCodePages(ctx, sv.ID); err != nil || !r.Complete || r.Indexed != 300 {
		t.Fatalf("after delete-all and an upload: %+v, %v", r, err)
	}
}
