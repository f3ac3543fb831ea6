package ddbsim

import (
	"encoding/json"
	"testing"
)

// TestUnits: what the model bills a recorded request, by DynamoDB's rules:
// 1 unit a KB a single write, 2 in a transaction (a check too), 1 a KB
// each index write, two when an item's index key moves; reads half a
// unit per 4 KB eventually consistent, one strongly, a Query on the sum
// of what it returned.
func TestUnits(t *testing.T) {
	small := func(pk, sk string) stored { return stored{bytes: 100} }
	moved := func(pk, sk string) stored {
		return stored{bytes: 300, gsis: []gsiKey{{index: "GSI1", pk: "P", sk: `{"S":"old"}`}}}
	}
	kept := func(pk, sk string) stored {
		return stored{bytes: 300, gsis: []gsiKey{{index: "GSI1", pk: "P", sk: `{"S":"new"}`}}}
	}
	putGSI := `{"PK":{"S":"A"},"SK":{"S":"B"},"GSI1PK":{"S":"P"},"GSI1SK":{"S":"new"}}`
	cases := []struct {
		name     string
		op, in   string
		replaced func(pk, sk string) stored
		want     float64
	}{
		{"put", "PutItem", `{"Item":{"PK":{"S":"A"},"SK":{"S":"B"}}}`, nil, 1},
		{"put with an index entry", "PutItem", `{"Item":` + putGSI + `}`, nil, 2},
		{"put replacing, index key moved", "PutItem", `{"Item":` + putGSI + `}`, moved, 3},
		{"put replacing, index key kept", "PutItem", `{"Item":` + putGSI + `}`, kept, 2},
		{"transaction of a put and a check", "TransactWriteItems",
			`{"TransactItems":[{"Put":{"Item":{"PK":{"S":"A"},"SK":{"S":"B"}}}},{"ConditionCheck":{"Key":{"PK":{"S":"C"},"SK":{"S":"D"}}}}]}`, nil, 4},
		{"batch of two", "BatchWriteItem",
			`{"RequestItems":{"t":[{"PutRequest":{"Item":{"PK":{"S":"A"},"SK":{"S":"B"}}}},{"DeleteRequest":{"Key":{"PK":{"S":"C"},"SK":{"S":"D"}}}}]}}`, nil, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var in map[string]any
			if err := json.Unmarshal([]byte(c.in), &in); err != nil {
				t.Fatal(err)
			}
			if got := Cost(parse(c.op, in, small, c.replaced)); got != c.want {
				t.Errorf("cost %.1f, want %.1f", got, c.want)
			}
		})
	}
	reads := []struct {
		name string
		r    Request
		want float64
	}{
		{"eventually consistent GetItem", Request{Op: "GetItem", Kind: Read, Items: []Item{{Partition: "A", Bytes: 5000}}}, 1},
		{"consistent GetItem", Request{Op: "GetItem", Kind: Read, Consistent: true, Items: []Item{{Partition: "A", Bytes: 100}}}, 1},
		{"Query on the sum", Request{Op: "Query", Kind: Read, Consistent: true, Items: []Item{{Partition: "A", Bytes: 3000}, {Partition: "A", Bytes: 3000}}}, 2},
		{"BatchGetItem by item", Request{Op: "BatchGetItem", Kind: Read, Items: []Item{{Partition: "A", Bytes: 10}, {Partition: "B", Bytes: 10}}}, 1},
	}
	for _, c := range reads {
		total := 0.0
		for _, u := range ReadUnits(c.r) {
			total += u
		}
		if total != c.want {
			t.Errorf("%s: %.1f read units, want %.1f", c.name, total, c.want)
		}
	}
}

// TestItemSizeOfBinaries: a binary attribute counts its bytes, as DynamoDB
// bills it, not the base64 that carries it in a request's JSON (a
// compressed response's documents: 700 bytes, not 936); a binary set its
// members' bytes and 3.
func TestItemSizeOfBinaries(t *testing.T) {
	raw := make([]byte, 700)
	for i := range raw {
		raw[i] = byte(i * 7)
	}
	b64, _ := json.Marshal(raw) // encoding/json writes []byte as base64, as the SDK does
	var item map[string]any
	if err := json.Unmarshal([]byte(`{"z": {"B": `+string(b64)+`}, "s": {"BS": [`+string(b64)+`, "AAE="]}, "PK": {"S": "é"}}`), &item); err != nil {
		t.Fatal(err)
	}
	if got, want := ItemSize(item), len("z")+700+len("s")+700+2+3+len("PK")+2; got != want {
		t.Errorf("ItemSize = %d, want %d", got, want)
	}
}
