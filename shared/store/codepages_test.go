package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"

	"surveyservice/internal/testenv"
	"surveyservice/shared/survey"
)

// TestCodePages: every page of a survey's codes, read through the page index,
// is exactly that page of the codes in byte order, after uploads (at once,
// some concurrent), deletions and a delete-all; and a deep page reads about
// its own codes, not the pages before it. A survey whose codes were written
// around the store (no index) is read the old way, and still right.
func TestCodePages(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "codes", nil)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	random := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = survey.NewCode(4 + rng.IntN(6))
		}
		return out
	}
	check := func(t *testing.T, sid int64, want []string, sizes ...int) {
		t.Helper()
		want = slices.Clone(want)
		sort.Strings(want)
		want = slices.Compact(want)
		if n, err := st.CodeCount(ctx, a.ID, sid); err != nil || n != int64(len(want)) {
			t.Fatalf("count %d (%v), want %d", n, err, len(want))
		}
		for _, size := range sizes {
			for page := 1; (page-1)*size < len(want); page++ {
				got, _, err := st.CodesPageRead(ctx, sid, page, size)
				if err != nil {
					t.Fatal(err)
				}
				exp := want[(page-1)*size : min(page*size, len(want))]
				if !slices.Equal(got, exp) {
					t.Fatalf("page %d of %d: got %d codes from %q, want %d from %q", page, size, len(got), first(got), len(exp), first(exp))
				}
			}
		}
	}

	t.Run("sequential codes", func(t *testing.T) {
		t.Parallel()
		sv := testenv.NewSurvey(t, st, a.ID, f.ID, "sequential")
		codes := make([]string, 3000)
		for i := range codes {
			codes[i] = fmt.Sprintf("code-%06d", i)
		}
		if err := st.AddCodes(ctx, a.ID, sv.ID, codes); err != nil {
			t.Fatal(err)
		}
		check(t, sv.ID, codes, 500, 333)
		// The last page of 6 of 500 reads the index and about one leaf
		// (10 codes) and the page, not the 2,500 codes before it.
		_, read, err := st.CodesPageRead(ctx, sv.ID, 6, 500)
		if err != nil {
			t.Fatal(err)
		}
		if read > 600 {
			t.Errorf("page 6 of 500 read %d items, want at most 600 (the old read: 3,000)", read)
		}
		t.Logf("page 6 of 500 of 3,000 sequential codes: %d items read", read)
	})

	t.Run("random codes, deletions, concurrent uploads", func(t *testing.T) {
		t.Parallel()
		sv := testenv.NewSurvey(t, st, a.ID, f.ID, "random")
		codes := random(1500)
		// Codes that are prefixes of others, and bytes above ASCII.
		codes = append(codes, "A", "AB", "ABC", "ABCD", "ABCDE", "zz", "zzz", "نظر", "نظرسنجی", "ü", "ü1")
		if err := st.AddCodes(ctx, a.ID, sv.ID, codes); err != nil {
			t.Fatal(err)
		}
		more := [][]string{random(400), random(400), random(400)}
		var wg sync.WaitGroup
		for _, m := range more {
			wg.Go(func() {
				if err := st.AddCodes(ctx, a.ID, sv.ID, m); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		for _, m := range more {
			codes = append(codes, m...)
		}
		// Delete a third, and some that never were.
		var gone, kept []string
		for i, c := range codes {
			if i%3 == 0 {
				gone = append(gone, c)
			} else {
				kept = append(kept, c)
			}
		}
		if err := st.DeleteCodes(ctx, a.ID, sv.ID, append(gone, "never", "was")); err != nil {
			t.Fatal(err)
		}
		// A code deleted by one index position and kept by another (a
		// duplicate) stays out.
		slices.Sort(gone)
		kept = slices.DeleteFunc(kept, func(c string) bool { _, found := slices.BinarySearch(gone, c); return found })
		check(t, sv.ID, kept, 100, 7)
		_, read, err := st.CodesPageRead(ctx, sv.ID, 15, 100)
		if err != nil {
			t.Fatal(err)
		}
		if read > 250 {
			t.Errorf("page 15 of 100 read %d items, want at most 250 (the old read: 1,500)", read)
		}
		if err := st.DeleteAllCodes(ctx, a.ID, sv.ID); err != nil {
			t.Fatal(err)
		}
		check(t, sv.ID, nil, 10)
		// The index is back to zero: a new upload is indexed again.
		again := random(300)
		if err := st.AddCodes(ctx, a.ID, sv.ID, again); err != nil {
			t.Fatal(err)
		}
		check(t, sv.ID, again, 50)
	})

	t.Run("codes written around the store", func(t *testing.T) {
		t.Parallel()
		sv := testenv.NewSurvey(t, st, a.ID, f.ID, "seeded")
		codes := random(700)
		testenv.SeedCodes(t, st, sv.ID, slices.Compact(slices.Sorted(slices.Values(codes))))
		// Uploads after: the survey has unindexed codes, so it stays unindexed.
		extra := random(100)
		if err := st.AddCodes(ctx, a.ID, sv.ID, extra); err != nil {
			t.Fatal(err)
		}
		check(t, sv.ID, append(codes, extra...), 64)
		_, read, err := st.CodesPageRead(ctx, sv.ID, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if read < 9*64 {
			t.Errorf("an unindexed survey's page 10 of 64 read %d items: it should have read the pages before (the index cannot know these codes)", read)
		}
	})
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
