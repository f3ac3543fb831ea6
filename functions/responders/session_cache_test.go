package responders_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
)

// batchReads records the answers of DynamoDB's BatchGetItem a Store's
// client receives: how many, their bytes, and whether one held an item of
// a sort key.
type batchReads struct {
	inner aws.HTTPClient
	mu    sync.Mutex
	calls int
	bytes int
	body  strings.Builder
}

func (b *batchReads) Do(req *http.Request) (*http.Response, error) {
	resp, err := b.inner.Do(req)
	if err != nil || !strings.HasSuffix(req.Header.Get("X-Amz-Target"), ".BatchGetItem") {
		return resp, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(data))
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls++
	b.bytes += len(data)
	b.body.Write(data)
	return resp, err
}

// take answers the calls and bytes since the last take, and whether they
// held sk.
func (b *batchReads) take(sk string) (calls, n int, held bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	calls, n, held = b.calls, b.bytes, strings.Contains(b.body.String(), `"`+sk+`"`)
	b.calls, b.bytes = 0, 0
	b.body.Reset()
	return calls, n, held
}

// countedContainer is a container (a Store of its own) whose BatchGetItem
// answers are recorded.
func countedContainer(tb testing.TB, f fixture) (*store.Store, *batchReads) {
	cfg := testenv.Config(tb)
	rec := &batchReads{inner: cfg.HTTPClient}
	if rec.inner == nil {
		rec.inner = &http.Client{}
	}
	cfg.HTTPClient = rec
	st := store.New(cfg, f.st.TableName())
	st.Now = f.st.Now
	return st, rec
}

// TestSessionStartCache: on a warm container a session's start reads one
// read copy of the survey's state (its state and collection version: one
// GetItem, not of the survey item) and takes the survey, its settings and
// layout from the container's copy, never the layout item that grows
// with the survey's elements: exact DynamoDB calls and the items read
// asserted. A survey that checks no code reads no guard's counts; one
// that does reads them beside the copy, in one BatchGetItem. An owner's
// change of settings is obeyed at the next start (the copy names a newer
// version: the survey item and the counts, then its settings and layout,
// in two BatchGetItems).
func TestSessionStartCache(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	slug, sid := f.survey(t, nil)
	for i := range 20 {
		f.textQuestion(t, sid, fmt.Sprintf("Question %d of a survey whose layout grows", i+1), false)
	}
	st, rec := countedContainer(t, f)
	h := newHandler(st, f)

	// Cold: survey, settings, layout and counts in one BatchGetItem.
	if r := send(t, h, "POST", sessionsPath(slug), "{}", js...); r.code != 201 || r.ops["DynamoDB.BatchGetItem"] != 1 {
		t.Fatalf("a start on a cold container: %d %s, calls %v", r.code, r.body, r.ops)
	}
	_, coldBytes, coldLayout := rec.take("LAYOUT")
	if !coldLayout {
		t.Fatal("the cold start's BatchGetItem holds no layout item: the test cannot tell")
	}
	if v := send(t, h, "GET", surveyPath(slug), ""); v.code != 200 { // a view warms the container
		t.Fatalf("view: %d %s", v.code, v.body)
	}
	rec.take("")

	r := send(t, h, "POST", sessionsPath(slug), "{}", js...)
	calls, _, _ := rec.take("LAYOUT")
	t.Logf("a session start: cold %d bytes of BatchGetItem; warm %d call(s), DynamoDB calls %v", coldBytes, calls, r.ops)
	if want := fmt.Sprint(map[string]int{"DynamoDB.GetItem": 1}); r.code != 201 || fmt.Sprint(r.ops) != want || calls != 0 {
		t.Errorf("a warm start: %d %s, made %v, want %v: a copy of the survey's state (the slug and the survey are the container's)", r.code, r.body, r.ops, want)
	}

	// The owner turns access codes on: the next start knows it (no code:
	// refused) with two BatchGetItems, the survey item and the counts, then
	// the settings and the layout.
	if err := f.st.UpdateSettings(ctx, f.aid, sid, store.SettingsUpdate{Set: map[string]any{"code_auth": true}}); err != nil {
		t.Fatal(err)
	}
	r = send(t, h, "POST", sessionsPath(slug), "{}", js...)
	if r.code == 201 || r.ops["DynamoDB.BatchGetItem"] != 2 {
		t.Errorf("a start after code_auth was turned on: %d %s, calls %v; want refused after two BatchGetItems", r.code, r.body, r.ops)
	}
	// Warm again (a view): the state copy, and the guard's counts in one
	// BatchGetItem of the two count items, no survey item.
	if v := send(t, h, "GET", surveyPath(slug), ""); v.code != 200 {
		t.Fatalf("view: %d %s", v.code, v.body)
	}
	rec.take("")
	r = send(t, h, "POST", sessionsPath(slug), "{}", js...)
	calls, _, surveyItem := rec.take(store.SurveySK)
	if want := fmt.Sprint(map[string]int{"DynamoDB.BatchGetItem": 1, "DynamoDB.GetItem": 1}); r.code == 201 || fmt.Sprint(r.ops) != want || calls != 1 || surveyItem {
		t.Errorf("a warm start of a code_auth survey: %d %s, made %v, want %v (the survey item in the batch: %v)", r.code, r.body, r.ops, want, surveyItem)
	}
}
