package ddbsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// Recorder stands in front of a real DynamoDB (DynamoDB Local in tests):
// it forwards every request the store sends and records it, so that a
// model run replays what the code really sends, reads included, and
// never a hand-built copy of it that a new item in a transaction could
// leave behind. Set it as the HTTPClient of the aws.Config the store is
// built from (Next: the client it had).
//
// It asks DynamoDB for the units each request consumed
// (ReturnConsumedCapacity INDEXES; Request.Consumed) and measures the
// items an update, a delete or a condition check touches by reading them
// (the request carries only their keys): before the write, and after it
// for an update (DynamoDB bills the larger of the two images). Those
// reads are its own and are not recorded.
type Recorder struct {
	Next aws.HTTPClient

	mu   sync.Mutex
	reqs []Request
	off  bool
}

// Take returns the requests recorded since the last Take.
func (c *Recorder) Take() []Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.reqs
	c.reqs = nil
	return out
}

// Pause stops recording (a test's own set-up) until Resume.
func (c *Recorder) Pause() { c.mu.Lock(); c.off = true; c.mu.Unlock() }

// Resume records again.
func (c *Recorder) Resume() { c.mu.Lock(); c.off = false; c.mu.Unlock() }

// Do forwards the request and records it.
func (c *Recorder) Do(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	off := c.off
	c.mu.Unlock()
	target := r.Header.Get("X-Amz-Target")
	if off || !strings.HasPrefix(target, "DynamoDB_") || r.Body == nil {
		return c.Next.Do(r)
	}
	op := target[strings.LastIndex(target, ".")+1:]
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	var in map[string]any
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, fmt.Errorf("ddbsim: %s: %w", op, err)
	}
	table, _ := in["TableName"].(string)
	keyed := keyedOf(op, in)
	before := map[string]stored{}
	for _, k := range keyed {
		before[k.key] = c.stored(r, k.table, k.pk, k.sk)
	}
	_, asked := in["ReturnConsumedCapacity"]
	if !asked {
		in["ReturnConsumedCapacity"] = "INDEXES"
		if body, err = json.Marshal(in); err != nil {
			return nil, err
		}
		// The signature no longer matches the body; DynamoDB Local does
		// not check it.
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	resp, err := c.Next.Do(r)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	out, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(out))
	var answer map[string]any
	if err := json.Unmarshal(out, &answer); err != nil {
		return nil, fmt.Errorf("ddbsim: %s answer: %w", op, err)
	}
	// An update is billed on the larger of the item's two images, and
	// writes its indexes where the item was and where it is.
	sizes := func(pk, sk string) stored {
		s := before[pk+"|"+sk]
		for _, k := range keyed {
			if k.key == pk+"|"+sk && k.update {
				after := c.stored(r, k.table, pk, sk)
				return stored{bytes: max(s.bytes, after.bytes), gsis: after.gsis, writes: indexWrites(after.gsis, s.gsis)}
			}
		}
		return s
	}
	replaced := func(pk, sk string) stored { return before[pk+"|"+sk] }
	req := parse(op, in, sizes, replaced)
	if req.Kind == Read {
		req.Items = readItems(op, in, answer)
		req.Consistent, _ = in["ConsistentRead"].(bool)
		if op == "TransactGetItems" {
			req.Consistent = true
		}
	}
	req.Table = table
	if !asked {
		req.Consumed, req.ConsumedBy = consumed(answer)
	}
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	c.mu.Unlock()
	return resp, nil
}

// keyedItem is an item a request names by its key alone.
type keyedItem struct {
	table, pk, sk, key string
	update             bool
}

func keyedOf(op string, in map[string]any) []keyedItem {
	one := func(table string, key map[string]any, update bool) keyedItem {
		pk, sk := str(key["PK"]), str(key["SK"])
		return keyedItem{table: table, pk: pk, sk: sk, key: pk + "|" + sk, update: update}
	}
	table, _ := in["TableName"].(string)
	switch op {
	case "UpdateItem":
		return []keyedItem{one(table, mapOf(in["Key"]), true)}
	case "DeleteItem":
		return []keyedItem{one(table, mapOf(in["Key"]), false)}
	case "PutItem":
		// A put that replaces an item is billed on the larger image.
		it := mapOf(in["Item"])
		return []keyedItem{one(table, map[string]any{"PK": it["PK"], "SK": it["SK"]}, false)}
	case "BatchWriteItem":
		var out []keyedItem
		for tb, reqs := range mapOf(in["RequestItems"]) {
			for _, w := range listOf(reqs) {
				w := mapOf(w)
				if p := mapOf(w["PutRequest"]); p != nil {
					it := mapOf(p["Item"])
					out = append(out, one(tb, map[string]any{"PK": it["PK"], "SK": it["SK"]}, false))
				} else if d := mapOf(w["DeleteRequest"]); d != nil {
					out = append(out, one(tb, mapOf(d["Key"]), false))
				}
			}
		}
		return out
	case "TransactWriteItems":
		var out []keyedItem
		for _, t := range listOf(in["TransactItems"]) {
			t := mapOf(t)
			for _, kind := range []string{"Update", "Delete", "ConditionCheck", "Put"} {
				x := mapOf(t[kind])
				if x == nil {
					continue
				}
				tb, _ := x["TableName"].(string)
				key := mapOf(x["Key"])
				if kind == "Put" {
					it := mapOf(x["Item"])
					key = map[string]any{"PK": it["PK"], "SK": it["SK"]}
				}
				out = append(out, one(tb, key, kind == "Update"))
			}
		}
		return out
	}
	return nil
}

// stored reads an item (through Next, unrecorded) and returns its size
// and index partitions, nothing when it does not exist.
func (c *Recorder) stored(orig *http.Request, table, pk, sk string) stored {
	body, err := json.Marshal(map[string]any{"TableName": table, "ConsistentRead": true,
		"Key": map[string]any{"PK": map[string]string{"S": pk}, "SK": map[string]string{"S": sk}}})
	if err != nil {
		return stored{}
	}
	r, err := http.NewRequestWithContext(orig.Context(), "POST", orig.URL.String(), bytes.NewReader(body))
	if err != nil {
		return stored{}
	}
	r.Header = orig.Header.Clone()
	r.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
	r.Header.Del("Content-Length")
	r.Host = orig.Host
	resp, err := c.Next.Do(r)
	if err != nil {
		return stored{}
	}
	defer resp.Body.Close()
	var out struct{ Item map[string]any }
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil || out.Item == nil {
		return stored{}
	}
	return stored{bytes: ItemSize(out.Item), gsis: gsisOf(out.Item)}
}

// consumed is the units an answer says its request consumed: in all,
// and by the table ("") and each index.
func consumed(answer map[string]any) (float64, map[string]float64) {
	total := 0.0
	by := map[string]float64{}
	add := func(v any) {
		cc := mapOf(v)
		if f, ok := cc["CapacityUnits"].(float64); ok {
			total += f
		}
		if f, ok := mapOf(cc["Table"])["CapacityUnits"].(float64); ok {
			by[""] += f
		}
		for name, x := range mapOf(cc["GlobalSecondaryIndexes"]) {
			if f, ok := mapOf(x)["CapacityUnits"].(float64); ok {
				by[name] += f
			}
		}
	}
	switch cc := answer["ConsumedCapacity"].(type) {
	case map[string]any:
		add(cc)
	case []any:
		for _, x := range cc {
			add(x)
		}
	}
	return total, by
}

var firstValue = regexp.MustCompile(`=\s*(:[A-Za-z0-9_]+)`)

// readItems are what a read returned, each with the partition it was read
// from (an index's partition for a Query of an index).
func readItems(op string, in, answer map[string]any) []Item {
	var found []map[string]any
	switch op {
	case "GetItem":
		if it := mapOf(answer["Item"]); it != nil {
			found = append(found, it)
		} else {
			k := mapOf(in["Key"])
			pk := str(k["PK"])
			return []Item{{Key: pk + "|" + str(k["SK"]), Partition: pk}}
		}
	case "Query", "Scan":
		for _, it := range listOf(answer["Items"]) {
			found = append(found, mapOf(it))
		}
	case "BatchGetItem":
		for _, items := range mapOf(answer["Responses"]) {
			for _, it := range listOf(items) {
				found = append(found, mapOf(it))
			}
		}
	case "TransactGetItems":
		for _, r := range listOf(answer["Responses"]) {
			if it := mapOf(mapOf(r)["Item"]); it != nil {
				found = append(found, it)
			}
		}
	}
	index, _ := in["IndexName"].(string)
	qpart := ""
	if op == "Query" {
		kc, _ := in["KeyConditionExpression"].(string)
		if m := firstValue.FindStringSubmatch(kc); m != nil {
			qpart = str(mapOf(in["ExpressionAttributeValues"])[m[1]])
		}
		if kc == "" {
			// The legacy KeyConditions (guregu/dynamo sends them): the
			// partition key is the attribute compared for equality whose
			// name ends in PK.
			for name, c := range mapOf(in["KeyConditions"]) {
				c := mapOf(c)
				if vs := listOf(c["AttributeValueList"]); c["ComparisonOperator"] == "EQ" && strings.HasSuffix(name, "PK") && len(vs) == 1 {
					qpart = str(vs[0])
				}
			}
		}
		if index != "" {
			qpart = index + ":" + qpart
		}
	}
	var out []Item
	for _, it := range found {
		pk := str(it["PK"])
		p := pk
		if qpart != "" {
			p = qpart
		}
		out = append(out, Item{Key: pk + "|" + str(it["SK"]), Partition: p, Bytes: ItemSize(it)})
	}
	if len(out) == 0 && qpart != "" {
		out = []Item{{Partition: qpart}}
	}
	return out
}

// ReadUnits is what a read costs: a Query (or Scan) is billed on the sum
// of what it returned, in 4 KB steps; a GetItem, a BatchGetItem's every
// item and a TransactGetItems' every item in 4 KB steps each (twice in a
// transaction); an eventually consistent read costs half. Read units by
// partition go to each.
func ReadUnits(r Request) map[string]float64 {
	out := map[string]float64{}
	if r.Kind != Read {
		return out
	}
	factor := 0.5
	if r.Consistent {
		factor = 1
	}
	if r.Op == "TransactGetItems" {
		factor = 2
	}
	if r.Op == "Query" || r.Op == "Scan" {
		total := 0
		p := ""
		for _, it := range r.Items {
			total += it.Bytes
			p = it.Partition
		}
		out[p] += factor * math.Ceil(float64(max(total, 1))/4096)
		return out
	}
	for _, it := range r.Items {
		out[it.Partition] += factor * math.Ceil(float64(max(it.Bytes, 1))/4096)
	}
	return out
}
