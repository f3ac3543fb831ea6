// Package ddbsim models what DynamoDB does to a write path under load, so
// that a benchmark can run the store's real request-building code and ask
// how the requests it sends would fare on AWS: per-item transaction
// conflicts, 1,000 write units a second per partition key and per GSI
// partition, 2 units per KB in a transaction.
//
// It is local-only (tests and benchmarks): a Capture transport records
// the requests the real store sends, answering each with a canned
// success, and a Model replays the recorded requests of many submissions
// against DynamoDB's rules in virtual time. A Recorder (record.go) records
// instead what the code sends to a real DynamoDB (DynamoDB Local), reads
// and the units DynamoDB reported included: the handlers' own requests,
// which functions/responders' benchmarks replay. No emulator can show these
// limits; this is the model the figures of docs/scale.md come from.
package ddbsim

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Kind is what a recorded request does.
type Kind int

// Request kinds.
const (
	Read  Kind = iota // GetItem, Query, BatchGetItem
	Write             // PutItem, UpdateItem, DeleteItem
	Tx                // TransactWriteItems
)

// Item is one item a request writes or checks.
type Item struct {
	// Key is "PK|SK"; Partition is PK, the unit the 1,000 WCU/s limit
	// applies to.
	Key, Partition string
	// Bytes is the item's size as DynamoDB counts it (attribute names and
	// values); for an update, the size the caller gave for the item.
	Bytes int
	// GSIs are the GSI partitions the item is written to (a Put that
	// carries GSI keys).
	GSIs []string
	// Check is a ConditionCheck: it writes nothing but holds the item.
	Check bool
	// Versioned is a write conditional on the version its operation read
	// (optimistic concurrency: a survey's layout, variables, webhooks):
	// it fails its condition when another operation wrote the item since
	// the operation's pass began, and the operation reads and tries again
	// from its first request (Retry.For). The caller marks it.
	Versioned bool
}

// Request is one recorded call.
type Request struct {
	Op   string // the DynamoDB operation, e.g. "TransactWriteItems"
	Kind Kind
	// Items are what a write writes or checks, or what a read returned
	// (Partition: where it was read, an index's for a Query of one).
	Items []Item
	// Consistent is a strongly consistent read.
	Consistent bool
	// Table is the table the request names (a Recorder's).
	Table string
	// Consumed is the capacity units DynamoDB said the request consumed
	// (a Recorder's; table and indexes).
	Consumed float64
	// ConsumedBy is Consumed by the table ("") and each index.
	ConsumedBy map[string]float64
}

// Capture is an http.RoundTripper standing in for DynamoDB: it records
// every request and answers with a success. Set it as the HTTPClient of
// the aws.Config the store is built from (and no retries).
type Capture struct {
	// SizeOf gives the stored size of an item an update or condition
	// check touches (the request does not carry it); 0 means 1 KB.
	SizeOf func(pk, sk string) int
	// Answer, when set, answers a read (GetItem) instead of "not found":
	// the JSON body.
	Answer func(op string, body map[string]any) string

	mu   sync.Mutex
	reqs []Request
	seq  int64
}

// Take returns the requests recorded since the last Take.
func (c *Capture) Take() []Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.reqs
	c.reqs = nil
	return out
}

// RoundTrip records the request and answers it.
func (c *Capture) RoundTrip(r *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	op := r.Header.Get("X-Amz-Target")
	op = op[strings.LastIndex(op, ".")+1:]
	var in map[string]any
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, fmt.Errorf("ddbsim: %s: %w", op, err)
	}
	req, answer := c.record(op, in)
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	if answer == "" && op == "UpdateItem" {
		// An id counter's ADD returns the new value.
		c.seq += 1 << 20
		answer = fmt.Sprintf(`{"Attributes":{"seq":{"N":"%d"}}}`, c.seq)
	}
	c.mu.Unlock()
	if answer == "" {
		answer = "{}"
	}
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
		Body:   io.NopCloser(bytes.NewBufferString(answer)), ContentLength: int64(len(answer)), Request: r,
	}, nil
}

func (c *Capture) record(op string, in map[string]any) (Request, string) {
	req := parse(op, in, func(pk, sk string) stored {
		n := 1024
		if c.SizeOf != nil {
			if s := c.SizeOf(pk, sk); s > 0 {
				n = s
			}
		}
		return stored{bytes: n}
	}, nil)
	if req.Kind == Read && c.Answer != nil {
		return req, c.Answer(op, in)
	}
	return req, ""
}

// stored is what a request's item is as stored: its size and its index
// keys.
type stored struct {
	bytes int
	gsis  []gsiKey
	// writes, when set, are the index writes (indexWrites) measured
	// from the item's two images.
	writes []string
}

// gsiKey is an item's key in an index.
type gsiKey struct{ index, pk, sk string }

func (k gsiKey) partition() string { return k.index + ":" + k.pk }

// parse is the request a DynamoDB call makes: its kind and the items it
// writes or checks. keyed gives the stored item of one an update, a delete
// or a check names by its key; replaced (or nil) the item a put replaces.
func parse(op string, in map[string]any, keyed func(pk, sk string) stored, replaced func(pk, sk string) stored) Request {
	req := Request{Op: op}
	put := func(item map[string]any) Item {
		it := putItem(item)
		if replaced != nil {
			old := replaced(str(item["PK"]), str(item["SK"]))
			it.Bytes = max(it.Bytes, old.bytes)
			it.GSIs = indexWrites(gsisOf(item), old.gsis)
		}
		return it
	}
	key := func(k map[string]any, check bool) Item {
		pk, sk := str(k["PK"]), str(k["SK"])
		s := keyed(pk, sk)
		it := Item{Key: pk + "|" + sk, Partition: pk, Bytes: s.bytes, Check: check}
		if !check {
			it.GSIs = s.writes
			if it.GSIs == nil {
				it.GSIs = indexWrites(s.gsis, nil)
			}
		}
		return it
	}
	switch op {
	case "GetItem", "Query", "BatchGetItem", "Scan", "TransactGetItems":
		req.Kind = Read
	case "PutItem":
		req.Kind = Write
		req.Items = []Item{put(mapOf(in["Item"]))}
	case "UpdateItem", "DeleteItem":
		req.Kind = Write
		req.Items = []Item{key(mapOf(in["Key"]), false)}
	case "BatchWriteItem":
		// Each put or delete is a single write of its own, billed as one.
		req.Kind = Write
		for _, reqs := range mapOf(in["RequestItems"]) {
			for _, w := range listOf(reqs) {
				w := mapOf(w)
				if p := mapOf(w["PutRequest"]); p != nil {
					req.Items = append(req.Items, put(mapOf(p["Item"])))
				} else if d := mapOf(w["DeleteRequest"]); d != nil {
					req.Items = append(req.Items, key(mapOf(d["Key"]), false))
				}
			}
		}
	case "TransactWriteItems":
		req.Kind = Tx
		for _, t := range listOf(in["TransactItems"]) {
			t := mapOf(t)
			switch {
			case t["Put"] != nil:
				req.Items = append(req.Items, put(mapOf(mapOf(t["Put"])["Item"])))
			case t["Update"] != nil:
				req.Items = append(req.Items, key(mapOf(mapOf(t["Update"])["Key"]), false))
			case t["Delete"] != nil:
				req.Items = append(req.Items, key(mapOf(mapOf(t["Delete"])["Key"]), false))
			case t["ConditionCheck"] != nil:
				req.Items = append(req.Items, key(mapOf(mapOf(t["ConditionCheck"])["Key"]), true))
			}
		}
	}
	return req
}

// putItem is an item a put writes, with the GSI partitions its keys put
// it in.
func putItem(item map[string]any) Item {
	pk, sk := str(item["PK"]), str(item["SK"])
	return Item{Key: pk + "|" + sk, Partition: pk, Bytes: ItemSize(item), GSIs: indexWrites(gsisOf(item), nil)}
}

// gsisOf are an item's index keys.
func gsisOf(item map[string]any) []gsiKey {
	var out []gsiKey
	for _, g := range []string{"GSI1", "GSI2"} {
		if v := str(item[g+"PK"]); v != "" {
			sk, _ := json.Marshal(item[g+"SK"])
			out = append(out, gsiKey{index: g, pk: v, sk: string(sk)})
		}
	}
	return out
}

// indexWrites are the index partitions a write of an item whose index keys
// are now and were before writes to, one entry a write: an item whose key
// in an index moved is deleted from its old place and put in its new one
// (two writes, also within one partition); one that stays is written once.
func indexWrites(now, before []gsiKey) []string {
	var out []string
	for _, n := range now {
		out = append(out, n.partition())
		for _, b := range before {
			if b.index == n.index && b != n {
				out = append(out, b.partition())
			}
		}
	}
	for _, b := range before {
		kept := false
		for _, n := range now {
			kept = kept || n.index == b.index
		}
		if !kept {
			out = append(out, b.partition())
		}
	}
	return out
}

// ItemSize is an item's size as DynamoDB bills it: each attribute's name
// plus its value (strings by their UTF-8 length, binaries by their bytes,
// not the base64 that carries them in a request, numbers about one byte
// per two digits plus one, sets and documents by their members plus 3).
func ItemSize(item map[string]any) int {
	n := 0
	for name, v := range item {
		n += len(name) + valueSize(mapOf(v))
	}
	return n
}

func valueSize(v map[string]any) int {
	for t, x := range v {
		switch t {
		case "S":
			return len(str(v))
		case "B":
			return binarySize(x)
		case "N":
			return (len(fmt.Sprint(x))+1)/2 + 1
		case "BOOL", "NULL":
			return 1
		case "SS", "NS", "BS":
			n := 0
			for _, e := range listOf(x) {
				if t == "BS" {
					n += binarySize(e)
				} else {
					n += len(fmt.Sprint(e))
				}
			}
			return n + 3
		case "L":
			n := 3
			for _, e := range listOf(x) {
				n += 1 + valueSize(mapOf(e))
			}
			return n
		case "M":
			n := 3
			for k, e := range mapOf(x) {
				n += 1 + len(k) + valueSize(mapOf(e))
			}
			return n
		}
	}
	return 0
}

// binarySize is the bytes of a binary value as a request's JSON carries
// it (base64).
func binarySize(v any) int {
	s, _ := v.(string)
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return len(b)
	}
	return len(s)
}

func mapOf(v any) map[string]any { m, _ := v.(map[string]any); return m }
func listOf(v any) []any         { l, _ := v.([]any); return l }

// str is the string inside an attribute value {"S": "..."} (or "").
func str(v any) string {
	m := mapOf(v)
	for _, t := range []string{"S", "B"} {
		if s, ok := m[t].(string); ok {
			return s
		}
	}
	return ""
}
