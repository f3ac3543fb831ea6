// Package conflict is a conflict model for DynamoDB Local, which has none:
// an HTTP proxy in front of it that cancels writes as DynamoDB cancels
// them when transactions contend. A write transaction holds the items it
// writes or checks from the moment it arrives until it answers, and it
// answers no sooner than Hold after it arrived: DynamoDB's two-phase commit
// takes that long, DynamoDB Local's takes a fraction of a millisecond, and
// without the wait no two transactions would ever overlap locally. A
// transaction touching a held item is cancelled with
// TransactionCanceledException and reason TransactionConflict for each such
// item (a ConditionCheck touches its item), and a PutItem, UpdateItem or
// DeleteItem touching one fails with TransactionConflictException. A
// TransactGetItems is cancelled likewise and holds its items while it
// runs, without the wait. A request that follows the answer of another
// never meets its hold, as in DynamoDB: the hold ends before the answer is
// sent. Everything else passes through, each answer read whole before it
// is written (an answer the emulator drops mid-way becomes DynamoDB's 500,
// which the SDK retries: fetch).
//
// It runs with `make run`, `make load` and the tests that check contention;
// no Lambda carries it.
package conflict

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultHold is how long a write transaction holds its items at least.
const DefaultHold = 20 * time.Millisecond

// Proxy forwards DynamoDB's JSON API to an upstream endpoint, applying the
// conflict model.
type Proxy struct {
	// Hold is how long a write transaction holds its items at least; 0
	// turns the model off (every request passes through).
	Hold time.Duration

	upstream *url.URL
	rp       *httputil.ReverseProxy

	mu   sync.Mutex
	held map[string]uint64 // item (table and key) -> the transaction holding it
	keys map[string][]string

	conflicts atomic.Int64
}

var txSeq atomic.Uint64

// New returns a proxy to the DynamoDB endpoint upstream.
func New(upstream string, hold time.Duration) (*Proxy, error) {
	u, err := url.Parse(upstream)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("conflict: bad upstream %q: %v", upstream, err)
	}
	p := &Proxy{Hold: hold, upstream: u, held: map[string]uint64{}, keys: map[string][]string{}}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			r.Out.Host = r.In.Host // SigV4 signed the client's host
		},
		// An upstream that fails before answering: DynamoDB's 500 (fetch).
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, _ error) { copyAnswer(w, internalError()) },
	}
	return p, nil
}

// Conflicts is the count of requests cancelled so far.
func (p *Proxy) Conflicts() int64 { return p.conflicts.Load() }

// ServeHTTP applies the model to one request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
	if p.Hold <= 0 || !ok || !modelled[op] {
		p.forward(w, r)
		return
	}
	start := time.Now()
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	items, err := p.touched(r, op, body)
	if err != nil || items == nil {
		// Malformed, or of a table it cannot describe: DynamoDB Local
		// answers with the error the client should see.
		p.forward(w, r)
		return
	}
	tx := strings.HasPrefix(op, "Transact")
	id := txSeq.Add(1)
	if conflicted := p.acquire(id, items, tx); conflicted != nil {
		p.conflicts.Add(1)
		writeConflict(w, tx, conflicted)
		return
	}
	if !tx {
		p.forward(w, r)
		return
	}
	// The answer is kept until the hold ends, so that the client cannot
	// send its next request while its items are still held.
	rec := p.fetch(r)
	if op == "TransactWriteItems" {
		time.Sleep(time.Until(start.Add(p.Hold)))
	}
	p.release(id, items)
	copyAnswer(w, rec)
}

// forward answers a request as the upstream does, once it has the whole
// answer (fetch).
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request) { copyAnswer(w, p.fetch(r)) }

// fetch sends a request upstream and reads the whole answer. DynamoDB
// Local, loaded, sometimes resets a connection in the middle of an answer
// (a Query or BatchGetItem of a few KB); passed on as it came, that reached
// the client as a 200 cut short, which the SDK cannot read and does not
// retry (a 500 "deserialization failed, unexpected EOF" in a handler). A
// failed upstream is answered as DynamoDB's 500 InternalServerError
// instead, which the SDK retries as it would a reset it saw itself.
func (p *Proxy) fetch(r *http.Request) (rec *httptest.ResponseRecorder) {
	rec = httptest.NewRecorder()
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler { // the ReverseProxy's abort on a body copy that failed
				panic(v)
			}
			rec = internalError()
		}
	}()
	p.rp.ServeHTTP(rec, r)
	return rec
}

// internalError is DynamoDB's answer to a request it failed.
func internalError() *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/x-amz-json-1.0")
	rec.Header().Set("X-Amzn-Requestid", fmt.Sprintf("conflict-%d", txSeq.Add(1)))
	rec.WriteHeader(http.StatusInternalServerError)
	_ = json.NewEncoder(rec).Encode(map[string]string{
		"__type":  "com.amazonaws.dynamodb.v20120810#InternalServerError",
		"message": "Internal server error (the emulator dropped its answer)",
	})
	return rec
}

// copyAnswer writes a fetched answer.
func copyAnswer(w http.ResponseWriter, rec *httptest.ResponseRecorder) {
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// modelled are the operations the model looks at.
var modelled = map[string]bool{
	"TransactWriteItems": true, "TransactGetItems": true,
	"PutItem": true, "UpdateItem": true, "DeleteItem": true,
}

// acquire checks the items against those held and, for a transaction that
// meets none, holds them. It returns, for a conflict, which of the items
// are held (nil when none is).
func (p *Proxy) acquire(id uint64, items []string, tx bool) []bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	var conflicted []bool
	for i, it := range items {
		if _, ok := p.held[it]; ok {
			if conflicted == nil {
				conflicted = make([]bool, len(items))
			}
			conflicted[i] = true
		}
	}
	if conflicted != nil || !tx {
		return conflicted
	}
	for _, it := range items {
		p.held[it] = id
	}
	return nil
}

// release lets a transaction's items go.
func (p *Proxy) release(id uint64, items []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, it := range items {
		if p.held[it] == id {
			delete(p.held, it)
		}
	}
}

// writeConflict answers as DynamoDB does: a transaction is cancelled with
// a reason for every action, in order; a single write fails outright.
func writeConflict(w http.ResponseWriter, tx bool, conflicted []bool) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amzn-Requestid", fmt.Sprintf("conflict-%d", txSeq.Add(1)))
	w.WriteHeader(http.StatusBadRequest)
	if !tx {
		_ = json.NewEncoder(w).Encode(map[string]string{
			"__type":  "com.amazonaws.dynamodb.v20120810#TransactionConflictException",
			"message": "Transaction is ongoing for the item",
		})
		return
	}
	type reason struct {
		Code    string
		Message string `json:",omitempty"`
	}
	reasons := make([]reason, len(conflicted))
	codes := make([]string, len(conflicted))
	for i, c := range conflicted {
		reasons[i], codes[i] = reason{Code: "None"}, "None"
		if c {
			reasons[i], codes[i] = reason{Code: "TransactionConflict", Message: "Transaction is ongoing for the item"}, "TransactionConflict"
		}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"__type":              "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
		"message":             "Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]",
		"CancellationReasons": reasons,
	})
}

// request is what the model reads of a request: the items it touches.
type request struct {
	TableName     string
	Key           map[string]json.RawMessage
	Item          map[string]json.RawMessage
	TransactItems []struct {
		Put, Update, Delete, ConditionCheck, Get *request
	}
}

// touched lists the items a request touches, as "table\x00key", in the
// order of its actions; nil when the request cannot be read.
func (p *Proxy) touched(r *http.Request, op string, body []byte) ([]string, error) {
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var actions []*request
	if strings.HasPrefix(op, "Transact") {
		for _, t := range req.TransactItems {
			a := t.Put
			for _, b := range []*request{t.Update, t.Delete, t.ConditionCheck, t.Get} {
				if a == nil {
					a = b
				}
			}
			if a == nil {
				return nil, nil
			}
			actions = append(actions, a)
		}
	} else {
		actions = []*request{&req}
	}
	items := make([]string, len(actions))
	for i, a := range actions {
		key := a.Key
		if key == nil {
			names, err := p.keySchema(r, a.TableName)
			if err != nil {
				return nil, err
			}
			key = map[string]json.RawMessage{}
			for _, n := range names {
				key[n] = a.Item[n]
			}
		}
		items[i] = itemID(a.TableName, key)
	}
	return items, nil
}

// itemID names an item by its table and key attributes (their JSON, which
// the SDKs write the same way for the same value).
func itemID(table string, key map[string]json.RawMessage) string {
	names := make([]string, 0, len(key))
	for n := range key {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(table)
	for _, n := range names {
		b.WriteByte(0)
		b.WriteString(n)
		b.WriteByte('=')
		b.Write(compact(key[n]))
	}
	return b.String()
}

func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// keySchema returns the key attribute names of a table, asking the
// upstream once (with the request's own credentials) and remembering them:
// tables are never deleted locally.
func (p *Proxy) keySchema(r *http.Request, table string) ([]string, error) {
	p.mu.Lock()
	names, ok := p.keys[table]
	p.mu.Unlock()
	if ok {
		return names, nil
	}
	body, _ := json.Marshal(map[string]string{"TableName": table})
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, p.upstream.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.DescribeTable")
	req.Header.Set("Authorization", r.Header.Get("Authorization"))
	req.Header.Set("X-Amz-Date", r.Header.Get("X-Amz-Date"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct {
		Table struct {
			KeySchema []struct{ AttributeName string }
		}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("conflict: describe table %s: %s", table, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, err
	}
	for _, k := range out.Table.KeySchema {
		names = append(names, k.AttributeName)
	}
	p.mu.Lock()
	p.keys[table] = names
	p.mu.Unlock()
	return names, nil
}

// Held is the count of items held now.
func (p *Proxy) Held() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.held)
}
