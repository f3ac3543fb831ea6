package store

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/guregu/dynamo/v2"
)

const (
	codePagesSK       = "PAGES"
	codePagePrefix    = "PAGES#"
	codePageFanDepth  = 3
	codePageMaxDepth  = 16
	codePageTerminal  = "t"
	codePageChildAttr = "x"
)

// codePageNodeSK is node p's item of count shard n.
func codePageNodeSK(p string, shard int) string {
	return codePagePrefix + hex.EncodeToString([]byte(p)) + fmt.Sprintf("#%d", shard)
}

// codePageAttr is the attribute of node p that counts codes continuing
// with byte b, or ending at p (b < 0).
func codePageAttr(b int) string {
	if b < 0 {
		return codePageTerminal
	}
	return fmt.Sprintf("%s%02x", codePageChildAttr, b)
}

// codePageDepth is D for a survey whose first codes are these.
func codePageDepth(codes []string) int {
	if len(codes) == 0 {
		return 0
	}
	lcp := codes[0]
	for _, c := range codes[1:] {
		n := 0
		for n < len(lcp) && n < len(c) && lcp[n] == c[n] {
			n++
		}
		lcp = lcp[:n]
	}
	return min(len(lcp)+codePageFanDepth, codePageMaxDepth)
}

// codeNodes are the nodes (prefixes, the root "" excluded) a code is
// counted in, with the attribute each.
//
// A prefix is a node below depth, and also past it while it ends inside a
// character (UTF-8): a leaf is where the reader starts a Query, and a key
// condition is a string, whole characters only.
func codeNodes(code string, depth int, visit func(prefix, attr string)) {
	for d := 0; d <= len(code) && (d < depth || !utf8.ValidString(code[:d])); d++ {
		b := -1
		if d < len(code) {
			b = int(code[d])
		}
		visit(code[:d], codePageAttr(b))
	}
}

// codePackLimit is the items a transaction of codes may touch: DynamoDB's
// 100 actions, less the count shard.
const codePackLimit = codeTxCodes

// packCodes is how many of codes (in byte order) one transaction takes:
// as many as fit with the nodes of their prefixes in codePackLimit items.
func packCodes(codes []string, depth int) int {
	nodes := map[string]bool{}
	for i, c := range codes {
		codeNodes(c, depth, func(p, _ string) {
			if p != "" {
				nodes[p] = true
			}
		})
		if i+1+len(nodes) > codePackLimit {
			return max(i, 1)
		}
	}
	return len(codes)
}

// codePageMeta is CODES#<sid> / PAGES: the survey's trie depth.
type codePageMeta struct {
	PK    string `dynamo:"PK"`
	SK    string `dynamo:"SK"`
	Depth int    `dynamo:"depth"`
	// Marks: the index was backfilled (codepages_backfill.go): it counts
	// the codes that carry the mark, and is whole when they all do.
	Marks bool `dynamo:"marks,omitempty"`
	// Since: when a backfill created the meta (RFC 3339): writers that
	// read no index before then may commit until Since + codeWriterLifetime.
	Since string `dynamo:"since,omitempty"`
}

// codeIndex is what a writer knows of a survey's code page index.
type codeIndex struct {
	depth int  // -1: no meta item; 0: not indexed
	marks bool // backfilled: a code is counted exactly when it is marked
}

// newCodePageDepth fixes the depth of the index of a survey that has
// none (codeCount read no meta item): from codes when the survey has no
// codes (count == 0), else 0 (its codes predate the index: not indexed).
// Of two first uploads at once, one creates it and the other reads it.
func (s *Store) newCodePageDepth(ctx context.Context, l itemList, sid int64, count int64, codes []string) (codeIndex, error) {
	if count > 0 || len(codes) == 0 {
		return codeIndex{}, nil
	}
	sorted := append([]string(nil), codes...)
	sort.Strings(sorted)
	m := codePageMeta{PK: l.pk(sid), SK: codePagesSK, Depth: codePageDepth(sorted)}
	err := s.table.Put(m).If("attribute_not_exists(PK)").Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		err = s.table.Get(AttrPK, l.pk(sid)).Range(AttrSK, dynamo.Equal, codePagesSK).Consistent(true).One(ctx, &m)
	}
	if err != nil {
		return codeIndex{}, s.fail(fmt.Sprintf("create the %s index of survey %d", l.name, sid), err)
	}
	return codeIndex{depth: m.Depth, marks: m.Marks}, nil
}

// codeShard is where codes are indexed: a survey's count shard, in an
// index of depth levels (0: no index).
type codeShard struct {
	list         itemList
	sid          int64
	shard, depth int
}

// indexCodes adds to tx the index's changes for codes written (add) or
// deleted in count shard at.shard; root is the count shard's update,
// which takes the root's counts.
func (s *Store) indexCodes(tx *dynamo.WriteTx, root *dynamo.Update, at codeShard, codes []string, add bool) {
	sid, shard, depth := at.sid, at.shard, at.depth
	if depth == 0 {
		return
	}
	delta := 1
	if !add {
		delta = -1
	}
	nodes := map[string]map[string]int{}
	var order []string
	for _, c := range codes {
		codeNodes(c, depth, func(p, attr string) {
			if nodes[p] == nil {
				nodes[p] = map[string]int{}
				order = append(order, p)
			}
			nodes[p][attr] += delta
		})
	}
	for _, p := range order {
		up := root
		if p != "" {
			up = s.table.Update(AttrPK, at.list.pk(sid)).Range(AttrSK, codePageNodeSK(p, shard))
		}
		attrs := make([]string, 0, len(nodes[p]))
		for a := range nodes[p] {
			attrs = append(attrs, a)
		}
		sort.Strings(attrs)
		for _, a := range attrs {
			up.Add(a, nodes[p][a])
		}
		if p != "" {
			tx.Update(up)
		}
	}
}

// codeNodeCounts sums the counts of items (a node's, over the shards).
func codeNodeCounts(items []dynamo.Item, into map[string]int64) {
	for _, item := range items {
		for name, v := range item {
			if name != codePageTerminal && !(len(name) == 3 && strings.HasPrefix(name, codePageChildAttr)) {
				continue
			}
			var n int64
			if err := dynamo.Unmarshal(v, &n); err == nil {
				into[name] += n
			}
		}
	}
}

// codePageStart finds where the code of rank r (0-based, byte order)
// starts: a prefix from which to read and how many codes to pass over
// there, and the items it read. ok is false when the index cannot answer
// (not indexed, or out of step with the count): the caller reads as
// before.
//
// The index is a trie of counts over the codes' bytes, kept exact by the
// transactions that write the codes:
// docs/data-model.md#the-codes-page-index.
func (s *Store) codePageStart(ctx context.Context, l itemList, sid int64, r int64) (from string, skip int64, read int, ok bool, err error) {
	keys := []dynamo.Keyed{dynamo.Keys{l.pk(sid), codePagesSK}}
	if l.legacyCount {
		keys = append(keys, dynamo.Keys{SurveyPK(sid), settingsSK})
	}
	for i := range CodeCountShards {
		keys = append(keys, dynamo.Keys{l.pk(sid), CodeCountSK(i)})
	}
	var items []dynamo.Item
	err = s.table.Batch(AttrPK, AttrSK).Get(keys...).Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return "", 0, 0, false, s.fail(fmt.Sprintf("read the %s index of survey %d", l.name, sid), err)
	}
	read = len(items)
	depth, total := 0, int64(0)
	var shards []dynamo.Item
	for _, item := range items {
		switch skOf(item) {
		case codePagesSK:
			var m codePageMeta
			if err := dynamo.UnmarshalItem(item, &m); err != nil {
				return "", 0, read, false, fmt.Errorf("store: decode code index: %w", err)
			}
			depth = m.Depth
		default:
			var c countItem
			if err := dynamo.UnmarshalItem(item, &c); err != nil {
				return "", 0, read, false, fmt.Errorf("store: decode code count: %w", err)
			}
			total += c.Count
			if strings.HasPrefix(skOf(item), "COUNT#") { // not the settings item (the count before the shards)
				shards = append(shards, item)
			}
		}
	}
	counts := map[string]int64{}
	codeNodeCounts(shards, counts)
	var indexed int64
	for _, n := range counts {
		indexed += n
	}
	if depth == 0 || indexed != total {
		return "", 0, read, false, nil
	}
	prefix := ""
	for d := 0; ; d++ {
		if t := counts[codePageTerminal]; r < t {
			return prefix, 0, read, true, nil // the code is the prefix itself
		} else {
			r -= t
		}
		next := -1
		for b := range 256 {
			n := counts[codePageAttr(b)]
			if r < n {
				next = b
				break
			}
			r -= n
		}
		if next < 0 {
			return "", 0, read, false, nil // past the end, or a write between two reads
		}
		prefix += string([]byte{byte(next)})
		if d+1 >= depth && utf8.ValidString(prefix) {
			return prefix, r, read, true, nil // a leaf: read on from its first code
		}
		var node []dynamo.Item
		err := s.table.Get(AttrPK, l.pk(sid)).Range(AttrSK, dynamo.BeginsWith, codePagePrefix+hex.EncodeToString([]byte(prefix))+"#").
			Consistent(true).All(ctx, &node)
		if err != nil {
			return "", 0, read, false, s.fail(fmt.Sprintf("read the %s index of survey %d", l.name, sid), err)
		}
		read += len(node)
		counts = map[string]int64{}
		codeNodeCounts(node, counts)
	}
}
