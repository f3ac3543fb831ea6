package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"surveyservice/shared/survey"
)

// survey.full (contract section 25): sent once each time the limit or a
// quota becomes full. No submission knows that it took a cap's last place
// (an allowance knows its own share only), so dispatch reads the
// allowances' stream records: a record in which a cap's counter reached
// its share there may be the last allowance to fill, and one read of every
// allowance (3 BatchGetItems) tells. A fill is named by the cap, its
// places and the places given back to it so far (the g<counter>s, which
// only deletions and withdrawals write): no place can be taken while the
// cap is full, so every record and every retry of a batch that sees the
// same fill sees the same name, and a refill after a deletion or a raised
// limit is a new one. The first to see a fill records when it was seen
// (a conditional put of its fill item, kept as long as deliveries); the
// deliveries are made from that item, so a batch retried after a failure
// makes the same deliveries (CreateDelivery) and never a second event.

// CapFill is one filling of a cap, as its survey.full deliveries carry it.
type CapFill struct {
	SurveyID int64
	// Quota is the quota's id, 0 for the response limit; Limit is the
	// limit (or the quota's) that filled.
	Quota, Limit int64
	// At is when the fill was first seen; ID names the fill among the
	// survey's (the deliveries' "response" part of their id and their
	// response_id; 53 bits, exact in any JSON reader).
	At time.Time
	ID int64
}

// Payload is the survey.full event's data (contract section 25).
func (f CapFill) Payload() json.RawMessage {
	data := struct {
		SurveyID int64  `json:"survey_id"`
		QuotaID  *int64 `json:"quota_id"`
		Limit    int64  `json:"limit"`
	}{SurveyID: f.SurveyID, Limit: f.Limit}
	if f.Quota != 0 {
		data.QuotaID = &f.Quota
	}
	b, _ := json.Marshal(data)
	return b
}

// fillItem records a fill, first seen at At.
type fillItem struct {
	PK        string `dynamo:"PK,hash"`
	SK        string `dynamo:"SK,range"`
	At        string `dynamo:"at"`
	ExpiresAt int64  `dynamo:"expires_at"`
}

// CapFillPK is the partition of a survey's fills; each fill's sort key
// names its counter, places and places given back.
func CapFillPK(sid int64) string { return "CAP#" + strconv.FormatInt(sid, 10) }

func capFillSK(attr string, places, given int64) string {
	return "FULL#" + attr + "#" + strconv.FormatInt(places, 10) + "#" + strconv.FormatInt(given, 10)
}

// AllowanceOf reads an allowance's key: its survey and k.
func AllowanceOf(pk, sk string) (sid int64, k int, ok bool) {
	if sk != capSK || len(pk) < len("CAP#") || pk[:len("CAP#")] != "CAP#" {
		return 0, 0, false
	}
	rest := pk[len("CAP#"):]
	for i := range len(rest) {
		if rest[i] == '#' {
			sid, err1 := strconv.ParseInt(rest[:i], 10, 64)
			k, err2 := strconv.Atoi(rest[i+1:])
			if err1 != nil || err2 != nil || sid <= 0 || k < 0 || k >= CapAllowances || CapPK(sid, k) != pk {
				return 0, 0, false
			}
			return sid, k, true
		}
	}
	return 0, 0, false
}

// AllowanceWrite is an allowance's write as the stream shows it: its k
// and its counters before and after.
type AllowanceWrite struct {
	K             int
	Before, After map[string]int64
}

// CapsFilled answers the fills a batch of one survey's allowance writes
// (from the stream's records) completed: the survey's caps read once (its
// cached collection: one GetItem of the survey item per batch, not per
// record), and only when some cap's counter reached its share in an
// allowance written, one read of every allowance; for each such cap now
// full everywhere, its fill (recorded at its first sight). A survey gone
// answers none.
func (s *Store) CapsFilled(ctx context.Context, sid int64, writes []AllowanceWrite) ([]CapFill, error) {
	c, err := s.PublicCollection(ctx, sid, false)
	if errors.Is(err, survey.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type capOf struct {
		cap   Cap
		limit int64
	}
	var all []capOf
	if c.Settings.ResponseLimit != nil {
		all = append(all, capOf{LimitCap(c.Settings), *c.Settings.ResponseLimit})
	}
	for _, q := range c.Quotas {
		all = append(all, capOf{QuotaCap(q), q.Limit})
	}
	var reached []capOf
	for _, co := range all {
		for _, w := range writes {
			if n := co.cap.shareIn(w.K, w.After); n > closedShare && w.After[co.cap.Attr] >= n && w.Before[co.cap.Attr] < n {
				reached = append(reached, co)
				break
			}
		}
	}
	if len(reached) == 0 {
		return nil, nil
	}
	used, err := s.allowances(ctx, sid)
	if err != nil {
		return nil, err
	}
	var fills []CapFill
	for _, co := range reached {
		full, given := true, int64(0)
		for j := range CapAllowances {
			full = full && used[j][co.cap.Attr] >= co.cap.shareIn(j, used[j])
			given += used[j][givenAttr(co.cap.Attr)]
		}
		if !full {
			continue
		}
		at, err := s.fillSeen(ctx, sid, co.cap, given)
		if err != nil {
			return nil, err
		}
		h := fnv.New64a()
		h.Write([]byte(capFillSK(co.cap.Attr, co.cap.Places, given)))
		fills = append(fills, CapFill{SurveyID: sid, Quota: co.cap.Quota, Limit: co.limit, At: at, ID: int64(h.Sum64()>>11) | 1})
	}
	return fills, nil
}

// fillSeen records a fill's first sight (one conditional PutItem, which
// answers the item recorded first when there is one) and answers when.
func (s *Store) fillSeen(ctx context.Context, sid int64, c Cap, given int64) (time.Time, error) {
	now := s.Now().UTC().Truncate(time.Microsecond)
	it := fillItem{PK: CapFillPK(sid), SK: capFillSK(c.Attr, c.Places, given), At: stamp(now), ExpiresAt: now.Add(survey.DeliveryRetention).Unix()}
	var cur fillItem
	wrote, err := s.table.Put(it).If("attribute_not_exists(PK)").CurrentValue(ctx, &cur)
	if err != nil {
		return time.Time{}, s.fail(fmt.Sprintf("record a fill of survey %d", sid), err)
	}
	if wrote {
		return now, nil
	}
	at, err := unstamp(cur.At)
	if err != nil || at.IsZero() {
		return time.Time{}, fmt.Errorf("store: fill %s %s: bad time %q", cur.PK, cur.SK, cur.At)
	}
	return at, nil
}
