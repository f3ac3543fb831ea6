package responses_test

import (
	"fmt"
	"sync"
	"testing"

	"surveyservice/shared/survey"
)

// TestGetResponse: one response as the owner sees it, in one call; ids
// that cannot exist, another survey's response and a missing one are 404.
func TestGetResponse(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rs := f.seed(t, f.sid, f.text, 5)
	other, otherText := f.newSurvey(t, "Other")
	theirs := f.seed(t, other, otherText, 1)[0]
	r := f.do("GET", detailPath(f.sid, rs[0].ID))
	if r.code != 200 || r.calls.DynamoDB() != 1 {
		t.Fatalf("GET: %v with %d calls", r, r.calls.DynamoDB())
	}
	want := fmt.Sprintf(`{"id":%d,"submitted_at":"2026-05-01T12:00:00.000000Z","started_at":"2026-05-01T11:58:30.000000Z","duration_seconds":90,`+
		`"answers":{"%d":"answer 0"},"variables":{"age":20,"city":"Tabriz"},"code":"CODE-0","language":null,"spam":false,`+
		`"location":null,"responder":null,"respondent":null,"edited_at":null}`, rs[0].ID, f.text)
	if string(r.body) != want {
		t.Errorf("GET = %s\nwant  %s", r.body, want)
	}
	if v := decode[survey.ResponseView](t, f.do("GET", detailPath(f.sid, rs[1].ID))); v.Code != nil {
		t.Errorf("a response without a code: code %v, want null", *v.Code)
	}
	for _, path := range []string{
		detailPath(f.sid, theirs.ID), detailPath(other, rs[0].ID), detailPath(f.sid, 2147483000),
		fmt.Sprintf("/api/surveys/%d/responses/0/", f.sid), fmt.Sprintf("/api/surveys/%d/responses/abc/", f.sid),
		fmt.Sprintf("/api/surveys/%d/responses/2147483648/", f.sid), "/api/surveys/0/responses/1/",
	} {
		if r := f.do("GET", path); r.code != 404 || string(r.body) != `{"detail":"Not found."}` {
			t.Errorf("GET %s: %v, want 404", path, r)
		}
	}
	if r := f.do("POST", detailPath(f.sid, rs[0].ID)); r.code != 405 || r.header.Get("Allow") != "GET, DELETE, HEAD, OPTIONS" {
		t.Errorf("POST: %v, Allow %q", r, r.header.Get("Allow"))
	}
}

// TestDeleteResponse: 204 and the count one lower, in two calls (the
// response's report counts read, then one transaction); then the
// response is gone from the detail and the list; a second DELETE is 404
// and changes nothing; a survey in the trash refuses (409).
func TestDeleteResponse(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rs := f.seed(t, f.sid, f.text, 4)
	victim := rs[2]
	r := f.do("DELETE", detailPath(f.sid, victim.ID))
	if r.code != 204 || len(r.body) != 0 || r.calls.DynamoDB() != 2 { // the activity log's entry commits in the transaction (contract section 19)
		t.Fatalf("DELETE: %v with %d calls", r, r.calls.DynamoDB())
	}
	if n := f.count(t, f.sid); n != 3 {
		t.Errorf("count %d after the delete, want 3", n)
	}
	if r := f.do("GET", detailPath(f.sid, victim.ID)); r.code != 404 {
		t.Errorf("GET of the deleted response: %v", r)
	}
	p := decode[page](t, f.do("GET", listPath(f.sid)))
	if p.Count != 3 || len(p.Results) != 3 || countOf([]int64{p.Results[0].ID, p.Results[1].ID, p.Results[2].ID}, victim.ID) != 0 {
		t.Errorf("list after the delete: %+v", p)
	}
	if r := f.do("DELETE", detailPath(f.sid, victim.ID)); r.code != 404 || string(r.body) != `{"detail":"Not found."}` {
		t.Errorf("second DELETE: %v", r)
	}
	if n := f.count(t, f.sid); n != 3 {
		t.Errorf("count %d after a second delete, want 3", n)
	}
	if err := f.st.TrashSurvey(t.Context(), f.acct.ID, f.sid); err != nil {
		t.Fatal(err)
	}
	if r := f.do("DELETE", detailPath(f.sid, rs[0].ID)); r.code != 409 || string(r.body) != `{"detail":"Survey is deleted."}` {
		t.Errorf("DELETE under a trashed survey: %v", r)
	}
	if r := f.do("GET", detailPath(f.sid, rs[0].ID)); r.code != 200 {
		t.Errorf("GET under a trashed survey: %v (reads still answer)", r)
	}
	if n := f.count(t, f.sid); n != 3 {
		t.Errorf("count %d, want 3", n)
	}
}

// TestConcurrentDeletes: the same response deleted by 12 requests at once:
// exactly one 204, the others 404, and the count exactly one lower.
// Deletions of different responses racing on the same count all land.
func TestConcurrentDeletes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rs := f.seed(t, f.sid, f.text, 8)
	const racers = 12
	codes := make([]int, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = f.do("DELETE", detailPath(f.sid, rs[0].ID)).code
		}()
	}
	wg.Wait()
	wins := 0
	for _, c := range codes {
		switch c {
		case 204:
			wins++
		case 404:
		default:
			t.Errorf("a racing DELETE answered %d", c)
		}
	}
	if wins != 1 {
		t.Errorf("%d deletes won, want exactly 1 (codes %v)", wins, codes)
	}
	if n := f.count(t, f.sid); n != 7 {
		t.Errorf("count %d after the race, want 7", n)
	}
	for _, r := range rs[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := f.do("DELETE", detailPath(f.sid, r.ID)); got.code != 204 {
				t.Errorf("DELETE %d: %v", r.ID, got)
			}
		}()
	}
	wg.Wait()
	if n := f.count(t, f.sid); n != 0 {
		t.Errorf("count %d after deleting every response, want 0", n)
	}
	if p := decode[page](t, f.do("GET", listPath(f.sid))); len(p.Results) != 0 || p.Count != 0 {
		t.Errorf("list after deleting all: %+v", p)
	}
}
