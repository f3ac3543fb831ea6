package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// A survey's public report (contract section 14) reads counts kept as
// responses arrive, never the responses: AGG#<sid> / SHARD#<0..7> hold flat
// numeric attributes, "n" (responses), "c_<element>_<choice>" (a choice
// picked) and "s_<element>_<value>" (a scale or rating value). A
// submission ADDs to one shard drawn at random, so that concurrent
// submissions seldom write the same item; the report sums the shards in
// one BatchGetItem, whatever the number of responses.
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

// Aggregate is a survey's counts, summed over its shards.
type Aggregate struct {
	Responses int64
	// Choices counts picks by element and choice; Scales counts values by
	// element and value.
	Choices map[int64]map[int64]int64
	Scales  map[int64]map[int64]int64
}

// SurveyIDByReportCode finds the survey of a report code: one GetItem.
// Surveys created before report items existed have none, and answer 404
// (see README "Hosted pages").
func (s *Store) SurveyIDByReportCode(ctx context.Context, code string) (int64, error) {
	if code == "" || len(code) > 64 {
		return 0, survey.ErrNotFound
	}
	var it reportItem
	err := s.table.Get(AttrPK, ReportPK(code)).Range(AttrSK, dynamo.Equal, reportSK).One(ctx, &it)
	if err == dynamo.ErrNotFound {
		return 0, survey.ErrNotFound
	}
	if err != nil {
		return 0, s.fail("read a report code", err)
	}
	return it.SurveyID, nil
}

// Aggregates sums a survey's aggregate shards: one BatchGetItem.
func (s *Store) Aggregates(ctx context.Context, sid int64) (Aggregate, error) {
	keys := make([]dynamo.Keyed, AggShards)
	for i := range keys {
		keys[i] = dynamo.Keys{AggPK(sid), AggSK(i)}
	}
	var items []map[string]any
	err := s.table.Batch(AttrPK, AttrSK).Get(keys...).All(ctx, &items)
	if err != nil && err != dynamo.ErrNotFound {
		return Aggregate{}, s.fail(fmt.Sprintf("read survey %d aggregates", sid), err)
	}
	a := Aggregate{Choices: map[int64]map[int64]int64{}, Scales: map[int64]map[int64]int64{}}
	for _, it := range items {
		for k, v := range it {
			n := toInt(v)
			switch {
			case k == "n":
				a.Responses += n
			case strings.HasPrefix(k, "c_"):
				addCount(a.Choices, k[2:], n)
			case strings.HasPrefix(k, "s_"):
				addCount(a.Scales, k[2:], n)
			}
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

func toInt(v any) int64 {
	switch x := v.(type) {
	case float64:
		return int64(x)
	case int64:
		return x
	case int:
		return int64(x)
	}
	return 0
}

// aggShard draws the shard a submission adds to.
func aggShard() int { return rand.IntN(AggShards) }

// BackfillReportCodes writes the REPORT#<code> item of every survey
// created before report items existed, so that its public report is
// found: one Scan of the survey items (an operator's command, never a
// request's) and a conditional PutItem for each, which leaves existing
// items alone. It answers how many it wrote.
func (s *Store) BackfillReportCodes(ctx context.Context) (int, error) {
	var svs []struct {
		ID         int64  `dynamo:"id"`
		ReportCode string `dynamo:"report_code"`
	}
	err := s.table.Scan().Filter("'SK' = ?", SurveySK).Project("id", "report_code").Consistent(true).All(ctx, &svs)
	if err != nil {
		return 0, s.fail("scan the surveys", err)
	}
	n := 0
	for _, sv := range svs {
		if sv.ReportCode == "" || sv.ID == 0 {
			continue
		}
		err := s.table.Put(newReportItem(survey.Survey{ID: sv.ID, ReportCode: sv.ReportCode})).If("attribute_not_exists(PK)").Run(ctx)
		switch {
		case err == nil:
			n++
		case dynamo.IsCondCheckFailed(err):
		default:
			return n, s.fail(fmt.Sprintf("write survey %d's report code", sv.ID), err)
		}
	}
	return n, nil
}
