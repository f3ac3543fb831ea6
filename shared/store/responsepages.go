package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

const (
	responsePagesMargin = time.Minute
	rpagesNodePrefix    = "N#"
	rpagesMetaSK        = "META"
	rpagesCheckpoint    = "CP#"
)

// ResponsePagesMetaSK is the SK of a survey's page index marks item
// (under ResponsePagesPK): its shards' marks and its backfill's bound.
const ResponsePagesMetaSK = rpagesMetaSK

// ResponsePagesPK is the partition of a survey's responses' page index.
func ResponsePagesPK(sid int64) string { return "RPAGES#" + pad(sid) }

// rpagesCuts are the lengths of the timestamp prefixes of the levels: the
// root, month, day, hour, minute; and the leaves, seconds.
var rpagesCuts = [...]int{0, 7, 10, 13, 16, 19}

// rpagesChildAttr is the attribute of a node (level i) that counts child c.
func rpagesChildAttr(level int, child string) string {
	seg := child[rpagesCuts[level]:rpagesCuts[level+1]]
	var b strings.Builder
	b.WriteByte('c')
	for i := range len(seg) {
		if c := seg[i]; c >= '0' && c <= '9' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// rpagesChild is the child prefix an attribute of node parent (level i)
// names; ok false for other attributes.
func rpagesChild(level int, parent, attr string) (string, bool) {
	if len(attr) < 2 || attr[0] != 'c' {
		return "", false
	}
	d := attr[1:]
	for i := range len(d) {
		if d[i] < '0' || d[i] > '9' {
			return "", false
		}
	}
	switch level {
	case 0:
		if len(d) != 6 {
			return "", false
		}
		return d[:4] + "-" + d[4:], true
	case 1:
		return parent + "-" + d, len(d) == 2
	case 2:
		return parent + "T" + d, len(d) == 2
	default:
		return parent + ":" + d, len(d) == 2
	}
}

// rpagesNodes visits the nodes a response key is counted in, with the
// attribute each.
func rpagesNodes(key string, visit func(node, attr string)) {
	if len(key) < rpagesCuts[len(rpagesCuts)-1] {
		return
	}
	for level := 0; level+1 < len(rpagesCuts); level++ {
		child := key[:rpagesCuts[level+1]]
		visit(key[:rpagesCuts[level]], rpagesChildAttr(level, child))
	}
}

// responsePageUpdates adds delta to the nodes of each key, one Update a
// node: to the minute leaf alone for a key at or above leafFrom ("" none).
func (s *Store) responsePageUpdates(sid int64, keys []string, delta int, leafFrom string) []*dynamo.Update {
	counts := map[string]map[string]int{}
	var order []string
	for _, k := range keys {
		rpagesNodes(k, func(node, attr string) {
			if leafFrom != "" && k >= leafFrom && len(node) != rpagesLeafLen {
				return
			}
			if counts[node] == nil {
				counts[node] = map[string]int{}
				order = append(order, node)
			}
			counts[node][attr] += delta
		})
	}
	out := make([]*dynamo.Update, 0, len(order))
	for _, node := range order {
		up := s.table.Update(AttrPK, ResponsePagesPK(sid)).Range(AttrSK, rpagesNodePrefix+node)
		attrs := make([]string, 0, len(counts[node]))
		for a := range counts[node] {
			attrs = append(attrs, a)
		}
		sort.Strings(attrs)
		for _, a := range attrs {
			up.Add(a, counts[node][a])
		}
		out = append(out, up)
	}
	return out
}

// ResponsePageRecord is a submitted response as the stream gives it.
type ResponsePageRecord struct {
	// Seq is the record's sequence number in its stream shard.
	Seq string
	// Shard is the response shard; Key its GSI1SK.
	Shard int
	Key   string
}

// rpagesTxNodes bounds the nodes one transaction of ApplyResponsePages
// writes (with the marks: under DynamoDB's 100).
const rpagesTxNodes = 90

// ApplyResponsePages adds one stream shard's records of a survey's new
// responses to its page index, exactly once, and answers how many it
// added. Records in the shard's order.
//
// The stream shard's checkpoint is an attribute of the index's marks item
// (META, tallyCheckpoint), which every write of the index changes anyway,
// not an item of its own. Until the survey's backfill is complete (its
// bound set and finished; responsepages_backfill.go) a batch is one
// transaction of its nodes and the marks, conditional on the checkpoint
// and on no bound above its keys; once it is, the bound never moves and a
// key at or above it is the tally's for good, so each node is one
// conditional UpdateItem carrying its own checkpoint (tallyItem), the
// marks last: half the units. Above the switch point (u0) that node is the
// minute leaf alone, and whole hours are rolled up after the pass
// (responsepages_rollup.go). Checkpoint items of the earlier design
// (CP#<shard>) are still read, and what they passed is passed over.
//
// The index counts responses by submission time in a tree of calendar
// units; why it is exact although it lags:
// docs/data-model.md#the-responses-page-index.
func (s *Store) ApplyResponsePages(ctx context.Context, sid int64, streamShard string, recs []ResponsePageRecord) (int, error) {
	added := 0
	name := tallyCheckpoint(streamShard)
	for attempt := 1; ; attempt++ {
		meta, roll, legacy, err := s.readResponsePagesPass(ctx, sid, streamShard)
		if err != nil {
			return added, err
		}
		prev, _ := meta[name].([]byte)
		bound, _ := meta[rpagesBound].(string)
		complete := bound != "" && meta[rpagesBoundDone] == bound
		born := complete && meta[rpagesBorn] == bound
		var todo []ResponsePageRecord
		for _, r := range recs {
			k := seqKey(r.Seq)
			if k > legacy && (prev == nil || bytes.Compare(tallyCheckpointValue(partKey(r.Seq, 0)), prev) > 0) &&
				len(r.Key) >= rpagesCuts[len(rpagesCuts)-1] && r.Key >= bound {
				todo = append(todo, r)
			}
		}
		if complete {
			n := 0
			if len(todo) > 0 {
				if roll.switchAt == "" {
					if roll.switchAt, err = s.responsePagesSwitch(ctx, sid, todo); err != nil {
						return added, err
					}
				}
				if n, err = s.applyResponsePagesByItem(ctx, sid, streamShard, todo, born, roll.switchAt, textAttrs(meta)); err != nil {
					return added, s.fail(fmt.Sprintf("index %d responses of survey %d", len(todo), sid), err)
				}
			}
			// The marks as read (this pass's are the next pass's): every
			// record below their range's top is applied.
			return added + n, s.rollUpResponsePages(ctx, sid, textAttrs(meta), roll)
		}
		if len(todo) == 0 {
			return added, nil
		}
		// As many records as fit in one transaction; the rest after it.
		n, nodes := 0, map[string]bool{}
		for n < len(todo) {
			fresh := 0
			rpagesNodes(todo[n].Key, func(node, _ string) {
				if !nodes[node] {
					fresh++
				}
			})
			if len(nodes)+fresh > rpagesTxNodes {
				break
			}
			rpagesNodes(todo[n].Key, func(node, _ string) { nodes[node] = true })
			n++
		}
		batch := todo[:n]
		keys := make([]string, len(batch))
		low, high := responsePageSpan(batch)
		lowest := batch[0].Key
		for i, r := range batch {
			keys[i] = r.Key
			lowest = min(lowest, r.Key)
		}
		tx := s.db.WriteTx()
		for _, up := range s.responsePageUpdates(sid, keys, 1, "") {
			tx.Update(up)
		}
		// Not below a backfill's bound, set since it was read (if ever),
		// and the checkpoint as read.
		marks := s.responsePageMarks(sid, low, high).Set(name, tallyCheckpointValue(partKey(batch[n-1].Seq, 0))).
			If("attribute_not_exists($) OR $ <= ?", rpagesBound, rpagesBound, lowest).
			If("attribute_not_exists($)", rpagesSwitch) // not switched since (rollUpResponsePages)
		if prev == nil {
			marks.If("attribute_not_exists($)", name)
		} else {
			marks.If("$ = ?", name, prev)
		}
		tx.Update(marks)
		err = tx.Run(ctx)
		switch {
		case err == nil && n == len(todo):
			return added + len(batch), nil
		case err == nil:
			added += len(batch)
			attempt = 0 // the next part starts afresh
		case attempt == tallyAttempts:
			return added, s.fail(fmt.Sprintf("index %d responses of survey %d", len(batch), sid), err)
		case dynamo.IsCondCheckFailed(err), txConflict(err):
			// The checkpoint moved, or a backfill set its bound: both
			// are read again.
			if err := backoff(ctx, attempt); err != nil {
				return added, err
			}
		default:
			return added, s.fail(fmt.Sprintf("index %d responses of survey %d", len(batch), sid), err)
		}
	}
}

// responsePageSpan is the lowest and highest key of each response shard
// among recs.
func responsePageSpan(recs []ResponsePageRecord) (low, high map[int]string) {
	low, high = map[int]string{}, map[int]string{}
	for _, r := range recs {
		if r.Key > high[r.Shard] {
			high[r.Shard] = r.Key
		}
		if l, ok := low[r.Shard]; !ok || r.Key < l {
			low[r.Shard] = r.Key
		}
	}
	return low, high
}

// applyResponsePagesByItem adds recs (all at or above a finished
// backfill's bound, past the marks' checkpoint) to the index: each node
// (the minute leaf alone for a key at or above the switch point: the
// roll-up adds it to the others) one conditional UpdateItem with its own
// checkpoint, then the marks with
// theirs, so that a record the marks' checkpoint has passed is in every
// node. It answers how many records it applied (that the marks took, or
// the leaves of a pass that writes no other node). An index born with
// its survey (newResponsePagesMeta) needs no first keys (f<k>): they are
// left out, so that the marks item stays under 1 KB.
//
// A pass of such an index whose keys are all the leaves' (at or above
// the switch point) writes the marks item only when a shard's mark less
// the margin enters a new hour (marksEnterAnHour; meta is the marks as
// read): the roll-up reads no more of them, it moves whole hours. Else
// its marks go on the leaf of its highest key, written after its other
// leaves (so that every record of the pass is applied when they are),
// where the reader takes them (raiseMarksFromLeaves). At one response a
// minute that is 1 write unit a pass where it was 2.
func (s *Store) applyResponsePagesByItem(ctx context.Context, sid int64, streamShard string, recs []ResponsePageRecord, born bool, switchAt string, meta map[string]string) (int, error) {
	nodes := map[string]*tallyItem{}
	var order []string
	leafOnly := born && switchAt != ""
	top := ""
	for _, r := range recs {
		key := partKey(r.Seq, 0)
		leafOnly = leafOnly && r.Key >= switchAt
		top = max(top, r.Key)
		rpagesNodes(r.Key, func(node, attr string) {
			if r.Key >= switchAt && len(node) != rpagesLeafLen {
				return // the roll-up's above the leaf
			}
			it := nodes[node]
			if it == nil {
				it = &tallyItem{pk: ResponsePagesPK(sid), sk: rpagesNodePrefix + node}
				nodes[node] = it
				order = append(order, node)
			}
			if n := len(it.parts); n > 0 && it.parts[n-1].key == key {
				it.parts[n-1].attrs[attr]++
				return
			}
			it.parts = append(it.parts, tallyPart{key: key, attrs: map[string]int64{attr: 1}})
		})
	}
	_, high := responsePageSpan(recs)
	onLeaf := leafOnly && !marksEnterAnHour(meta, high)
	carrier := ""
	if onLeaf {
		// The leaf of the highest key, last: a mark on a leaf is then
		// under the leaf's next minute, so a reader finds every mark above
		// a time on the leaves from that time's minute on.
		carrier = top[:rpagesLeafLen]
		order = append(slices.DeleteFunc(order, func(n string) bool { return n == carrier }), carrier)
	}
	// A node's update names one attribute a child: a minute's 60 seconds
	// at most, well within an update's bound.
	whole := func(p []tallyPart) int { return len(p) }
	applied := 0
	for _, node := range order {
		build := tallyShardUpdate
		if node == carrier {
			build = func(up *dynamo.Update, ps []tallyPart) {
				tallyShardUpdate(up, ps)
				s.addResponsePageMarks(up, nil, high)
			}
		}
		keys, err := s.tallyItem(ctx, streamShard, nodes[node], build, whole)
		if err != nil {
			return 0, err
		}
		applied += len(keys)
	}
	if onLeaf {
		return applied, nil // a key is in its leaf alone: counted once
	}
	marks := &tallyItem{pk: ResponsePagesPK(sid), sk: rpagesMetaSK}
	for _, r := range recs {
		marks.parts = append(marks.parts, tallyPart{key: partKey(r.Seq, 0)})
	}
	byKey := map[string]ResponsePageRecord{}
	for _, r := range recs {
		byKey[partKey(r.Seq, 0)] = r
	}
	keys, err := s.tallyItem(ctx, streamShard, marks, func(up *dynamo.Update, ps []tallyPart) {
		batch := make([]ResponsePageRecord, len(ps))
		for i, p := range ps {
			batch[i] = byKey[p.key]
		}
		low, high := responsePageSpan(batch)
		if born {
			low = nil
		}
		s.addResponsePageMarks(up, low, high)
	}, whole)
	if leafOnly {
		// The marks item's checkpoint stays behind while passes leave
		// their marks on the leaves: it takes their records again.
		return applied, err
	}
	return len(keys), err
}

// marksEnterAnHour tells whether any shard's mark in high, less the
// margin, is in a later hour than its mark in meta (as read; the bound
// for a shard without one, as responsePageRange reads it), less the
// margin: whether the roll-up's reading of the marks item would change.
func marksEnterAnHour(meta map[string]string, high map[int]string) bool {
	hour := func(mark string) string {
		t, err := time.Parse(survey.TimestampLayout, responsePageMark(mark))
		if err != nil {
			return ""
		}
		return t.Add(-responsePagesMargin).Truncate(time.Hour).Format(survey.TimestampLayout)
	}
	for k, h := range high {
		if hour(h) > hour(bornMark(meta, k)) {
			return true
		}
	}
	return false
}

// responsePagesBorn tells whether the marks item meta (its text
// attributes) is of an index born with its survey: its backfill's bound
// set, finished, and the survey's own (newResponsePagesMeta).
func responsePagesBorn(meta map[string]string) bool {
	b := meta[rpagesBound]
	return b != "" && meta[rpagesBoundDone] == b && meta[rpagesBorn] == b
}

// bornMark is shard k's mark in the marks item meta of an index born with
// its survey: its highest key applied, or the bound when it has none (no
// response of it applied, none below the bound less the margin).
func bornMark(meta map[string]string, k int) string {
	if h, ok := meta[fmt.Sprintf("h%d", k)]; ok {
		return h
	}
	return meta[rpagesBound]
}

// raiseMarksFromLeaves raises meta's marks (h<k>, as read) to those the
// tally's passes left on the minute leaves (applyResponsePagesByItem):
// one Query of the leaves from the minute of the lowest mark on (a mark
// above it is on a leaf of its minute or later). It answers the items
// read.
func (s *Store) raiseMarksFromLeaves(ctx context.Context, sid int64, meta map[string]string) (int, error) {
	low := ""
	for k := range ResponseShards {
		if h := responsePageMark(bornMark(meta, k)); low == "" || h < low {
			low = h
		}
	}
	if len(low) < rpagesLeafLen {
		return 0, nil
	}
	var items []map[string]any
	err := s.table.Get(AttrPK, ResponsePagesPK(sid)).Range(AttrSK, dynamo.GreaterOrEqual, rpagesNodePrefix+low[:rpagesLeafLen]).
		Consistent(true).All(ctx, &items)
	if err != nil {
		return 0, s.fail(fmt.Sprintf("read the page index of survey %d", sid), err)
	}
	for _, it := range items {
		for k := range ResponseShards {
			name := fmt.Sprintf("h%d", k)
			if h, ok := it[name].(string); ok && h > responsePageMark(meta[name]) {
				meta[name] = h
			}
		}
	}
	return max(1, len(items)), nil
}

// responsePageMarks sets the marks of the shards: f<k> the first key
// applied (once), h<k> the highest of this write.
func (s *Store) responsePageMarks(sid int64, low, high map[int]string) *dynamo.Update {
	up := s.table.Update(AttrPK, ResponsePagesPK(sid)).Range(AttrSK, rpagesMetaSK)
	s.addResponsePageMarks(up, low, high)
	return up
}

// addResponsePageMarks adds the marks' changes to up (of the marks item).
// A mark is a key's time (responsePageMark): the reader takes no more.
func (s *Store) addResponsePageMarks(up *dynamo.Update, low, high map[int]string) {
	for k, l := range low {
		up.SetExpr("$ = if_not_exists($, ?)", fmt.Sprintf("f%d", k), fmt.Sprintf("f%d", k), responsePageMark(l))
	}
	for k, h := range high {
		up.Set(fmt.Sprintf("h%d", k), responsePageMark(h))
	}
}

// responsePageMark is what a mark keeps of a response key: its time, 27
// bytes of its 48 (the reader reads no more of a mark), so that a
// survey's 16 shards' marks keep the marks item, which every pass of the
// tally writes, under 1 KB (1 write unit, not 2). Marks written whole
// before are read the same.
func responsePageMark(key string) string {
	if len(key) > len(survey.TimestampLayout) {
		return key[:len(survey.TimestampLayout)]
	}
	return key
}

// IndexImportedResponses counts responses written around submissions (an
// import, which the stream's tally passes over) in their survey's page
// index, and raises its marks. It must not race live submissions of the
// same survey.
func (s *Store) IndexImportedResponses(ctx context.Context, rs []survey.Response) error {
	bySurvey := map[int64][]survey.Response{}
	for _, r := range rs {
		bySurvey[r.SurveyID] = append(bySurvey[r.SurveyID], r)
	}
	for sid, rs := range bySurvey {
		meta, roll, err := s.readResponsePageMarks(ctx, sid)
		if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
			return err
		}
		keys := make([]string, len(rs))
		low, high := map[int]string{}, map[int]string{}
		for i, r := range rs {
			keys[i] = ResponseTimeSK(r.SubmittedAt, r.ID)
			k := ResponseShard(r.ID)
			if keys[i] > high[k] && keys[i] > meta[fmt.Sprintf("h%d", k)] {
				high[k] = keys[i]
			}
			if l, ok := low[k]; !ok || keys[i] < l {
				low[k] = keys[i]
			}
		}
		// At or above the roll-up point the leaf alone, as the tally's
		// (no roll-up runs: no pass races an import).
		for _, up := range s.responsePageUpdates(sid, keys, 1, roll.point()) {
			if err := up.Run(ctx); err != nil {
				return s.fail(fmt.Sprintf("index responses of survey %d", sid), err)
			}
		}
		if err := s.responsePageMarks(sid, low, high).Run(ctx); err != nil {
			return s.fail(fmt.Sprintf("index responses of survey %d", sid), err)
		}
	}
	return nil
}

// readResponsePageMarks reads the marks item's text attributes (its
// stream shards' checkpoints, binary, are left out) and the roll-up
// state: one Query. dynamo.ErrNotFound: no marks item.
func (s *Store) readResponsePageMarks(ctx context.Context, sid int64) (map[string]string, rpagesRoll, error) {
	item, roll, err := s.readResponsePagesState(ctx, sid)
	if err != nil {
		return nil, roll, err
	}
	if item == nil {
		return map[string]string{}, roll, dynamo.ErrNotFound
	}
	return textAttrs(item), roll, nil
}

// responsePageBounds reads the index's marks: keys in [from, to) are
// counted exactly (both bare times, whole seconds); below roll's point
// in every level, at or above it in the minute leaves. ok false: no such
// range.
func (s *Store) responsePageBounds(ctx context.Context, sid int64) (from, to string, roll rpagesRoll, ok bool, read int, err error) {
	meta, roll, err := s.readResponsePageMarks(ctx, sid)
	read = 1
	if errors.Is(err, dynamo.ErrNotFound) {
		return "", "", roll, false, read, nil
	}
	if err != nil {
		return "", "", roll, false, read, err
	}
	if roll.switchAt != "" && responsePagesBorn(meta) {
		// Born with its survey: the passes above the switch point leave
		// their marks on the leaves.
		n, err := s.raiseMarksFromLeaves(ctx, sid, meta)
		read += n
		if err != nil {
			return "", "", roll, false, read, err
		}
	}
	from, to, ok = responsePageRange(meta)
	if ok && roll.switchAt != "" {
		read++ // ROLL again, by GetItem
		if err := s.rereadRoll(ctx, sid, &roll); err != nil {
			return "", "", roll, false, read, err
		}
	}
	return from, to, roll, ok, read, nil
}

// responsePageRange is the range of keys the marks count exactly: [from,
// to), both bare times, whole seconds. ok false: no such range.
func responsePageRange(meta map[string]string) (from, to string, ok bool) {
	// A finished backfill (responsepages_backfill.go) counts every key
	// below its bound exactly.
	bound := ""
	if b := meta[rpagesBound]; b != "" && meta[rpagesBoundDone] == b {
		bound = b
	}
	// An index that began with its survey (newResponsePagesMeta) counts
	// every response from the start: no first key (f<k>) bounds it, and a
	// shard that has no highest key yet (h<k>) has had no response applied,
	// so none of it is below the bound less the margin: the bound stands in
	// (bornMark).
	born := responsePagesBorn(meta)
	var first, high time.Time
	marks := true
	for k := range ResponseShards {
		f, fok := meta[fmt.Sprintf("f%d", k)]
		h, hok := meta[fmt.Sprintf("h%d", k)]
		if born {
			f, fok = keyTime(minKeyTime), true
			h, hok = bornMark(meta, k), true
		}
		if !fok || !hok || len(f) < len(survey.TimestampLayout) || len(h) < len(survey.TimestampLayout) {
			marks = false
			break
		}
		ft, err1 := time.Parse(survey.TimestampLayout, f[:len(survey.TimestampLayout)])
		ht, err2 := time.Parse(survey.TimestampLayout, h[:len(survey.TimestampLayout)])
		if err1 != nil || err2 != nil {
			marks = false
			break
		}
		if ft.After(first) {
			first = ft
		}
		if high.IsZero() || ht.Before(high) {
			high = ht
		}
	}
	var lo, hi string
	if marks {
		lo = keyTime(first.Add(responsePagesMargin).Truncate(time.Second).Add(time.Second))
		hi = keyTime(high.Add(-responsePagesMargin).Truncate(time.Second))
	}
	switch {
	case bound != "" && marks && lo <= bound:
		// [start, bound) backfilled, [F, S) the tally's: one range.
		return keyTime(minKeyTime), max(bound, hi), true
	case bound != "":
		return keyTime(minKeyTime), bound, true
	case !marks || lo >= hi:
		return "", "", false
	}
	return lo, hi, true
}

// readResponseNode reads a node's counts, its children in q's order.
func (s *Store) readResponseNode(ctx context.Context, sid int64, level int, node string, ascending bool) ([]string, map[string]int64, error) {
	var item map[string]any
	err := s.table.Get(AttrPK, ResponsePagesPK(sid)).Range(AttrSK, dynamo.Equal, rpagesNodePrefix+node).Consistent(true).One(ctx, &item)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, nil, s.fail(fmt.Sprintf("read the page index of survey %d", sid), err)
	}
	counts := map[string]int64{}
	var children []string
	for attr, v := range item {
		child, ok := rpagesChild(level, node, attr)
		if !ok {
			continue
		}
		var n int64
		switch x := v.(type) {
		case float64:
			n = int64(x)
		case int64:
			n = x
		case int:
			n = int64(x)
		default:
			continue
		}
		if n != 0 {
			counts[child] = n
			children = append(children, child)
		}
	}
	sort.Strings(children)
	if !ascending {
		for i, j := 0, len(children)-1; i < j; i, j = i+1, j-1 {
			children[i], children[j] = children[j], children[i]
		}
	}
	return children, counts, nil
}

// skipIndexed is SkipResponses through the page index: the position of
// the n-th response of q (n >= 1) and the items read; ok false when the
// index cannot answer (the caller reads the old way).
func (s *Store) skipIndexed(ctx context.Context, sid int64, q ResponseQuery, n int) (pos *ResponsePosition, read int, ok bool, err error) {
	pos, read, ok, _, err = s.skipIndexedCounting(ctx, sid, q, n)
	return pos, read, ok, err
}

// skipIndexedCounting is skipIndexed that also answers, when there are
// fewer than n, how many there are (passed).
func (s *Store) skipIndexedCounting(ctx context.Context, sid int64, q ResponseQuery, n int) (pos *ResponsePosition, read int, ok bool, passed int, err error) {
	if q.Spam != nil {
		return nil, 0, false, 0, nil
	}
	from, to, roll, ok, read, err := s.responsePageBounds(ctx, sid)
	if err != nil || !ok {
		return nil, read, false, 0, err
	}
	lo, hi, any := responseKeyRange(q)
	if !any {
		return nil, read, true, 0, nil
	}
	// The three regions in q's order: before F and after S read exactly,
	// [F, S) through the counts. Bounds are inclusive; no key equals a
	// bare time or ends in "\x00", so those bounds are exclusive in effect.
	exactLow := ResponseQuery{keyLo: lo, keyHi: from, Ascending: q.Ascending}
	counted := [2]string{max(lo, from), to}
	if hi != "" && hi+"\x00" < counted[1] {
		counted[1] = hi + "\x00"
	}
	exactHigh := ResponseQuery{keyLo: max(lo, to), keyHi: hi, Ascending: q.Ascending}
	if hi == "" {
		exactHigh.keyHi = "~"
	}
	if exactLow.keyLo == "" {
		exactLow.keyLo = " "
	}
	m := n - 1 // the 0-based index of the response wanted
	exact := func(r ResponseQuery) (bool, error) {
		if r.keyLo > r.keyHi {
			return false, nil
		}
		p, scanned, err := s.skipExact(ctx, sid, r, m+1)
		read += scanned
		if err != nil || p.pos != nil {
			pos = p.pos
			return pos != nil, err
		}
		m -= p.passed
		return false, nil
	}
	// The counted region: below the roll-up point through the tree, at
	// or above it through the minute leaves (responsepages_rollup.go).
	split := counted[1]
	if p := roll.point(); p != "" {
		split = min(max(p, counted[0]), counted[1])
	}
	stale := false
	regions := []func() (bool, error){
		func() (bool, error) { return exact(exactLow) },
		func() (bool, error) {
			if counted[0] >= split {
				return false, nil
			}
			w := countedWalk{sid: sid, ascending: q.Ascending, a: counted[0], b: split, m: &m, read: &read, pos: &pos}
			return s.locateCounted(ctx, w, 0, "")
		},
		func() (bool, error) {
			if split >= counted[1] {
				return false, nil
			}
			w := countedWalk{sid: sid, ascending: q.Ascending, a: split, b: counted[1], m: &m, read: &read, pos: &pos}
			found, moved, err := s.locateFlat(ctx, w, roll)
			stale = moved
			return found || moved, err
		},
		func() (bool, error) { return exact(exactHigh) },
	}
	if !q.Ascending {
		slices.Reverse(regions)
	}
	for _, region := range regions {
		found, err := region()
		if err != nil {
			return nil, read, true, 0, err
		}
		if stale {
			return nil, read, false, 0, nil // a roll-up under the read: the old way
		}
		if found {
			return pos, read, true, 0, nil
		}
	}
	return nil, read, true, n - 1 - m, nil // fewer than n
}

// skipped is what skipExact passed over: the position of the n-th, or how
// many there were (fewer than n).
type skipped struct {
	pos    *ResponsePosition
	passed int
}

// skipExact passes over up to n responses of q (keys only).
func (s *Store) skipExact(ctx context.Context, sid int64, q ResponseQuery, n int) (skipped, int, error) {
	var out skipped
	scanned := 0
	for n > 0 {
		keys, more, read, err := s.mergedResponses(ctx, sid, q, min(n, skipChunk), "id", "submitted_at")
		scanned += read
		if err != nil {
			return out, scanned, err
		}
		if len(keys) == 0 {
			return out, scanned, nil
		}
		k := keys[min(n, len(keys))-1]
		at, err := time.Parse(survey.TimestampLayout, k.Submitted)
		if err != nil {
			return out, scanned, fmt.Errorf("store: response %d: submitted_at: %w", k.ID, err)
		}
		last := &ResponsePosition{SubmittedAt: at, ID: k.ID}
		if len(keys) >= n {
			out.pos = last
			return out, scanned, nil
		}
		out.passed += len(keys)
		n -= len(keys)
		if !more {
			return out, scanned, nil
		}
		q.From = last
	}
	return out, scanned, nil
}

// countedWalk is one search of the counted tree: the survey, the order,
// the keys [a, b) searched, and what the walk updates as it goes (the
// 0-based index *m still to pass, the items *read, the *pos found).
type countedWalk struct {
	sid       int64
	ascending bool
	a, b      string
	m, read   *int
	pos       **ResponsePosition
}

// locateCounted walks node (of level) for the response of 0-based index
// *w.m, in w's order, among keys in [w.a, w.b): a child wholly inside
// counts without being read; a leaf (a second) that holds it, or that
// [a, b) cuts, is read exactly. *w.m drops by what was passed over.
func (s *Store) locateCounted(ctx context.Context, w countedWalk, level int, node string) (bool, error) {
	sid, ascending, a, b, m, read, pos := w.sid, w.ascending, w.a, w.b, w.m, w.read, w.pos
	children, counts, err := s.readResponseNode(ctx, sid, level, node, ascending)
	*read++
	if err != nil {
		return false, err
	}
	leaf := level+2 == len(rpagesCuts)
	for _, c := range children {
		allAbove := c >= a                             // every key of c is >= a
		allBelow := c < b && !strings.HasPrefix(b, c)  // every key of c is < b
		noneAbove := c < a && !strings.HasPrefix(a, c) // every key of c is < a
		noneBelow := c >= b                            // every key of c is >= b
		if noneAbove || noneBelow {
			continue
		}
		if allAbove && allBelow && int64(*m) >= counts[c] {
			*m -= int(counts[c])
			continue
		}
		if leaf {
			// Read the second exactly, within [a, b).
			r := ResponseQuery{keyLo: max(a, c), keyHi: min(b, c+"/"), Ascending: ascending}
			p, scanned, err := s.skipExact(ctx, sid, r, *m+1)
			*read += scanned
			if err != nil {
				return false, err
			}
			if p.pos != nil {
				*pos = p.pos
				return true, nil
			}
			*m -= p.passed
			continue
		}
		found, err := s.locateCounted(ctx, w, level+1, c)
		if err != nil || found {
			return found, err
		}
	}
	return false, nil
}
