package store

import (
	"math"
	"net/netip"
	"sort"
	"strings"
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

func TestGuessClientKeys(t *testing.T) {
	t.Parallel()
	same := [][2]string{
		{"192.0.2.7", "::ffff:192.0.2.7"},                       // IPv4, and mapped into IPv6
		{"2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff"}, // one /64
		{"fe80::1%eth0", "fe80::2"},                             // zones do not make clients
		{"", "not an address"},                                  // "unknown": one shared count
	}
	for _, p := range same {
		if a, b := GuessClientSK(60, p[0]), GuessClientSK(60, p[1]); a != b {
			t.Errorf("%q and %q are one client, keys %q and %q", p[0], p[1], a, b)
		}
	}
	differ := [][2]string{
		{"192.0.2.7", "192.0.2.8"},
		{"2001:db8:1:2::1", "2001:db8:1:3::1"},
		{"192.0.2.7", ""},
	}
	for _, p := range differ {
		if a, b := GuessClientSK(60, p[0]), GuessClientSK(60, p[1]); a == b {
			t.Errorf("%q and %q are two clients, one key %q", p[0], p[1], a)
		}
	}
	if GuessClientSK(60, "192.0.2.7") == GuessClientSK(120, "192.0.2.7") {
		t.Error("two windows share a key")
	}
	if w := GuessWindowSK(60); !strings.HasPrefix(GuessClientSK(60, "192.0.2.7"), w+"#") {
		t.Errorf("client key %q is not under its window %q", GuessClientSK(60, "192.0.2.7"), w)
	}
}

// FuzzClientKey: any RemoteAddr gives a key part that cannot reach into
// another key (no '#') and names an address, a /64 or "unknown".
func FuzzClientKey(f *testing.F) {
	for _, s := range []string{"192.0.2.7", "2001:db8::1", "::ffff:10.0.0.1", "fe80::1%eth0", "", "#", "1.2.3.4#x", "[::1]:80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ip string) {
		k := clientKey(ip)
		if strings.Contains(k, "#") {
			t.Fatalf("clientKey(%q) = %q holds '#'", ip, k)
		}
		if _, err := netip.ParseAddr(k); err != nil && k != "unknown" {
			if p, err := netip.ParsePrefix(k); err != nil || p.Bits() != 64 {
				t.Fatalf("clientKey(%q) = %q is no address, /64 or unknown", ip, k)
			}
		}
	})
}
