package store

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestTallyParts: a record naming more attributes than one write can carry
// is cut into ordered parts that add up to it, transactions take parts
// while every aggregate shard's update stays within its bound, and a
// checkpoint from before parts (a whole record) passes over every part of
// its record and none of the next.
func TestTallyParts(t *testing.T) {
	t.Parallel()
	var attrs []string
	for c := range 1000 {
		attrs = append(attrs, ChoiceCount(7, int64(c)), RankSum(9, int64(c), 3))
	}
	parts := tallyParts(TallyRecord{Seq: "42", ReportAttrs: attrs, Spam: true})
	if len(parts) < 2 || parts[0].responses != 1 || parts[0].spam != 1 {
		t.Fatalf("%d parts, first %+v; want several, one response and one spam", len(parts), parts[0].key)
	}
	sum := map[string]int64{}
	for i, p := range parts {
		cost := 0
		for a := range p.attrs {
			cost += attrCost(a)
		}
		if cost > tallyUpdateBytes || len(p.attrs) == 0 || (i > 0 && (p.key <= parts[i-1].key || p.responses != 0)) {
			t.Errorf("part %d: %s with %d attributes (%d bytes), %d responses", i, p.key, len(p.attrs), cost, p.responses)
		}
		for a, n := range p.attrs {
			sum[a] += n
		}
	}
	if len(sum) != 2001 || sum["n"] != 1 || sum[ChoiceCount(7, 5)] != 1 || sum["rs_9_5"] != 3 {
		t.Errorf("parts add %d attributes (n %d, rs_9_5 %d)", len(sum), sum["n"], sum["rs_9_5"])
	}
	for rest := parts; len(rest) > 0; {
		n := tallyChunk(rest)
		per := map[int]int{}
		seen := map[string]bool{}
		for _, p := range rest[:n] {
			for a := range p.attrs {
				if !seen[a] {
					seen[a] = true
					per[attrShard(a)] += attrCost(a)
				}
			}
		}
		for sh, k := range per {
			if k > tallyUpdateBytes {
				t.Errorf("a transaction's update of shard %d is %d bytes", sh, k)
			}
		}
		rest = rest[n:]
	}
	legacy := checkpointKey(seqKey("42"))
	if !(legacy >= parts[len(parts)-1].key && legacy < partKey("43", 0)) {
		t.Errorf("a checkpoint of record 42 (%s) does not sit between its parts and record 43's", legacy)
	}
	if got := tallyParts(TallyRecord{Seq: "43", Change: TallyModify, ReportAttrs: attrs[:2], OldReportAttrs: attrs[:2]}); got != nil {
		t.Errorf("an edit that moves nothing: %d parts", len(got))
	}
	if got := tallyParts(TallyRecord{Seq: "44", Change: TallyRemove, ReportAttrs: []string{"c_1_2", "bad name", "rs_1_2:x"}}); len(got) != 1 ||
		got[0].responses != -1 || fmt.Sprint(got[0].attrs) != "map[c_1_2:-1 n:-1]" {
		t.Errorf("a removal: %+v", got)
	}
}

// FuzzReportAttr: any string of a stream image's agg set is read without
// a panic; what is accepted is a well-formed name with a positive weight,
// which an aggregate takes.
func FuzzReportAttr(f *testing.F) {
	for _, s := range []string{"c_1_2", "rs_5_1:3", "m_1_2_3", "rn_1_2", "n", "x:", ":1", "rs_1_1:999999", "m_1__2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, w, ok := ReportAttr(s)
		if !ok {
			return
		}
		if name == "" || w < 1 || w >= 1_000_000 {
			t.Fatalf("ReportAttr(%q) = %q, %d", s, name, w)
		}
		a := newAggregate()
		a.add(name, w)
	})
}

// TestTallyCheckpointValues: an item's checkpoint value compares, byte by
// byte, as the part keys it stands for do (sequence numbers of any length
// up to 40 digits, then the part), and its name carries the hour a
// DynamoDB stream shard was created (from its id), by which it is pruned,
// and none for an id of another form (never pruned).
func TestTallyCheckpointValues(t *testing.T) {
	t.Parallel()
	keys := []string{partKey("9", 0), partKey("9", 1), partKey("10", 0), partKey("4421584500000000017450439091", 0),
		partKey("4421584500000000017450439091", 3), partKey("4421584500000000017450439092", 0), partKey(strings.Repeat("9", 40), 9999)}
	for i := 1; i < len(keys); i++ {
		a, b := tallyCheckpointValue(keys[i-1]), tallyCheckpointValue(keys[i])
		if len(a) != 19 || bytes.Compare(a, b) >= 0 {
			t.Errorf("%s (%x) does not sort before %s (%x)", keys[i-1], a, keys[i], b)
		}
	}
	for _, c := range []struct {
		id   string
		hour int64
	}{
		{"shardId-00000001536019433161-8d1e3e6d", 1536019433161 / 3_600_000},
		{"shardId-0000000153601943316-8d1e3e6d", 0},
		{"sim-low-7", 0},
		{"shardId-0000000153601943316x-8d1e3e6d", 0},
	} {
		if got := tallyShardHour(c.id); got != c.hour {
			t.Errorf("tallyShardHour(%q) = %d, want %d", c.id, got, c.hour)
		}
		name := tallyCheckpoint(c.id)
		if len(name) != len(tallyCheckpointPrefix)+14 || name[len(tallyCheckpointPrefix):len(tallyCheckpointPrefix)+6] != fmt.Sprintf("%06x", c.hour) {
			t.Errorf("tallyCheckpoint(%q) = %q", c.id, name)
		}
	}
	if tallyCheckpoint("shardId-00000001536019433161-8d1e3e6d") == tallyCheckpoint("shardId-00000001536019433161-8d1e3e6e") {
		t.Error("two shards of the same hour share a checkpoint")
	}
}
