// Package ddbsim models what DynamoDB does to a write path under load, so
// that a benchmark can run the store's real request-building code and ask
// how the requests it sends would fare on AWS: per-item transaction
// conflicts, 1,000 write units a second per partition key and per GSI
// partition, 2 units per KB in a transaction.
//
// It is local-only (tests and benchmarks): a Capture transport records
// the requests the real store sends, answering each with a canned
// success, and a Model replays the recorded requests of many submissions
// against DynamoDB's rules in virtual time. No emulator can show these
// limits; this is the model the figures of docs/scale.md come from.
package ddbsim

import (
	"bytes"
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
	Op    string // the DynamoDB operation, e.g. "TransactWriteItems"
	Kind  Kind
	Items []Item
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
	req := Request{Op: op}
	switch op {
	case "GetItem", "Query", "BatchGetItem", "Scan", "TransactGetItems":
		req.Kind = Read
		if c.Answer != nil {
			return req, c.Answer(op, in)
		}
	case "PutItem":
		req.Kind = Write
		req.Items = []Item{c.put(mapOf(in["Item"]))}
	case "UpdateItem", "DeleteItem":
		req.Kind = Write
		req.Items = []Item{c.keyed(mapOf(in["Key"]), false)}
	case "TransactWriteItems":
		req.Kind = Tx
		for _, t := range listOf(in["TransactItems"]) {
			t := mapOf(t)
			switch {
			case t["Put"] != nil:
				req.Items = append(req.Items, c.put(mapOf(mapOf(t["Put"])["Item"])))
			case t["Update"] != nil:
				req.Items = append(req.Items, c.keyed(mapOf(mapOf(t["Update"])["Key"]), false))
			case t["Delete"] != nil:
				req.Items = append(req.Items, c.keyed(mapOf(mapOf(t["Delete"])["Key"]), false))
			case t["ConditionCheck"] != nil:
				req.Items = append(req.Items, c.keyed(mapOf(mapOf(t["ConditionCheck"])["Key"]), true))
			}
		}
	}
	return req, ""
}

func (c *Capture) put(item map[string]any) Item {
	pk, sk := str(item["PK"]), str(item["SK"])
	it := Item{Key: pk + "|" + sk, Partition: pk, Bytes: ItemSize(item)}
	for _, g := range []string{"GSI1PK", "GSI2PK"} {
		if v := str(item[g]); v != "" {
			it.GSIs = append(it.GSIs, g[:4]+":"+v)
		}
	}
	return it
}

func (c *Capture) keyed(key map[string]any, check bool) Item {
	pk, sk := str(key["PK"]), str(key["SK"])
	n := 1024
	if c.SizeOf != nil {
		if s := c.SizeOf(pk, sk); s > 0 {
			n = s
		}
	}
	return Item{Key: pk + "|" + sk, Partition: pk, Bytes: n, Check: check}
}

// ItemSize is an item's size as DynamoDB bills it: each attribute's name
// plus its value (strings and binaries by length, numbers about one byte
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
		case "S", "B":
			return len(str(v))
		case "N":
			return (len(fmt.Sprint(x))+1)/2 + 1
		case "BOOL", "NULL":
			return 1
		case "SS", "NS", "BS":
			n := 0
			for _, e := range listOf(x) {
				n += len(fmt.Sprint(e))
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
