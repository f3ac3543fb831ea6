package store

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// A survey's public report (contract section 14) reads counts kept as
// responses arrive, never the responses: AGG#<sid> / SHARD#<0..7> hold flat
// numeric attributes, "n" (responses), "c_<element>_<choice>" (a choice
// picked), "s_<element>_<value>" (a scale or rating value),
// "m_<element>_<row>_<column>" (a matrix column picked in a row), and
// "rn_<element>_<choice>" / "rs_<element>_<choice>" (a ranking's choice:
// times ranked and the sum of its ranks). A response names the attributes
// it adds to in its "agg" set (a weight after a colon: ReportAttr); the
// tally (tally.go) adds them from the table's stream when it is inserted,
// moves them when an edit changes the set (the stream's old and new
// images) and takes them back when it is deleted, each exactly once. An
// attribute always lives in the same shard (a hash of its name), so the
// counts of a survey with many charted elements spread over the eight
// items; the report sums the shards in one BatchGetItem, whatever the
// number of responses.
const (
	// AggShards is the number of aggregate shards of a survey.
	AggShards = 8
	reportSK  = "REPORT"
)

// AggPK is a survey's aggregate partition.
func AggPK(sid int64) string { return "AGG#" + pad(sid) }

// AggSK is one aggregate shard.
func AggSK(n int) string { return "SHARD#" + strconv.Itoa(n) }

// ReportPK maps a survey's report code to its survey.
func ReportPK(code string) string { return "REPORT#" + code }

// reportItem is REPORT#<code> / REPORT, written with the survey.
type reportItem struct {
	PK       string `dynamo:"PK"`
	SK       string `dynamo:"SK"`
	SurveyID int64  `dynamo:"survey_id"`
}

func newReportItem(sv survey.Survey) reportItem {
	return reportItem{PK: ReportPK(sv.ReportCode), SK: reportSK, SurveyID: sv.ID}
}

// ChoiceCount names the count of one choice picked of an element: an
// aggregate attribute a submission adds to.
func ChoiceCount(eid, cid int64) string { return fmt.Sprintf("c_%d_%d", eid, cid) }

// ScaleCount names the count of one scale or rating value of an element.
func ScaleCount(eid, v int64) string { return fmt.Sprintf("s_%d_%d", eid, v) }

// MatrixCount names the count of one column picked in one row of a matrix.
func MatrixCount(eid, row, col int64) string { return fmt.Sprintf("m_%d_%d_%d", eid, row, col) }

// RankCount names the count of the rankings of one choice of a ranking
// element; RankSum the sum of the ranks it was given (1 for first), which
// a response adds rank to: the attribute it names carries its weight,
// "rs_<eid>_<cid>:<rank>" (ReportAttr). Mean rank = sum / count.
func RankCount(eid, cid int64) string { return fmt.Sprintf("rn_%d_%d", eid, cid) }

// RankSum: see RankCount.
func RankSum(eid, cid, rank int64) string { return fmt.Sprintf("rs_%d_%d:%d", eid, cid, rank) }

// ReportAttr reads one of a response's report attributes (its "agg" set):
// the aggregate attribute it adds to and by how much (1, or the weight
// after a colon). ok is false for anything else: an attribute name is
// lower-case letters, digits and underscores, its weight a positive
// number under a million.
func ReportAttr(a string) (name string, weight int64, ok bool) {
	name, w, weighted := strings.Cut(a, ":")
	if name == "" || len(name) > 80 {
		return "", 0, false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return "", 0, false
		}
	}
	if !weighted {
		return name, 1, true
	}
	n, err := strconv.ParseInt(w, 10, 64)
	if err != nil || n < 1 || n >= 1_000_000 || strconv.FormatInt(n, 10) != w {
		return "", 0, false
	}
	return name, n, true
}

// Aggregate is a survey's counts, summed over its shards.
type Aggregate struct {
	Responses int64
	// Choices counts picks by element and choice; Scales counts values by
	// element and value.
	Choices map[int64]map[int64]int64
	Scales  map[int64]map[int64]int64
	// Matrix counts picks by element, row and column.
	Matrix map[int64]map[int64]map[int64]int64
	// Ranks holds, by element and choice, how often it was ranked and the
	// sum of its ranks.
	Ranks map[int64]map[int64]RankTotal
}

// RankTotal is one choice's rankings: how many, and the sum of the ranks.
type RankTotal struct{ Count, Sum int64 }

// Mean is the choice's mean rank (1 is first), or 0 when never ranked.
func (r RankTotal) Mean() float64 {
	if r.Count == 0 {
		return 0
	}
	return float64(r.Sum) / float64(r.Count)
}

func newAggregate() Aggregate {
	return Aggregate{Choices: map[int64]map[int64]int64{}, Scales: map[int64]map[int64]int64{},
		Matrix: map[int64]map[int64]map[int64]int64{}, Ranks: map[int64]map[int64]RankTotal{}}
}

// add adds n to the count an aggregate attribute names; unknown names
// are passed over.
func (a *Aggregate) add(k string, n int64) {
	switch {
	case k == "n":
		a.Responses += n
	case strings.HasPrefix(k, "c_"):
		addCount(a.Choices, k[2:], n)
	case strings.HasPrefix(k, "s_"):
		addCount(a.Scales, k[2:], n)
	case strings.HasPrefix(k, "m_"):
		ids, ok := attrIDs(k[2:], 3)
		if !ok {
			return
		}
		rows := a.Matrix[ids[0]]
		if rows == nil {
			rows = map[int64]map[int64]int64{}
			a.Matrix[ids[0]] = rows
		}
		if rows[ids[1]] == nil {
			rows[ids[1]] = map[int64]int64{}
		}
		rows[ids[1]][ids[2]] += n
	case strings.HasPrefix(k, "rn_"), strings.HasPrefix(k, "rs_"):
		ids, ok := attrIDs(k[3:], 2)
		if !ok {
			return
		}
		if a.Ranks[ids[0]] == nil {
			a.Ranks[ids[0]] = map[int64]RankTotal{}
		}
		t := a.Ranks[ids[0]][ids[1]]
		if k[1] == 'n' {
			t.Count += n
		} else {
			t.Sum += n
		}
		a.Ranks[ids[0]][ids[1]] = t
	}
}

// attrIDs reads want numbers joined by "_".
func attrIDs(s string, want int) ([]int64, bool) {
	parts := strings.Split(s, "_")
	if len(parts) != want {
		return nil, false
	}
	ids := make([]int64, want)
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, false
		}
		ids[i] = n
	}
	return ids, true
}

// SurveyIDByReportCode finds the survey of a report code: one GetItem.
// Surveys created before report items existed have none, and answer 404
// (docs/responding.md, "Hosted pages").
func (s *Store) SurveyIDByReportCode(ctx context.Context, code string) (int64, error) {
	return s.surveyIDByCode(ctx, code, ReportPK, reportSK)
}

// surveyIDByCode reads the survey id a code's item (pk(code) / sk) holds:
// one GetItem; ENOTFOUND for a code with no item.
func (s *Store) surveyIDByCode(ctx context.Context, code string, pk func(string) string, sk string) (int64, error) {
	if code == "" || len(code) > 64 {
		return 0, survey.ErrNotFound
	}
	var it reportItem
	err := s.table.Get(AttrPK, pk(code)).Range(AttrSK, dynamo.Equal, sk).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return 0, survey.ErrNotFound
	}
	if err != nil {
		return 0, s.fail("read a "+strings.ToLower(sk)+" code", err)
	}
	return it.SurveyID, s.inHostScope(ctx, it.SurveyID)
}

// Aggregates sums a survey's aggregate shards: one BatchGetItem.
func (s *Store) Aggregates(ctx context.Context, sid int64) (Aggregate, error) {
	keys := make([]dynamo.Keyed, AggShards)
	for i := range keys {
		keys[i] = dynamo.Keys{AggPK(sid), AggSK(i)}
	}
	var items []map[string]any
	err := s.table.Batch(AttrPK, AttrSK).Get(keys...).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return Aggregate{}, s.fail(fmt.Sprintf("read survey %d aggregates", sid), err)
	}
	a := newAggregate()
	for _, it := range items {
		for k, v := range it {
			a.add(k, toInt(v))
		}
	}
	return a, nil
}

func addCount(m map[int64]map[int64]int64, key string, n int64) {
	e, v, ok := strings.Cut(key, "_")
	if !ok {
		return
	}
	eid, err1 := strconv.ParseInt(e, 10, 64)
	val, err2 := strconv.ParseInt(v, 10, 64)
	if err1 != nil || err2 != nil {
		return
	}
	if m[eid] == nil {
		m[eid] = map[int64]int64{}
	}
	m[eid][val] += n
}

// toInt is a number as dynamo unmarshals it into an any, 0 when it is none
// (anyInt).
func toInt(v any) int64 {
	n, _ := anyInt(v)
	return n
}

// aggShard draws the shard recorded with a submission (agg_shard): the
// tally no longer uses it, but its presence marks a counted response, and
// responses counted before the tally (no "tally" mark) are taken back
// from it directly.
func aggShard() int { return rand.IntN(AggShards) }

// attrShard is the aggregate shard an attribute lives in.
func attrShard(name string) int {
	h := fnv.New32a()
	h.Write([]byte(name))
	return int(h.Sum32() % AggShards)
}

// BackfillReportCodes writes the REPORT#<code> item of every survey
// created before report items existed, so that its public report is
// found: one Scan of the survey items (an operator's command, never a
// request's) and a conditional PutItem for each, which leaves existing
// items alone. It answers how many it wrote.
func (s *Store) BackfillReportCodes(ctx context.Context) (int, error) {
	return s.backfillCodeItems(ctx, "report_code", func(id int64, code string) any {
		return newReportItem(survey.Survey{ID: id, ReportCode: code})
	})
}

// backfillCodeItems writes, for every survey whose attr (a code) is set,
// the item mk makes of its id and code, unless it exists: one Scan of the
// survey items and a conditional PutItem for each. It answers how many it
// wrote.
func (s *Store) backfillCodeItems(ctx context.Context, attr string, mk func(id int64, code string) any) (int, error) {
	var svs []map[string]any
	err := s.table.Scan().Filter("'SK' = ?", SurveySK).Project("id", attr).Consistent(true).All(ctx, &svs)
	if err != nil {
		return 0, s.fail("scan the surveys", err)
	}
	n := 0
	for _, sv := range svs {
		id, code := toInt(sv["id"]), fmt.Sprint(sv[attr])
		if _, ok := sv[attr].(string); !ok || code == "" || id == 0 {
			continue
		}
		err := s.table.Put(mk(id, code)).If("attribute_not_exists(PK)").Run(ctx)
		switch {
		case err == nil:
			n++
		case dynamo.IsCondCheckFailed(err):
		default:
			return n, s.fail(fmt.Sprintf("write survey %d's %s", id, attr), err)
		}
	}
	return n, nil
}
