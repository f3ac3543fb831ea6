package store_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"

	"surveyservice/internal/testenv"
	"surveyservice/shared/survey"
)

// TestPhoneList: a survey's allowed numbers are kept as its codes are, in a
// partition of their own: racing uploads of overlapping numbers end with the
// exact count; every page is that page of the numbers in byte order; the
// lookup sees a number exactly while it is listed; the codes' list and
// count are untouched; deleting from a list never written does nothing.
func TestPhoneList(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanFree)
	f, err := st.CreateFolder(ctx, a.ID, "phones", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "phones")
	number := func(i int) string { return fmt.Sprintf("+98912%07d", i) }

	if err := st.DeletePhones(ctx, a.ID, sv.ID, []string{number(1)}); err != nil {
		t.Fatalf("delete from an empty list: %v", err)
	}
	if err := st.DeleteAllPhones(ctx, a.ID, sv.ID); err != nil {
		t.Fatalf("delete all of an empty list: %v", err)
	}

	// 10 uploads at once, each of 600 numbers, overlapping by half with the
	// next: 3,300 distinct numbers.
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for u := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			batch := make([]string, 600)
			for i := range batch {
				batch[i] = number(u*300 + i)
			}
			errs <- st.AddPhones(ctx, a.ID, sv.ID, batch)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("racing upload: %v", err)
		}
	}
	want := make([]string, 3300)
	for i := range want {
		want[i] = number(i)
	}
	check := func(t *testing.T, want []string) {
		t.Helper()
		sort.Strings(want)
		if n, err := st.PhoneCount(ctx, a.ID, sv.ID); err != nil || n != int64(len(want)) {
			t.Fatalf("count %d (%v), want %d", n, err, len(want))
		}
		for _, size := range []int{500, 777} {
			for page := 1; (page-1)*size < len(want); page++ {
				got, err := st.PhonesPage(ctx, sv.ID, page, size)
				if err != nil {
					t.Fatal(err)
				}
				if exp := want[(page-1)*size : min(page*size, len(want))]; !slices.Equal(got, exp) {
					t.Fatalf("page %d of %d: got %d numbers from %q, want %d from %q", page, size, len(got), first(got), len(exp), first(exp))
				}
			}
		}
	}
	check(t, want)
	if n, err := st.CodeCount(ctx, a.ID, sv.ID); err != nil || n != 0 {
		t.Fatalf("codes count %d (%v) after phone uploads, want 0", n, err)
	}
	if codes, err := st.CodesPage(ctx, sv.ID, 1, 10); err != nil || len(codes) != 0 {
		t.Fatalf("codes %q (%v) after phone uploads, want none", codes, err)
	}

	listed := func(n string) bool {
		t.Helper()
		ok, err := st.PhoneListed(ctx, sv.ID, n)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !listed(number(3299)) || listed(number(3300)) {
		t.Fatalf("listed(%s), listed(%s) = %v, %v; want true, false", number(3299), number(3300), listed(number(3299)), listed(number(3300)))
	}

	// Racing deletions of overlapping halves, and a re-upload.
	wg = sync.WaitGroup{}
	for _, from := range []int{0, 500, 1000} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := st.DeletePhones(ctx, a.ID, sv.ID, want[from:from+1000]); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if listed(number(0)) {
		t.Fatal("a deleted number is still listed")
	}
	check(t, slices.Clone(want[2000:]))

	if err := st.DeleteAllPhones(ctx, a.ID, sv.ID); err != nil {
		t.Fatal(err)
	}
	check(t, nil)
	other, _ := testenv.NewAccount(t, survey.PlanFree)
	if _, err := st.PhoneCount(ctx, other.ID, sv.ID); err == nil {
		t.Fatal("another account's survey counted")
	}
}
