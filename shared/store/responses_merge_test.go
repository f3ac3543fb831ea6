package store_test

import (
	"context"
	"slices"
	"sort"
	"testing"
	"time"

	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// mergeSlack is what a page may read beyond its own items and the
// look-ahead: a few items a shard (the lazy merge's buffers past the
// page's end). Before the lazy merge, a page read up to a page from each
// of the 16 shards: 16 x 101 = 1,616 items for a page of 100.
const mergeSlack = 6 * store.ResponseShards

// TestResponsesLazyMerge: pages of the owner's list, newest or oldest
// first, bounded or not, hold exactly the responses in order, and each
// reads about its own items: at most the page, its look-ahead
// and mergeSlack, not a page from each of the 16 shards.
func TestResponsesLazyMerge(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "merge", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "merge")
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	const n = 1500
	rs := make([]survey.Response, n)
	for i := range rs {
		// Two responses a second: some share a time, ordered then by id.
		at := t0.Add(time.Duration(i/2) * time.Second)
		rs[i] = survey.Response{SurveyID: sv.ID, SubmittedAt: at, StartedAt: at.Add(-time.Minute)}
	}
	rs, err = storetest.ImportResponses(ctx, st, rs)
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		at time.Time
		id int64
	}
	all := make([]key, len(rs))
	for i, r := range rs {
		all[i] = key{r.SubmittedAt, r.ID}
	}
	sort.Slice(all, func(i, j int) bool {
		if c := all[i].at.Compare(all[j].at); c != 0 {
			return c < 0
		}
		return all[i].id < all[j].id
	})
	cases := []struct {
		name string
		q    store.ResponseQuery
		want []key
	}{
		{"newest first, 100 a page", store.ResponseQuery{Limit: 100}, reversed(all)},
		{"oldest first, 7 a page", store.ResponseQuery{Limit: 7, Ascending: true}, all[:300]},
		{"newest first between, 250 a page", store.ResponseQuery{Limit: 250, After: t0.Add(99 * time.Second), Before: t0.Add(600 * time.Second)},
			reversed(all[200:1200])},
		{"one page of 1000", store.ResponseQuery{Limit: 1000}, reversed(all)[:1000]},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []key
			q := c.q
			for len(got) < len(c.want) {
				page, err := st.ResponsesPage(ctx, sv.ID, q)
				if err != nil {
					t.Fatal(err)
				}
				if max := q.Limit + 1 + mergeSlack; page.Scanned > max {
					t.Errorf("a page of %d read %d items, want at most %d", q.Limit, page.Scanned, max)
				}
				if len(page.Responses) < q.Limit && page.More {
					t.Fatalf("a short page (%d of %d) says more follow", len(page.Responses), q.Limit)
				}
				for _, r := range page.Responses {
					got = append(got, key{r.SubmittedAt, r.ID})
				}
				if !page.More {
					break
				}
				q.From = page.Last()
			}
			if len(got) > len(c.want) {
				got = got[:len(c.want)]
			}
			if !slices.EqualFunc(got, c.want, func(a, b key) bool { return a.at.Equal(b.at) && a.id == b.id }) {
				t.Fatalf("got %d responses, want %d in order (first difference at %d)", len(got), len(c.want), firstDiff(got, c.want))
			}
		})
	}
	t.Run("skip", func(t *testing.T) {
		// SkipResponses passes over n responses with the same merge: it reads
		// about n keys, not n from each shard.
		pos, scanned, err := st.SkipResponses(ctx, sv.ID, store.ResponseQuery{}, 700)
		if err != nil {
			t.Fatal(err)
		}
		want := reversed(all)[699]
		if pos == nil || !pos.SubmittedAt.Equal(want.at) || pos.ID != want.id {
			t.Fatalf("the 700th newest is %+v, want %+v", pos, want)
		}
		if scanned > 700+mergeSlack {
			t.Errorf("passing over 700 read %d items, want at most %d", scanned, 700+mergeSlack)
		}
	})
}

func reversed[T any](s []T) []T {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

func firstDiff[T comparable](a, b []T) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
