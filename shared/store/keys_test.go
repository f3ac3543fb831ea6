package store

import (
	"math"
	"sort"
	"testing"
)

func TestSortKeysOrderNumerically(t *testing.T) {
	t.Parallel()
	nums := []int64{0, 1, 9, 10, 99, 100, 12345, math.MaxInt64}
	for i := 1; i < len(nums); i++ {
		if !(pad(nums[i-1]) < pad(nums[i])) {
			t.Errorf("pad(%d) >= pad(%d)", nums[i-1], nums[i])
		}
	}
	scores := []int64{math.MaxInt64, 1000, 10, 1, 0, -1, -10, math.MinInt64}
	for i := 1; i < len(scores); i++ {
		if !(descending(scores[i-1]) < descending(scores[i])) {
			t.Errorf("descending(%d) >= descending(%d): %s %s", scores[i-1], scores[i], descending(scores[i-1]), descending(scores[i]))
		}
	}
}

func TestCatalogOrder(t *testing.T) {
	t.Parallel()
	type tpl struct{ score, id int64 }
	in := []tpl{{10, 3}, {980, 7}, {10, 1}, {-5, 2}, {980, 4}}
	sort.Slice(in, func(i, j int) bool { return CatalogSK(in[i].score, in[i].id) < CatalogSK(in[j].score, in[j].id) })
	want := []tpl{{980, 4}, {980, 7}, {10, 1}, {10, 3}, {-5, 2}}
	for i := range want {
		if in[i] != want[i] {
			t.Fatalf("order %v, want %v", in, want)
		}
	}
}

func TestFolderAndSurveyKeysGroup(t *testing.T) {
	t.Parallel()
	// A folder's surveys sort right after it and before the next folder, so
	// one begins_with on the folder's key reads the folder and its surveys.
	f1, f2 := FolderOwnerSK(5), FolderOwnerSK(50)
	s := SurveyOwnerSK(5, 999)
	if !(f1 < s && s < f2) {
		t.Errorf("%s < %s < %s does not hold", f1, s, f2)
	}
	if ExpirySK("2026-12-01", 17) >= ExpirySK("2026-12-02", 1) {
		t.Error("expiry keys do not order by date")
	}
	// Ids of one counter shard (congruent mod 16) still spread over every
	// expiry shard.
	seen := map[string]int{}
	for seq := int64(1); seq <= 800; seq++ {
		seen[ExpiryKey(seq*IDShards+5)]++
	}
	if len(seen) != ExpiryShards {
		t.Errorf("ids of one counter shard fall in %d expiry shards, want %d: %v", len(seen), ExpiryShards, seen)
	}
	for k, n := range seen {
		if n < 50 || n > 150 {
			t.Errorf("expiry shard %s holds %d of 800", k, n)
		}
	}
}
