package responses_test

import (
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"surveyservice/internal/testenv"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// walk follows the list's next links from start and answers the ids seen,
// in order, and the pages read; every page must answer 200.
func (f *fixture) walk(t *testing.T, start string) (ids []int64, pages []reply) {
	t.Helper()
	target := start
	for len(pages) < 1000 {
		r := f.do("GET", target)
		if r.code != 200 {
			t.Fatalf("GET %s: %v", target, r)
		}
		pages = append(pages, r)
		p := decode[page](t, r)
		for _, v := range p.Results {
			ids = append(ids, v.ID)
		}
		if p.Next == nil {
			return ids, pages
		}
		target = relative(t, *p.Next)
	}
	t.Fatal("the list never ends")
	return nil, nil
}

// TestListWalksEveryResponseOnce: following next from the first page reads
// every response exactly once, newest first (ids breaking ties of the same
// microsecond), whatever the page size, in as many pages as it takes and
// no empty one; count is the survey's; each page
// of a warm container is two DynamoDB calls, one of them the page's Query.
func TestListWalksEveryResponseOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rs := f.seed(t, f.sid, f.text, 23)
	want := newestFirst(rs)
	for _, size := range []int{1, 5, 23, 100} {
		t.Run(fmt.Sprint("page_size=", size), func(t *testing.T) {
			ids, pages := f.walk(t, fmt.Sprintf("%s?page_size=%d", listPath(f.sid), size))
			if !slices.Equal(ids, want) {
				t.Fatalf("walked %v, want %v", ids, want)
			}
			// A full last page says there is no next one (no empty page).
			if n := (23 + size - 1) / size; len(pages) != n {
				t.Errorf("%d pages, want %d", len(pages), n)
			}
			for i, r := range pages {
				p := decode[page](t, r)
				if p.Count != 23 {
					t.Errorf("page %d: count %d, want 23", i+1, p.Count)
				}
				if len(p.Results) > size {
					t.Errorf("page %d holds %d, more than %d", i+1, len(p.Results), size)
				}
				// The lazy merge: a Query a shard, then again only for a shard
				// whose items were used up.
				if got, q := r.calls.Ops(), r.calls.Ops()["DynamoDB.Query"]; q < store.ResponseShards || q > 2*store.ResponseShards ||
					r.calls.DynamoDB() != q+1 || r.calls.KMS() != 0 {
					t.Errorf("page %d: calls %v, want a Query a shard (%d) and a few, and one GetItem, no KMS", i+1, got, store.ResponseShards)
				}
			}
		})
	}
	r := f.do("GET", listPath(f.sid)+"?page_size=2")
	first := decode[page](t, r).Results[0]
	newest := rs[22]
	if first.ID != newest.ID || first.SubmittedAt != newest.SubmittedAt.Format(survey.TimestampLayout) ||
		first.DurationSeconds != 90 || string(first.Answers[fmt.Sprint(f.text)]) != `"answer 22"` ||
		first.Variables["city"] != "Tabriz" || fmt.Sprint(first.Variables["age"]) != "42" {
		t.Errorf("first result %+v, want response %d as stored", first, newest.ID)
	}
}

// TestListEmptyAndNewSubmissions: an empty survey's list; a walk started
// before newer responses arrive still reads every older one exactly once.
func TestListEmptyAndNewSubmissions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.do("GET", listPath(f.sid))
	if p := decode[page](t, r); r.code != 200 || p.Count != 0 || p.Next != nil || len(p.Results) != 0 {
		t.Fatalf("empty list: %v", r)
	}
	if string(r.body) != `{"count":0,"next":null,"results":[]}` {
		t.Errorf("empty list body %s", r.body)
	}
	rs := f.seed(t, f.sid, f.text, 6)
	p := decode[page](t, f.do("GET", listPath(f.sid)+"?page_size=3"))
	later := f.seedFrom(t, f.sid, f.text, 3, t0.Add(time.Hour)) // newer than the walk's start
	ids, _ := f.walk(t, relative(t, *p.Next))
	var seen []int64
	for _, v := range p.Results {
		seen = append(seen, v.ID)
	}
	seen = append(seen, ids...)
	for _, r := range rs {
		if n := countOf(seen, r.ID); n != 1 {
			t.Errorf("response %d seen %d times across the walk", r.ID, n)
		}
	}
	for _, r := range later {
		if countOf(seen, r.ID) != 0 {
			t.Errorf("response %d, newer than the walk's first page, turned up in later pages", r.ID)
		}
	}
	if p := decode[page](t, f.do("GET", listPath(f.sid))); p.Count != 9 || p.Results[0].ID != newestFirst(later)[0] {
		t.Errorf("a new walk: count %d, first %d", p.Count, p.Results[0].ID)
	}
}

func countOf(ids []int64, id int64) int {
	n := 0
	for _, x := range ids {
		if x == id {
			n++
		}
	}
	return n
}

// TestListFilters: submitted_after and submitted_before exclude their
// instant; they combine with each other and with the cursor; ISO 8601
// with an offset, a date alone, and an unencoded '+' are understood.
func TestListFilters(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rs := f.seed(t, f.sid, f.text, 12) // t0 .. t0+11s, pairs sharing a second
	between := func(after, before time.Time) []int64 {
		var out []survey.Response
		for _, r := range rs {
			if (after.IsZero() || r.SubmittedAt.After(after)) && (before.IsZero() || r.SubmittedAt.Before(before)) {
				out = append(out, r)
			}
		}
		return newestFirst(out)
	}
	iso := func(t time.Time) string { return url.QueryEscape(t.Format(time.RFC3339Nano)) }
	for _, tc := range []struct {
		name          string
		query         string
		after, before time.Time
	}{
		{"after", "submitted_after=" + iso(t0.Add(4*time.Second)), t0.Add(4 * time.Second), time.Time{}},
		{"before", "submitted_before=" + iso(t0.Add(4*time.Second)), time.Time{}, t0.Add(4 * time.Second)},
		{"both", "submitted_after=" + iso(t0.Add(time.Second)) + "&submitted_before=" + iso(t0.Add(8*time.Second)), t0.Add(time.Second), t0.Add(8 * time.Second)},
		{"offset", "submitted_after=2026-05-01T15:30:05%2B03:30", t0.Add(5 * time.Second), time.Time{}},
		{"unencoded plus", "submitted_after=2026-05-01T15:30:05+03:30", t0.Add(5 * time.Second), time.Time{}},
		{"no zone is UTC", "submitted_before=2026-05-01T12:00:03", time.Time{}, t0.Add(3 * time.Second)},
		{"date", "submitted_after=2026-05-02", t0.Add(12 * time.Hour), time.Time{}},
		{"nothing between", "submitted_after=" + iso(t0.Add(5*time.Second)) + "&submitted_before=" + iso(t0.Add(5*time.Second)), t0.Add(5 * time.Second), t0.Add(5 * time.Second)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids, pages := f.walk(t, listPath(f.sid)+"?page_size=2&"+tc.query)
			if want := between(tc.after, tc.before); !slices.Equal(ids, want) {
				t.Errorf("%s: %v, want %v", tc.query, ids, want)
			}
			if p := decode[page](t, pages[0]); p.Count != 12 {
				t.Errorf("count %d, want the survey's 12", p.Count)
			}
		})
	}
	for _, tc := range []struct{ query, want string }{
		{"submitted_after=yesterday", `{"submitted_after":["` + dtMsg + `"]}`},
		{"submitted_before=2026-13-01", `{"submitted_before":["` + dtMsg + `"]}`},
		{"page_size=0", `{"page_size":["Ensure this value is greater than or equal to 1."]}`},
		{"page_size=1001", `{"page_size":["Ensure this value is less than or equal to 1000."]}`},
		{"page_size=ten&submitted_after=x", `{"page_size":["A valid integer is required."],"submitted_after":["` + dtMsg + `"]}`},
		{"format=csv&page_size=5001", `{"page_size":["Ensure this value is less than or equal to 5000."]}`},
		{"format=xml", `{"detail":"Not found."}`},
	} {
		r := f.do("GET", listPath(f.sid)+"?"+tc.query)
		if r.code == 200 || string(r.body) != tc.want {
			t.Errorf("%s: %v, want %s", tc.query, r, tc.want)
		}
	}
}

const dtMsg = "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]."

// TestCursorForgedOrForeign: a cursor this service did not make for this
// survey's list answers 400 {"cursor": ["Invalid cursor."]} and reads
// nothing of the responses: garbage, one character changed, truncated,
// another survey's, a personalised link's token, an export link's.
func TestCursorForgedOrForeign(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.seed(t, f.sid, f.text, 4)
	other, otherText := f.newSurvey(t, "Other")
	f.seed(t, other, otherText, 4)
	cursorOf := func(sid int64) string {
		p := decode[page](t, f.do("GET", listPath(sid)+"?page_size=1"))
		u, err := url.Parse(*p.Next)
		if err != nil {
			t.Fatal(err)
		}
		return u.Query().Get("cursor")
	}
	good, foreign := cursorOf(f.sid), cursorOf(other)
	if r := f.do("GET", listPath(f.sid)+"?cursor="+good); r.code != 200 {
		t.Fatalf("a good cursor: %v", r)
	}
	changed := []byte(good)
	changed[len(changed)/2] = map[bool]byte{true: 'B', false: 'A'}[changed[len(changed)/2] == 'A']
	link, err := testenv.Sealer(t).Seal(t.Context(), f.sid, []links.Payload{{Values: []links.Value{{Name: "city", Kind: links.KindString, Str: "x"}}}})
	if err != nil {
		t.Fatal(err)
	}
	for name, cursor := range map[string]string{
		"garbage": "not-a-cursor", "empty": "", "changed": string(changed), "truncated": good[:len(good)-3],
		"another survey's": foreign, "a personalised link": link[0], "padded": good + "A",
	} {
		r := f.do("GET", listPath(f.sid)+"?cursor="+url.QueryEscape(cursor))
		if r.code != 400 || string(r.body) != `{"cursor":["Invalid cursor."]}` {
			t.Errorf("%s cursor: %v", name, r)
		}
		if r.calls.Ops()["DynamoDB.Query"] != 0 {
			t.Errorf("%s cursor: the responses were queried", name)
		}
	}
}
