package responses_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// hashOf is a session claim's hash for the test's n-th session.
func hashOf(n int) string { return fmt.Sprintf("%064x", n) }

// TestPartialList: ?status=partial lists the survey's partials (contract
// section 20): newest change first, the partial's shape, the count
// (partial_responses_count, from the stream), a replaced partial gone, one
// past its 30 days hidden at once, the cursor, the filters on updated_at,
// the CSV and the results table; a bad status answers 400.
func TestPartialList(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	real := f.st.Now
	defer func() { f.st.Now = real }()
	key := fmt.Sprint(f.text)
	save := func(n, page int, text string) store.Partial {
		t.Helper()
		p, _, err := f.st.SavePartial(ctx, store.PartialWrite{SurveyID: f.sid, Session: hashOf(n), Page: page,
			Answers: map[int64]json.RawMessage{f.text: json.RawMessage(fmt.Sprintf("%q", text))}, Variables: map[string]any{"city": "Tabriz"},
			StartedAt: f.st.Now().Add(-time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	f.st.Now = func() time.Time { return real().Add(-31 * 24 * time.Hour) }
	save(9, 0, "too old")
	f.st.Now = real
	first := save(1, 0, "one")
	if again := save(1, 0, "one more"); again.ID != first.ID {
		t.Errorf("a replaced partial's id %d, want %d", again.ID, first.ID)
	}
	save(2, 0, "two")
	save(3, 0, "three")
	mid := real()
	time.Sleep(2 * time.Millisecond)
	save(4, 0, "four")
	// Session 2 responds: its partial is replaced in the transaction.
	if _, err := f.st.Submit(ctx, store.Submission{Response: survey.Response{SurveyID: f.sid, StartedAt: real().Add(-time.Minute),
		Answers: map[int64]json.RawMessage{f.text: json.RawMessage(`"done"`)}}, KeyHash: hashOf(100), BodyHash: hashOf(101), Session: hashOf(2)}); err != nil {
		t.Fatal(err)
	}
	testenv.Tally(t)

	var page struct {
		Count   int64
		Next    *string
		Results []map[string]any
	}
	r := f.do("GET", listPath(f.sid)+"?status=partial")
	if r.code != 200 || json.Unmarshal(r.body, &page) != nil {
		t.Fatalf("list: %v", r)
	}
	// 4 partials were written and one replaced by its response; the one
	// past its 30 days is hidden but still counted until the TTL deletes it.
	if page.Count != 4 || len(page.Results) != 3 {
		t.Fatalf("count %d, %d results, want 4 and 3: %s", page.Count, len(page.Results), r.body)
	}
	var texts []string
	for _, res := range page.Results {
		texts = append(texts, res["answers"].(map[string]any)[key].(string))
	}
	if want := []string{"four", "three", "one more"}; !reflect.DeepEqual(texts, want) {
		t.Errorf("order %v, want %v", texts, want)
	}
	var keys []string
	for k := range page.Results[0] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if want := []string{"answers", "duration_seconds", "id", "last_page", "started_at", "updated_at", "variables"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("a partial's keys %v, want %v", keys, want)
	}
	c, err := f.st.SurveyCollection(ctx, f.acct.ID, f.sid) // the survey item's count and the count item's
	if err != nil || c.Survey.PartialResponses != 4 {
		t.Errorf("partial_responses_count %d (%v), want 4", c.Survey.PartialResponses, err)
	}
	if d := f.do("GET", fmt.Sprintf("/api/surveys/%d/", f.sid)); d.code == 200 && !strings.Contains(string(d.body), `"partial_responses_count":4`) {
		t.Errorf("the detail lacks partial_responses_count 4: %.400s", d.body)
	}

	t.Run("pages", func(t *testing.T) {
		r := f.do("GET", listPath(f.sid)+"?status=partial&page_size=2")
		var p1 struct {
			Next    *string
			Results []map[string]any
		}
		if r.code != 200 || json.Unmarshal(r.body, &p1) != nil || len(p1.Results) != 2 || p1.Next == nil {
			t.Fatalf("page 1: %v", r)
		}
		u, _ := url.Parse(*p1.Next)
		r = f.do("GET", u.RequestURI())
		var p2 struct {
			Next    *string
			Results []map[string]any
		}
		if r.code != 200 || json.Unmarshal(r.body, &p2) != nil || len(p2.Results) != 1 || p2.Next != nil {
			t.Fatalf("page 2: %v", r)
		}
		if p2.Results[0]["id"] != float64(first.ID) {
			t.Errorf("page 2 %v, want partial %d", p2.Results[0], first.ID)
		}
		// A responses list's cursor is not a partials cursor.
		sub := f.do("GET", listPath(f.sid)+"?page_size=1")
		var sp struct{ Next *string }
		if json.Unmarshal(sub.body, &sp); sp.Next != nil {
			c, _ := url.Parse(*sp.Next)
			if r := f.do("GET", listPath(f.sid)+"?status=partial&cursor="+url.QueryEscape(c.Query().Get("cursor"))); r.code != 400 {
				t.Errorf("a responses cursor on partials: %v", r)
			}
		}
	})
	t.Run("filters on updated_at", func(t *testing.T) {
		at := url.QueryEscape(mid.UTC().Format(time.RFC3339Nano))
		var after, before struct{ Results []map[string]any }
		json.Unmarshal(f.do("GET", listPath(f.sid)+"?status=partial&submitted_after="+at).body, &after)
		json.Unmarshal(f.do("GET", listPath(f.sid)+"?status=partial&submitted_before="+at).body, &before)
		if len(after.Results) != 1 || len(before.Results) != 2 {
			t.Errorf("after %d, before %d, want 1 and 2", len(after.Results), len(before.Results))
		}
	})
	t.Run("bad status", func(t *testing.T) {
		for _, s := range []string{"spam", "", "PARTIAL"} {
			if r := f.do("GET", listPath(f.sid)+"?status="+s); r.code != 400 || !strings.Contains(string(r.body), `"status"`) {
				t.Errorf("status=%q: %v", s, r)
			}
		}
		if r := f.do("GET", listPath(f.sid)+"?status=submitted"); r.code != 200 {
			t.Errorf("status=submitted: %v", r)
		}
	})
	t.Run("csv", func(t *testing.T) {
		r := f.do("GET", listPath(f.sid)+"?status=partial&format=csv")
		lines := strings.Split(strings.TrimPrefix(string(r.body), "\ufeff"), "\r\n")
		if r.code != 200 || len(lines) < 4 {
			t.Fatalf("csv: %v", r)
		}
		if want := "id,updated_at,duration_seconds,last_page,What did you think?,city,age"; lines[0] != want {
			t.Errorf("header %q, want %q", lines[0], want)
		}
		if !strings.Contains(lines[1], ",0,four,Tabriz,") {
			t.Errorf("row %q", lines[1])
		}
	})
	t.Run("results table", func(t *testing.T) {
		r := f.do("GET", tablePath(f.sid)+"?status=partial")
		var tbl struct {
			Header []struct{ Title string }
			Body   []struct {
				ResponderID int64 `json:"responder_id"`
				Data        []any
			}
			RespondersCount int64 `json:"responders_count"`
		}
		if r.code != 200 || json.Unmarshal(r.body, &tbl) != nil || len(tbl.Body) != 3 || tbl.RespondersCount != 4 {
			t.Fatalf("results table: %v", r)
		}
		n := len(tbl.Header)
		if tbl.Header[n-2].Title != "updated_date_time" || tbl.Header[n-1].Title != "last_page" {
			t.Errorf("header ends %v", tbl.Header[n-2:])
		}
	})
}
