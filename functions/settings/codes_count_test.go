package settings_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/internal/localaws"
	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// The code count under races, crashes and retries.
// The emulator copies the whole table for every action of a transaction,
// so these tests keep their tables to a few hundred codes; the issue's
// figures (100,000 codes, 10 x 5,000) are the benchmark's.

// codeList is n codes with a prefix, in a scrambled order.
func codeList(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%04d", prefix, (i*7919)%n)
	}
	return out
}

// walk follows page and next from page 1 (page_size 64) and returns every
// code met and the count the first page claimed.
func (f *fixture) walk(t *testing.T, sid int64) (codes []string, count int) {
	t.Helper()
	return f.walkList(t, codesPath(sid))
}

// walkList walks the list at path (codes or phone numbers) as walk does.
func (f *fixture) walkList(t *testing.T, path string) (codes []string, count int) {
	t.Helper()
	path += "?page_size=64"
	count = -1
	for pages := 0; path != ""; pages++ {
		if pages > 1000 {
			t.Fatal("more than 1000 pages")
		}
		r := f.do("GET", path, "")
		if r.code != 200 {
			t.Fatalf("GET %s: %v", path, r)
		}
		var p api.Page[string]
		if err := json.Unmarshal(r.body, &p); err != nil {
			t.Fatal(err)
		}
		if count < 0 {
			count = p.Count
		} else if p.Count != count {
			t.Fatalf("count changed from %d to %d while paging, with no writes", count, p.Count)
		}
		codes = append(codes, p.Results...)
		path = ""
		if p.Next != nil {
			u, err := url.Parse(*p.Next)
			if err != nil {
				t.Fatal(err)
			}
			path = u.RequestURI()
		}
	}
	return codes, count
}

// exact checks that the count is the number of codes stored, that paging
// walks exactly that many distinct codes in byte order, and returns them.
func (f *fixture) exact(t *testing.T, sid int64) []string {
	t.Helper()
	codes, count := f.walk(t, sid)
	if count != len(codes) {
		t.Errorf("count %d, but paging yields %d codes", count, len(codes))
	}
	if !slices.IsSorted(codes) || len(slices.Compact(slices.Clone(codes))) != len(codes) {
		t.Errorf("paging yields codes out of order or twice")
	}
	return codes
}

// TestCodeCountRace: ten uploads of the same new codes at once, into a
// survey that has codes, leave the count equal to the codes stored.
func TestCodeCountRace(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Race")
	const existing, fresh = 30, 110 // two transactions of new codes: 99 and 11
	if r := f.do("POST", codesPath(sid), mustJSON(t, codeList("old", existing))); r.code != 201 {
		t.Fatalf("seed: %v", r)
	}
	body := mustJSON(t, codeList("new", fresh))
	var wg sync.WaitGroup
	replies := make([]reply, 10)
	start := make(chan struct{})
	for i := range replies {
		wg.Go(func() {
			<-start
			replies[i] = f.do("POST", codesPath(sid), body)
		})
	}
	close(start)
	wg.Wait()
	txs := 0
	for _, r := range replies {
		check(t, "racing POST", r, 201, body)
		txs += r.calls.Ops()["DynamoDB.TransactWriteItems"]
	}
	t.Logf("10 racing uploads of %d new codes: %d transactions in all", fresh, txs)
	got := f.exact(t, sid)
	want := slices.Sorted(slices.Values(append(codeList("old", existing), codeList("new", fresh)...)))
	if !slices.Equal(got, want) {
		t.Errorf("after the race: %d codes, want the %d uploaded", len(got), len(want))
	}
}

// faulty marks a request whose TransactWriteItems calls the injected fault
// may fail; other tests' requests (in parallel) are never touched.
type faulty struct{}

// faultsMu keeps the tests that inject faults apart: the hook is one for
// the process.
var faultsMu sync.Mutex

// injectTxFaults fails the TransactWriteItems calls of marked requests for
// which fail(n) is true, n counting them from 1, with err; the returned
// func restores the store.
func injectTxFaults(fail func(n int64) bool, err error) (restore func()) {
	faultsMu.Lock()
	var n atomic.Int64
	undo := localaws.InjectFaults(func(ctx context.Context, _, op string) error {
		if op != "TransactWriteItems" || ctx.Value(faulty{}) == nil {
			return nil
		}
		if fail(n.Add(1)) {
			return err
		}
		return nil
	})
	return func() { undo(); faultsMu.Unlock() }
}

// doFaulty sends a request marked for injected faults.
func (f *fixture) doFaulty(method, path, body string) reply {
	h := f.h
	return serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), faulty{}, true)))
	}), method, path, f.key, "application/json", &body)
}

// TestCodeCountCrash: an upload that fails half way (transactions after
// the first fail, as a crash or an outage would stop it) leaves the count
// equal to the codes stored; the client's retry then finishes the upload.
func TestCodeCountCrash(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Crash")
	codes := codeList("crash", 400) // five transactions
	outage := &types.InternalServerError{Message: aws.String("injected")}
	restore := injectTxFaults(func(n int64) bool { return n > 1 }, outage)
	r := f.doFaulty("POST", codesPath(sid), mustJSON(t, codes))
	restore()
	check(t, "POST during the outage", r, 503, nil)
	stored := f.exact(t, sid)
	if len(stored) == 0 || len(stored) >= len(codes) {
		t.Errorf("%d codes stored by the failed upload; want some, not all", len(stored))
	}
	t.Logf("the failed upload stored %d of %d codes, and counted as many", len(stored), len(codes))
	check(t, "the retry", f.do("POST", codesPath(sid), mustJSON(t, codes)), 201, codes)
	if got := f.exact(t, sid); !slices.Equal(got, slices.Sorted(slices.Values(codes))) {
		t.Errorf("after the retry: %d codes, want %d", len(got), len(codes))
	}
}

// TestCodeCountConflicts: transactions cancelled by concurrent ones
// (TransactionConflict) are tried again after a backoff; a few such
// losses cost time, not the upload or the count.
func TestCodeCountConflicts(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Conflicts")
	codes := codeList("conflict", 120)
	conflict := &types.TransactionCanceledException{Message: aws.String("injected"), CancellationReasons: []types.CancellationReason{
		{Code: aws.String("None")}, {Code: aws.String("TransactionConflict")}}}
	restore := injectTxFaults(func(n int64) bool { return n <= 3 }, conflict)
	r := f.doFaulty("POST", codesPath(sid), mustJSON(t, codes))
	restore()
	check(t, "POST through conflicts", r, 201, codes)
	if n := len(f.exact(t, sid)); n != len(codes) {
		t.Errorf("%d codes after the conflicts, want %d", n, len(codes))
	}
	// Conflicts that do not pass: 503, and the count still exact.
	restore = injectTxFaults(func(int64) bool { return true }, conflict)
	r = f.doFaulty("POST", codesPath(sid), mustJSON(t, codeList("more", 10)))
	restore()
	check(t, "POST through endless conflicts", r, 503, nil)
	if n := len(f.exact(t, sid)); n != len(codes) {
		t.Errorf("%d codes after the refused upload, want %d", n, len(codes))
	}
}

// TestCodeCountDeletesRaceAdds: uploads, deletions of listed codes and a
// deletion of every code, all at once, leave the count equal to the codes
// stored, and codes nobody deleted stay.
func TestCodeCountDeletesRaceAdds(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Deletes and adds")
	keep, gone := codeList("keep", 40), codeList("gone", 60)
	if r := f.do("POST", codesPath(sid), mustJSON(t, append(slices.Clone(keep), gone...))); r.code != 201 {
		t.Fatalf("seed: %v", r)
	}
	added := codeList("added", 60)
	requests := []struct{ method, body string }{
		{"POST", mustJSON(t, added)},
		{"POST", mustJSON(t, added)},
		{"DELETE", mustJSON(t, gone)},
		{"DELETE", mustJSON(t, gone)},
		{"DELETE", mustJSON(t, append(slices.Clone(gone[:30]), added[:30]...))},
		{"POST", mustJSON(t, added[10:])},
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, rq := range requests {
		wg.Go(func() {
			<-start
			if r := f.do(rq.method, codesPath(sid), rq.body); r.code != 201 && r.code != 204 {
				t.Errorf("%s: %v", rq.method, r)
			}
		})
	}
	close(start)
	wg.Wait()
	got := f.exact(t, sid)
	for _, c := range keep {
		if !slices.Contains(got, c) {
			t.Errorf("code %q was deleted by nobody, and is gone", c)
		}
	}
	for _, c := range gone {
		if slices.Contains(got, c) {
			t.Errorf("code %q was deleted, and is still there", c)
		}
	}

	// A deletion of every code racing an upload: whatever lands, the count
	// follows it.
	late := codeList("late", 50)
	wg.Go(func() { f.do("DELETE", codesPath(sid), "") })
	wg.Go(func() { f.do("POST", codesPath(sid), mustJSON(t, late)) })
	wg.Wait()
	got = f.exact(t, sid)
	for _, c := range got {
		if !strings.HasPrefix(c, "late-") {
			t.Errorf("code %q survived the deletion of every code", c)
		}
	}
	// And with nothing racing, every code goes and the count is zero.
	check(t, "DELETE every code", f.do("DELETE", codesPath(sid), ""), 204, nil)
	if got := f.exact(t, sid); len(got) != 0 {
		t.Errorf("%d codes after deleting every code", len(got))
	}
}

// TestCodeWriteCalls: what an upload costs. A survey without codes is not
// checked first; one with codes is, so a re-upload writes nothing. The
// first upload also fixes the survey's code page index (one PutItem), and
// codes are sent in byte order, as many a transaction as fit with the
// index's nodes of their prefixes (codepages.go): the 99 codes of "half
// new" are two chunks.
func TestCodeWriteCalls(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Calls")
	codes := codeList("calls", 150)
	body := mustJSON(t, codes)
	want := func(what string, r reply, ops map[string]int) {
		t.Helper()
		if r.code != 201 && r.code != 204 {
			t.Errorf("%s: %v", what, r)
		}
		if got := r.calls.Ops(); !maps.Equal(got, ops) {
			t.Errorf("%s: calls %v, want %v", what, got, ops)
		}
	}
	// Each successful write also puts its activity entry (one
	// BatchWriteItem, contract section 19).
	want("first upload", f.do("POST", codesPath(sid), body),
		map[string]int{"DynamoDB.BatchGetItem": 1, "DynamoDB.PutItem": 1, "DynamoDB.TransactWriteItems": 2, "DynamoDB.BatchWriteItem": 1})
	want("the same again", f.do("POST", codesPath(sid), body),
		map[string]int{"DynamoDB.BatchGetItem": 3, "DynamoDB.BatchWriteItem": 1})
	want("half new", f.do("POST", codesPath(sid), mustJSON(t, append(codes[:50:50], codeList("other", 49)...))),
		map[string]int{"DynamoDB.BatchGetItem": 3, "DynamoDB.TransactWriteItems": 2, "DynamoDB.BatchWriteItem": 1})
	want("delete with unknown codes", f.do("DELETE", codesPath(sid), mustJSON(t, append(codes[:10:10], "unknown-1", "unknown-2"))),
		map[string]int{"DynamoDB.BatchGetItem": 1, "DynamoDB.TransactWriteItems": 2, "DynamoDB.BatchWriteItem": 1})
	if got := f.exact(t, sid); len(got) != 150+49-10 {
		t.Errorf("%d codes, want %d", len(got), 150+49-10)
	}
}
