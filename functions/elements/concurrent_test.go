package elements_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"
)

// race sends the bodies at once and returns the replies in order.
func race(t *testing.T, f *fixture, reqs []struct{ method, path, body string }) ([]reply, time.Duration) {
	t.Helper()
	replies := make([]reply, len(reqs))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, r := range reqs {
		wg.Go(func() {
			<-start
			replies[i] = f.do(t, r.method, r.path, r.body)
		})
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	return replies, time.Since(t0)
}

// clean checks that a reply is the wanted status or a clean 409/503, and
// counts statuses.
func clean(t *testing.T, r reply, want int, statuses map[int]int) bool {
	t.Helper()
	statuses[r.code]++
	switch r.code {
	case want:
		return true
	case 409, 503:
		var body map[string]string
		if err := json.Unmarshal(r.body, &body); err != nil || body["detail"] == "" || len(body) != 1 {
			t.Errorf("%d with body %s", r.code, r.body)
		}
		if r.code == 503 && r.header.Get("Retry-After") == "" {
			t.Errorf("503 without Retry-After")
		}
	default:
		t.Errorf("status %d: %s", r.code, r.body)
	}
	return false
}

// TestConcurrentInserts: inserts racing into one survey keep the question
// list dense, lose nothing and answer each its true order.
func TestConcurrentInserts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	first := f.add(t, sid, 2, "")

	t.Run("10 POSTs without prior", func(t *testing.T) {
		// 10, the contention the owner's retry budget is sized for: 20
		// at once landed 4 in a fresh-clone make test beside another (load
		// 15 on 2 cores: each layout transaction ~0.5 s on DynamoDB Local),
		// the rest answering 503 at the budget's end.
		const n = 10
		reqs := make([]struct{ method, path, body string }, n)
		for i := range reqs {
			reqs[i] = struct{ method, path, body string }{"POST", listPath(sid), fmt.Sprintf(`{"title":"c%d","type":2}`, i)}
		}
		retries := f.st.LayoutRetries()
		replies, took := race(t, f, reqs)
		retries = f.st.LayoutRetries() - retries
		statuses := map[int]int{}
		created := map[int64]int{} // id -> answered order
		for _, r := range replies {
			if clean(t, r, 201, statuses) {
				m := decode(t, r.body)
				created[idOf(t, m)] = int(num(t, m["order"]))
			}
		}
		t.Logf("%d concurrent inserts: statuses %v in %v (%.1f inserts/s), %d layout retries",
			n, statuses, took.Round(time.Millisecond), float64(len(created))/took.Seconds(), retries)
		_, q, _ := f.lists(t, sid)
		if len(q) != 1+len(created) || q[0] != first {
			t.Errorf("questions %v: want %d (the first and every 201)", q, 1+len(created))
		}
		for id, order := range created {
			if i := slices.Index(q, id); i < 0 {
				t.Errorf("created %d is not listed", id)
			} else if i+1 != order {
				t.Errorf("created %d answered order %d, stands at %d", id, order, i+1)
			}
		}
		if len(created) < n/2 {
			t.Errorf("only %d of %d concurrent inserts landed", len(created), n)
		}
	})

	t.Run("10 POSTs after the same prior", func(t *testing.T) {
		_, q0, _ := f.lists(t, sid)
		const n = 10
		reqs := make([]struct{ method, path, body string }, n)
		for i := range reqs {
			reqs[i] = struct{ method, path, body string }{"POST", listPath(sid), fmt.Sprintf(`{"title":"p%d","type":2,"prior_question":%d}`, i, first)}
		}
		retries := f.st.LayoutRetries()
		replies, took := race(t, f, reqs)
		retries = f.st.LayoutRetries() - retries
		statuses := map[int]int{}
		var created []int64
		for _, r := range replies {
			if clean(t, r, 201, statuses) {
				created = append(created, idOf(t, decode(t, r.body)))
			}
		}
		t.Logf("%d concurrent inserts after one prior: statuses %v in %v (%.1f inserts/s), %d layout retries",
			n, statuses, took.Round(time.Millisecond), float64(len(created))/took.Seconds(), retries)
		_, q, _ := f.lists(t, sid)
		if len(q) != len(q0)+len(created) {
			t.Fatalf("questions %v: want %d", q, len(q0)+len(created))
		}
		// The new ones stand right after the prior, the old ones after them.
		block := slices.Clone(q[1 : 1+len(created)])
		slices.Sort(block)
		slices.Sort(created)
		if q[0] != first || !slices.Equal(block, created) || !slices.Equal(q[1+len(created):], q0[1:]) {
			t.Errorf("questions %v: want %d, then %v in some order, then %v", q, first, created, q0[1:])
		}
	})
}

// TestConcurrentMoves: moves racing (and deletes racing inserts) keep the
// lists dense and lose no element.
func TestConcurrentMoves(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	ids := make([]int64, 10)
	for i := range ids {
		ids[i] = f.add(t, sid, 2, "")
	}

	t.Run("10 moves", func(t *testing.T) {
		reqs := make([]struct{ method, path, body string }, len(ids))
		for i, id := range ids {
			reqs[i] = struct{ method, path, body string }{"PATCH", itemPath(sid, id), fmt.Sprintf(`{"prior_question":%d}`, ids[(i+3)%len(ids)])}
		}
		retries := f.st.LayoutRetries()
		replies, took := race(t, f, reqs)
		retries = f.st.LayoutRetries() - retries
		statuses := map[int]int{}
		for _, r := range replies {
			clean(t, r, 200, statuses)
		}
		t.Logf("10 concurrent moves: statuses %v in %v, %d layout retries", statuses, took.Round(time.Millisecond), retries)
		_, q, _ := f.lists(t, sid)
		got := slices.Clone(q)
		slices.Sort(got)
		want := slices.Clone(ids)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("after the moves the questions are %v, want the same ten %v", q, ids)
		}
	})

	t.Run("10 PATCHes of different fields of one element", func(t *testing.T) {
		target := ids[0]
		fields := map[string]any{
			"image_video_active": true, "show_charts": false, "description_text_active": true,
			"question_number_is_hidden": true, "title_active": false, "description_active": true,
			"image_or_video": 2.0, "vertical_choices": true, "answer_required": true, "randomize": true,
		}
		var reqs []struct{ method, path, body string }
		var names []string
		for name, v := range fields {
			names = append(names, name)
			reqs = append(reqs, struct{ method, path, body string }{"PATCH", itemPath(sid, target), fmt.Sprintf(`{%q:%v}`, name, v)})
		}
		before := f.get(t, sid, target)
		retries := f.st.LayoutRetries()
		replies, took := race(t, f, reqs)
		retries = f.st.LayoutRetries() - retries
		statuses := map[int]int{}
		want := maps.Clone(before)
		for i, r := range replies {
			if clean(t, r, 200, statuses) {
				want[names[i]] = fields[names[i]]
			}
		}
		t.Logf("10 concurrent PATCHes of one element: statuses %v in %v, %d layout retries", statuses, took.Round(time.Millisecond), retries)
		sameMap(t, "after concurrent PATCHes, every landed field is kept", f.get(t, sid, target), want)
	})

	t.Run("5 deletes and 5 inserts", func(t *testing.T) {
		_, q0, _ := f.lists(t, sid)
		var reqs []struct{ method, path, body string }
		var victims []int64 // per request, 0 for a POST
		for i := range 5 {
			victims = append(victims, q0[2*i], 0)
			reqs = append(reqs,
				struct{ method, path, body string }{"DELETE", itemPath(sid, q0[2*i]), ""},
				struct{ method, path, body string }{"POST", listPath(sid), fmt.Sprintf(`{"title":"n%d","type":2,"prior_question":%d}`, i, q0[2*i+1])})
		}
		retries := f.st.LayoutRetries()
		replies, took := race(t, f, reqs)
		retries = f.st.LayoutRetries() - retries
		statuses := map[int]int{}
		want := map[int64]bool{}
		for _, id := range q0 {
			want[id] = true
		}
		for i, r := range replies {
			if reqs[i].method == "DELETE" {
				if clean(t, r, 204, statuses) {
					delete(want, victims[i])
				}
			} else if clean(t, r, 201, statuses) {
				want[idOf(t, decode(t, r.body))] = true
			}
		}
		t.Logf("5 deletes racing 5 inserts: statuses %v in %v, %d layout retries", statuses, took.Round(time.Millisecond), retries)
		_, q, _ := f.lists(t, sid)
		if len(q) != len(want) {
			t.Errorf("questions %v, want %d elements", q, len(want))
		}
		for _, id := range q {
			if !want[id] {
				t.Errorf("question %d should not be listed", id)
			}
		}
	})
}
