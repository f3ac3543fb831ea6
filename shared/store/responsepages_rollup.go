package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// The roll-up of the responses' page index: once a survey's index is
// complete, the tally writes only the minute leaves (and the marks) of
// the keys at or above the switch point u0 (META), and the hour, day,
// month and root nodes count exactly the keys below the roll-up point u
// (ROLL), which a pass moves an hour at a time once every record of the
// hour is applied. Why this is exact:
// docs/data-model.md#the-responses-page-index.
const (
	rpagesRollSK = rpagesMetaSK + "#ROLL" // read with the marks by one Query (begins_with META)
	rpagesSwitch = "u0"                   // on META: the switch point, set once
	rpagesRollAt = "u"                    // on ROLL: the roll-up point (absent: u0)
	rpagesRollD  = "d"                    // on ROLL: bumped by each deletion at or above u
	rpagesRolled = "r"                    // on a leaf a roll-up folded deletions into: the point it moved u to
	rpagesXPre   = "x"                    // on ROLL: x<14 digits of a second>, deletions of that second not yet rolled up

	// rpagesLeafLen is the length of a minute leaf's prefix.
	rpagesLeafLen = 16
	// rpagesRollItems bounds the items of one roll-up transaction.
	rpagesRollItems = 90
	// rpagesRollSpan bounds the time one roll-up reads the leaves of.
	rpagesRollSpan = 48 * time.Hour
	// rpagesRollRounds bounds the roll-up transactions of one pass.
	rpagesRollRounds = 4
)

// rpagesRoll is the roll-up state of a survey's page index.
type rpagesRoll struct {
	switchAt string // u0 ("": not switched: every level is the tally's)
	at       string // u ("": u0)
	d        int64
	dSet     bool
	x        map[string]int64 // second (19 characters) -> deletions not rolled up (negative)
}

// point is the roll-up point: keys below it are in every level, keys at
// or above it in the minute leaves (and ROLL's x) only. "": none.
func (r rpagesRoll) point() string {
	if r.at != "" {
		return r.at
	}
	return r.switchAt
}

// rpagesXAttr is ROLL's attribute of a key's second.
func rpagesXAttr(key string) string {
	var b strings.Builder
	b.WriteString(rpagesXPre)
	for i := range rpagesCuts[len(rpagesCuts)-1] {
		if c := key[i]; c >= '0' && c <= '9' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// rpagesXSecond is the second (19 characters) a ROLL attribute names.
func rpagesXSecond(attr string) (string, bool) {
	d := strings.TrimPrefix(attr, rpagesXPre)
	if len(d) != 14 || len(attr) != 15 {
		return "", false
	}
	for i := range len(d) {
		if d[i] < '0' || d[i] > '9' {
			return "", false
		}
	}
	return d[:4] + "-" + d[4:6] + "-" + d[6:8] + "T" + d[8:10] + ":" + d[10:12] + ":" + d[12:14], true
}

// anyInt is a number as dynamo unmarshals it into an any.
func anyInt(v any) (int64, bool) {
	switch x := v.(type) {
	case float64:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	}
	return 0, false
}

// readResponsePagesState reads the marks item (META, nil when absent) and
// the roll-up state (ROLL) in one consistent Query.
func (s *Store) readResponsePagesState(ctx context.Context, sid int64) (map[string]any, rpagesRoll, error) {
	meta, roll, _, err := s.readResponsePagesItems(ctx, sid, s.table.Get(AttrPK, ResponsePagesPK(sid)).Range(AttrSK, dynamo.BeginsWith, rpagesMetaSK))
	return meta, roll, err
}

// readResponsePagesPass is readResponsePagesState for a pass of the
// tally over streamShard, with that shard's checkpoint of the earlier
// design (CP#<stream shard>, still read: ApplyResponsePages) in the same
// Query: CP# sorts before META, and nodes (N#) after ROLL. One strongly
// consistent read a pass, where a GetItem of the checkpoint, which
// surveys created since are without, cost a read unit more.
func (s *Store) readResponsePagesPass(ctx context.Context, sid int64, streamShard string) (map[string]any, rpagesRoll, string, error) {
	meta, roll, cps, err := s.readResponsePagesItems(ctx, sid, s.table.Get(AttrPK, ResponsePagesPK(sid)).Range(AttrSK, dynamo.Between, rpagesCheckpoint, rpagesRollSK))
	return meta, roll, cps[rpagesCheckpoint+streamShard], err
}

// readResponsePagesItems reads the marks (META), ROLL and any checkpoint
// items (their seq by key) that q, a Query of the index's partition,
// returns, strongly consistent.
func (s *Store) readResponsePagesItems(ctx context.Context, sid int64, q *dynamo.Query) (map[string]any, rpagesRoll, map[string]string, error) {
	var items []map[string]any
	err := q.Consistent(true).All(ctx, &items)
	var roll rpagesRoll
	if err != nil {
		return nil, roll, nil, s.fail(fmt.Sprintf("read the page index of survey %d", sid), err)
	}
	var meta map[string]any
	cps := map[string]string{}
	for _, it := range items {
		sk, _ := it[AttrSK].(string)
		switch {
		case sk == rpagesMetaSK:
			meta = it
		case sk == rpagesRollSK:
			roll.read(it)
		case strings.HasPrefix(sk, rpagesCheckpoint):
			cps[sk], _ = it["seq"].(string)
		}
	}
	if meta != nil {
		roll.switchAt, _ = meta[rpagesSwitch].(string)
	}
	return meta, roll, cps, nil
}

// read takes ROLL's attributes from it.
func (r *rpagesRoll) read(it map[string]any) {
	r.at, _ = it[rpagesRollAt].(string)
	r.d, r.dSet = anyInt(it[rpagesRollD])
	r.x = nil
	for a, v := range it {
		if sec, ok := rpagesXSecond(a); ok {
			if n, ok := anyInt(v); ok && n != 0 {
				if r.x == nil {
					r.x = map[string]int64{}
				}
				r.x[sec] = n
			}
		}
	}
}

// rereadRoll reads ROLL again by GetItem, for a reader that then reads
// the tree's nodes (GetItems): a GetItem is serializable with a
// transaction, a Query's items only read-committed, so once this read
// sees a roll-up's new point, the nodes read after it see that roll-up's
// counts, not a part of them.
func (s *Store) rereadRoll(ctx context.Context, sid int64, roll *rpagesRoll) error {
	var it map[string]any
	err := s.table.Get(AttrPK, ResponsePagesPK(sid)).Range(AttrSK, dynamo.Equal, rpagesRollSK).Consistent(true).One(ctx, &it)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return s.fail(fmt.Sprintf("read the page index of survey %d", sid), err)
	}
	roll.read(it)
	return nil
}

// textAttrs is an item's text attributes.
func textAttrs(item map[string]any) map[string]string {
	out := map[string]string{}
	for k, v := range item {
		if str, ok := v.(string); ok {
			out[k] = str
		}
	}
	return out
}

// responsePagesSwitch sets (once) the switch point of a complete index
// that has none: the hour two hours after the later of now and recs'
// keys, so that a write of every level that did not read it (a pass or
// a deletion that read the marks before, a pass of the earlier code while
// a deployment goes on) is of a key below it. It answers the point set.
func (s *Store) responsePagesSwitch(ctx context.Context, sid int64, recs []ResponsePageRecord) (string, error) {
	at := s.Now().UTC()
	for _, r := range recs {
		if t, err := time.Parse(survey.TimestampLayout, r.Key[:len(survey.TimestampLayout)]); err == nil && t.After(at) {
			at = t
		}
	}
	p := keyTime(at.Truncate(time.Hour).Add(2 * time.Hour))
	var after map[string]string
	err := s.table.Update(AttrPK, ResponsePagesPK(sid)).Range(AttrSK, rpagesMetaSK).
		SetExpr("$ = if_not_exists($, ?)", rpagesSwitch, rpagesSwitch, p).OnlyUpdatedValue(ctx, &after)
	if err != nil {
		return "", s.fail(fmt.Sprintf("switch the page index of survey %d", sid), err)
	}
	return after[rpagesSwitch], nil
}

// rollUpResponsePages moves the roll-up point of a switched index to the
// last whole hour below the exact range's top (responsePageRange of the
// marks as read): every record of those hours is applied, so their
// leaves change no more but by deletions, which at or above the point go
// to ROLL (takeBackResponsePage). Each round is one transaction: the
// hours' leaves folded with their deletions, the hour nodes set, the sums
// added to the day, month and root nodes, the point moved, conditional
// on ROLL as read (its point and its deletions counter).
func (s *Store) rollUpResponsePages(ctx context.Context, sid int64, meta map[string]string, roll rpagesRoll) error {
	if roll.switchAt == "" {
		return nil
	}
	_, to, ok := responsePageRange(meta)
	if !ok {
		return nil
	}
	tt, err := time.Parse(survey.TimestampLayout, to[:len(survey.TimestampLayout)])
	if err != nil {
		return nil
	}
	top := keyTime(tt.Truncate(time.Hour))
	for round, attempt := 0, 1; round < rpagesRollRounds && roll.point() < top; {
		u := roll.point()
		ut, err := time.Parse(survey.TimestampLayout, u)
		if err != nil {
			return fmt.Errorf("store: survey %d: page index roll-up point %q is not a time", sid, u)
		}
		end := min(top, keyTime(ut.Add(rpagesRollSpan)))
		tx, moved, err := s.rollUpTx(ctx, sid, roll, end)
		if err != nil {
			return err
		}
		err = tx.Run(ctx)
		switch {
		case err == nil:
			roll.at = moved
			for sec := range roll.x {
				if sec < moved[:19] {
					delete(roll.x, sec)
				}
			}
			round++
			attempt = 1
			continue
		case attempt == tallyAttempts:
			return s.fail(fmt.Sprintf("roll up the page index of survey %d", sid), err)
		case dynamo.IsCondCheckFailed(err), txConflict(err):
			// A deletion, or another pass's roll-up: read ROLL again.
			if err := backoff(ctx, attempt); err != nil {
				return err
			}
			_, r, err := s.readResponsePagesState(ctx, sid)
			if err != nil {
				return err
			}
			roll.at, roll.d, roll.dSet, roll.x = r.at, r.d, r.dSet, r.x
		default:
			return s.fail(fmt.Sprintf("roll up the page index of survey %d", sid), err)
		}
		attempt++
	}
	return nil
}

// rollUpTx is one roll-up transaction from roll's point towards end (an
// hour): as many whole hours as fit; it answers the point it moves to.
func (s *Store) rollUpTx(ctx context.Context, sid int64, roll rpagesRoll, end string) (*dynamo.WriteTx, string, error) {
	u := roll.point()
	pk := ResponsePagesPK(sid)
	var items []map[string]any
	err := s.table.Get(AttrPK, pk).Range(AttrSK, dynamo.Between, rpagesNodePrefix+u[:rpagesLeafLen], rpagesNodePrefix+end[:rpagesCuts[3]]).
		Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, "", s.fail(fmt.Sprintf("read the page index of survey %d", sid), err)
	}
	minutes := map[string]int64{}          // minute -> its count
	folds := map[string]map[string]int64{} // minute -> second attribute -> deletions to fold in
	hours := map[string]bool{}
	for _, it := range items {
		sk, _ := it[AttrSK].(string)
		node := strings.TrimPrefix(sk, rpagesNodePrefix)
		if len(node) != rpagesLeafLen || node < u[:rpagesLeafLen] || node >= end[:rpagesLeafLen] {
			continue
		}
		for a, v := range it {
			if _, ok := rpagesChild(len(rpagesCuts)-2, node, a); !ok {
				continue
			}
			if n, ok := anyInt(v); ok {
				minutes[node] += n
				hours[node[:rpagesCuts[3]]] = true
			}
		}
	}
	var folded []string
	for sec, n := range roll.x {
		if sec < u[:19] || sec >= end[:19] {
			continue
		}
		m := sec[:rpagesLeafLen]
		if folds[m] == nil {
			folds[m] = map[string]int64{}
		}
		folds[m][rpagesChildAttr(len(rpagesCuts)-2, sec)] += n
		minutes[m] += n
		hours[sec[:rpagesCuts[3]]] = true
		folded = append(folded, sec)
	}
	order := make([]string, 0, len(hours))
	for h := range hours {
		order = append(order, h)
	}
	sort.Strings(order)
	// As many hours as fit in one transaction; the point moves to the
	// first hour left out (or to end).
	moved := end
	used, upper := 1, map[string]bool{} // ROLL, and the day, month and root nodes
	var take []string
	for _, h := range order {
		need := 1
		for m := range folds {
			if strings.HasPrefix(m, h) {
				need++
			}
		}
		for _, n := range []string{"", h[:rpagesCuts[1]], h[:rpagesCuts[2]]} {
			if !upper[n] {
				need++
			}
		}
		if used+need > rpagesRollItems && len(take) > 0 {
			moved = keyTime(mustHour(h))
			break
		}
		used += need
		upper[""], upper[h[:rpagesCuts[1]]], upper[h[:rpagesCuts[2]]] = true, true, true
		take = append(take, h)
	}
	tx := s.db.WriteTx()
	adds := map[string]map[string]int64{}
	var addOrder []string
	add := func(node, attr string, n int64) {
		if adds[node] == nil {
			adds[node] = map[string]int64{}
			addOrder = append(addOrder, node)
		}
		adds[node][attr] += n
	}
	for _, h := range take {
		var total int64
		hour := s.table.Update(AttrPK, pk).Range(AttrSK, rpagesNodePrefix+h)
		set := false
		var ms []string
		for m := range minutes {
			if strings.HasPrefix(m, h) {
				ms = append(ms, m)
			}
		}
		sort.Strings(ms)
		for _, m := range ms {
			total += minutes[m]
			if minutes[m] != 0 {
				hour.Set(rpagesChildAttr(3, m), minutes[m])
				set = true
			}
			if f := folds[m]; f != nil {
				leaf := s.table.Update(AttrPK, pk).Range(AttrSK, rpagesNodePrefix+m).Set(rpagesRolled, moved)
				attrs := make([]string, 0, len(f))
				for a := range f {
					attrs = append(attrs, a)
				}
				sort.Strings(attrs)
				for _, a := range attrs {
					leaf.Add(a, f[a])
				}
				tx.Update(leaf)
			}
		}
		if set {
			tx.Update(hour)
		}
		if total != 0 {
			add(h[:rpagesCuts[2]], rpagesChildAttr(2, h), total)
			add(h[:rpagesCuts[1]], rpagesChildAttr(1, h[:rpagesCuts[2]]), total)
			add("", rpagesChildAttr(0, h[:rpagesCuts[1]]), total)
		}
	}
	for _, node := range addOrder {
		up := s.table.Update(AttrPK, pk).Range(AttrSK, rpagesNodePrefix+node)
		for a, n := range adds[node] {
			if n != 0 {
				up.Add(a, n)
			}
		}
		tx.Update(up)
	}
	r := s.table.Update(AttrPK, pk).Range(AttrSK, rpagesRollSK).Set(rpagesRollAt, moved)
	var gone []string
	for _, sec := range folded {
		if sec < moved[:19] {
			gone = append(gone, rpagesXAttr(sec))
		}
	}
	sort.Strings(gone)
	if len(gone) > 0 {
		r.Remove(gone...)
	}
	if roll.at == "" {
		r.If("attribute_not_exists($)", rpagesRollAt)
	} else {
		r.If("$ = ?", rpagesRollAt, roll.at)
	}
	if roll.dSet {
		r.If("$ = ?", rpagesRollD, roll.d)
	} else {
		r.If("attribute_not_exists($)", rpagesRollD)
	}
	tx.Update(r)
	return tx, moved, nil
}

// mustHour is the time of an hour's prefix (2006-01-02T15).
func mustHour(h string) time.Time {
	t, _ := time.Parse("2006-01-02T15", h)
	return t
}

// takeBackResponsePage adds to tx (which holds at items so far) the
// index's part of deleting the response of GSI1SK key, by the index's
// points as read (roll: its switch and roll-up points; consistent): below
// the roll-up point every level, as the tally's counted it there; at or
// above it the deletion waits on ROLL (x of its second, the counter d
// bumped) for the roll-up, conditional on the point as read. moved
// reports a tx that failed because the point moved past key since: read
// the points again and build it again.
func (s *Store) takeBackResponsePage(tx *dynamo.WriteTx, at int, sid int64, key string, roll rpagesRoll) (moved func(error) bool) {
	if p := roll.point(); p == "" || key < p {
		for _, up := range s.responsePageUpdates(sid, []string{key}, -1, "") {
			tx.Update(up)
		}
		return func(error) bool { return false }
	}
	up := s.table.Update(AttrPK, ResponsePagesPK(sid)).Range(AttrSK, rpagesRollSK).Add(rpagesRollD, 1).Add(rpagesXAttr(key), -1)
	if roll.at == "" {
		up.If("attribute_not_exists($)", rpagesRollAt)
	} else {
		up.If("$ = ?", rpagesRollAt, roll.at)
	}
	tx.Update(up)
	return func(err error) bool { return txFailedAt(err, at) }
}

// locateFlat is locateCounted for keys at or above the roll-up point:
// the seconds of the minute leaves in [w.a, w.b) (one Query) with ROLL's
// deletions. stale: a roll-up folded deletions into a leaf since ROLL was
// read (its point moved past it): the caller reads the old way.
func (s *Store) locateFlat(ctx context.Context, w countedWalk, roll rpagesRoll) (found, stale bool, err error) {
	a, b, m, read, pos := w.a, w.b, w.m, w.read, w.pos
	var items []map[string]any
	err = s.table.Get(AttrPK, ResponsePagesPK(w.sid)).Range(AttrSK, dynamo.Between, rpagesNodePrefix+a[:rpagesLeafLen], rpagesNodePrefix+b[:rpagesLeafLen]).
		Consistent(true).All(ctx, &items)
	*read += max(1, len(items))
	if err != nil {
		return false, false, s.fail(fmt.Sprintf("read the page index of survey %d", w.sid), err)
	}
	counts := map[string]int64{}
	for _, it := range items {
		sk, _ := it[AttrSK].(string)
		node := strings.TrimPrefix(sk, rpagesNodePrefix)
		if len(node) != rpagesLeafLen {
			continue
		}
		if _, ok := it[rpagesRolled]; ok {
			return false, true, nil
		}
		for attr, v := range it {
			if sec, ok := rpagesChild(len(rpagesCuts)-2, node, attr); ok {
				if n, ok := anyInt(v); ok {
					counts[sec] += n
				}
			}
		}
	}
	for sec, n := range roll.x {
		counts[sec] += n
	}
	seconds := make([]string, 0, len(counts))
	for sec, n := range counts {
		if n != 0 && sec >= a[:19] && sec <= b[:19] {
			seconds = append(seconds, sec)
		}
	}
	sort.Strings(seconds)
	if !w.ascending {
		for i, j := 0, len(seconds)-1; i < j; i, j = i+1, j-1 {
			seconds[i], seconds[j] = seconds[j], seconds[i]
		}
	}
	for _, c := range seconds {
		allAbove := c >= a
		allBelow := c < b && !strings.HasPrefix(b, c)
		if allAbove && allBelow && counts[c] > 0 && int64(*m) >= counts[c] {
			*m -= int(counts[c])
			continue
		}
		r := ResponseQuery{keyLo: max(a, c), keyHi: min(b, c+"/"), Ascending: w.ascending}
		p, scanned, err := s.skipExact(ctx, w.sid, r, *m+1)
		*read += scanned
		if err != nil {
			return false, false, err
		}
		if p.pos != nil {
			*pos = p.pos
			return true, false, nil
		}
		*m -= p.passed
	}
	return false, false, nil
}
