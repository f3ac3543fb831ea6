package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/internal/ddbsim"
	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// rollFixture is a survey whose page index the tests feed by hand, with a
// response item for every record, through a store whose requests are
// recorded.
type rollFixture struct {
	st    *store.Store
	rec   *ddbsim.Recorder
	clock *time.Time
	aid   int64
	sid   int64
}

func newRollFixture(t *testing.T, created time.Time) rollFixture {
	t.Helper()
	cfg := testenv.Config(t)
	rec := &ddbsim.Recorder{Next: cfg.HTTPClient}
	rec.Pause()
	cfg.HTTPClient = rec
	st := store.New(cfg, testenv.Store(t).TableName())
	clock := created
	st.Now = func() time.Time { return clock }
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "roll", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "roll")
	return rollFixture{st: st, rec: rec, clock: &clock, aid: a.ID, sid: sv.ID}
}

// responses seeds n responses a minute apart from start (every ninth in
// the second of the one before) and answers their records.
func (fx rollFixture) responses(t *testing.T, start time.Time, first int64, n int) []store.ResponsePageRecord {
	t.Helper()
	var rs []survey.Response
	var recs []store.ResponsePageRecord
	for i := range n {
		at := start.Add(time.Duration(i) * time.Minute)
		if i%9 == 8 {
			at = rs[i-1].SubmittedAt.Add(time.Millisecond)
		}
		rid := first + int64(i)
		rs = append(rs, survey.Response{ID: rid, SurveyID: fx.sid, SubmittedAt: at, StartedAt: at.Add(-time.Minute)})
		recs = append(recs, store.ResponsePageRecord{Seq: fmt.Sprint(first + int64(i)), Shard: store.ResponseShard(rid), Key: store.ResponseTimeSK(at, rid)})
	}
	if err := storetest.SeedResponses(context.Background(), fx.st, rs); err != nil {
		t.Fatal(err)
	}
	return recs
}

// apply hands recs to the page index as stream shard shard's pass, and
// answers the write units it cost.
func (fx rollFixture) apply(t *testing.T, shard string, recs []store.ResponsePageRecord, want int) float64 {
	t.Helper()
	fx.rec.Take()
	fx.rec.Resume()
	n, err := fx.st.ApplyResponsePages(context.Background(), fx.sid, shard, recs)
	fx.rec.Pause()
	if err != nil {
		t.Fatal(err)
	}
	if want >= 0 && n != want {
		t.Errorf("applied %d, want %d", n, want)
	}
	units := 0.0
	for _, q := range fx.rec.Take() {
		units += ddbsim.Cost(q)
	}
	return units
}

// exact checks that passing over k responses lands where reading every
// key does, oldest and newest first, for every k (every step-th and the
// last few when step > 1); it answers the most items a pass read.
func (fx rollFixture) exact(t *testing.T, step int) int {
	t.Helper()
	ctx := context.Background()
	var asc []store.ResponsePosition
	q := store.ResponseQuery{Limit: 1000, Ascending: true}
	for {
		page, err := fx.st.ResponsesPage(ctx, fx.sid, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Responses {
			asc = append(asc, store.ResponsePosition{SubmittedAt: r.SubmittedAt, ID: r.ID})
		}
		if !page.More {
			break
		}
		q.From = page.Last()
	}
	most := 0
	for _, q := range []store.ResponseQuery{{Ascending: true}, {}} {
		want := asc
		if !q.Ascending {
			want = reversed(asc)
		}
		for k := 1; k <= len(want)+1; k++ {
			if k%step != 0 && k < len(want)-2 {
				continue
			}
			pos, read, err := fx.st.SkipResponses(ctx, fx.sid, q, k)
			if err != nil {
				t.Fatal(err)
			}
			most = max(most, read)
			switch {
			case k > len(want):
				if pos != nil {
					t.Errorf("ascending %v: passing %d of %d answered %+v, want none", q.Ascending, k, len(want), pos)
				}
			case pos == nil || !pos.SubmittedAt.Equal(want[k-1].SubmittedAt) || pos.ID != want[k-1].ID:
				t.Errorf("ascending %v: the %d-th is %+v, want %+v", q.Ascending, k, pos, want[k-1])
			}
		}
	}
	return most
}

// node reads an item of the survey's page index.
func (fx rollFixture) node(t *testing.T, sk string) map[string]dtypes.AttributeValue {
	t.Helper()
	out, err := fx.st.Client().GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(fx.st.TableName()), ConsistentRead: aws.Bool(true),
		Key: map[string]dtypes.AttributeValue{store.AttrPK: &dtypes.AttributeValueMemberS{Value: store.ResponsePagesPK(fx.sid)},
			store.AttrSK: &dtypes.AttributeValueMemberS{Value: sk}}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

// counted is what the index's node sk counts in all.
func (fx rollFixture) counted(t *testing.T, sk string) (n int) {
	t.Helper()
	for k, v := range fx.node(t, sk) {
		if nv, ok := v.(*dtypes.AttributeValueMemberN); ok && len(k) > 1 && k[0] == 'c' {
			var x int
			fmt.Sscan(nv.Value, &x)
			n += x
		}
	}
	return n
}

// TestResponsePagesRollUp: once a survey's page index is complete, a
// tally pass at one response a minute writes the minute leaf with its
// marks (1 write unit; the marks item too when a shard's mark enters a
// new hour: 2), and the upper levels are rolled up an hour at a
// time (one transaction an hour, amortised); a page read counts up to
// every pass's marks; page starts stay exact at
// every offset through the roll-ups, with records handed twice and
// halved, and with deletions below and above the roll-up point, racing
// a roll-up from either side.
func TestResponsePagesRollUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := time.Now().UTC().Add(-12 * time.Hour).Truncate(time.Hour)
	// Made two hours before base: its switch point is base (a born
	// survey's is two hours after the hour of its creation, so that the
	// tally of a deployment's earlier code, which writes every level,
	// writes only keys that stay on every level).
	fx := newRollFixture(t, base.Add(-2*time.Hour+5*time.Minute))
	if meta := fx.node(t, "META"); meta["u0"] == nil || meta["u0"].(*dtypes.AttributeValueMemberS).Value[:13] != base.Format("2006-01-02T15") {
		t.Fatalf("a survey made at %s switches at %v, want the hour %s", base.Add(-2*time.Hour+5*time.Minute), meta["u0"], base.Format("2006-01-02T15"))
	}
	recs := fx.responses(t, base.Add(6*time.Minute+17*time.Second), 30000, 400)

	deleted := map[int]bool{}
	// One a minute: each record a pass of its own.
	passes, plain, units := 0, 0, 0.0
	for i, r := range recs[:240] {
		*fx.clock = base.Add(time.Duration(6+i)*time.Minute + 30*time.Second)
		u := fx.apply(t, "low", []store.ResponsePageRecord{r}, 1)
		passes++
		units += u
		if u == 1 {
			plain++
		}
		switch i {
		case 120:
			// Deletions: one long rolled up (below the point), one of
			// the last minutes (above it).
			point, _, _, err := fx.st.ResponsePagesRollState(ctx, fx.sid)
			if err != nil {
				t.Fatal(err)
			}
			if point <= recs[10].Key || point > recs[110].Key {
				t.Fatalf("after 120 responses the roll-up point is %s, want between the 10th's (%s) and the 110th's", point, recs[10].Key)
			}
			for _, k := range []int{10, 119} {
				deleted[k] = true
				if err := fx.st.DeleteResponse(ctx, fx.aid, fx.sid, 30000+int64(k)); err != nil {
					t.Fatal(err)
				}
			}
			fx.exact(t, 7)
		}
	}
	// A page read counts through the index up to the marks of every
	// pass, most of which are on the leaves, not the marks item.
	high := map[int]string{}
	for _, r := range recs[:240] {
		high[r.Shard] = max(high[r.Shard], r.Key)
	}
	top, read, err := fx.st.ResponsePagesExactTop(ctx, fx.sid)
	if err != nil {
		t.Fatal(err)
	}
	if want := store.ResponsePageMarkTop(high); top != want {
		t.Errorf("a page read counts through the index up to %s, want %s (every shard's last mark less the margin)", top, want)
	}
	t.Logf("the exact range's top read from %d items", read)
	per := units / float64(passes)
	t.Logf("the tally's page index at one a minute: %.2f write units a response (%d of %d passes 1 unit; the rest write the marks item or roll up an hour)", per, plain, passes)
	if per > 1.5 {
		t.Errorf("the tally's page index writes %.2f units a response at one a minute, want at most 1.5 "+
			"(the minute leaf with the marks; the marks item when a shard's mark enters an hour, 16 an hour at most; an hour's roll-up amortised)", per)
	}
	if plain < passes*2/3 {
		t.Errorf("%d of %d passes wrote 1 unit (the leaf with the marks), want two in three", plain, passes)
	}

	// The rest handed over twice, halved and from the middle by another
	// stream shard; deletions racing roll-ups.
	next := 240
	due := func() bool {
		t.Helper()
		point, top, _, err := fx.st.ResponsePagesRollState(ctx, fx.sid)
		if err != nil {
			t.Fatal(err)
		}
		return top > point
	}
	// feed hands records over (each part twice, the second time in a
	// longer batch) until a roll-up is due.
	feed := func() {
		t.Helper()
		for next < len(recs) {
			end := min(next+6, len(recs))
			*fx.clock = base.Add(time.Duration(6+end) * time.Minute)
			half := next + (end-next)/2
			if next > 243 {
				fx.apply(t, "high", recs[next-3:next], 0) // nothing is due: no roll-up
			}
			fx.apply(t, "high", recs[next:half], half-next)
			if due() {
				next = half
				return
			}
			fx.apply(t, "high", recs[next:end], end-half)
			next = end
			if due() {
				return
			}
		}
		t.Fatal("no roll-up due after every record")
	}
	pendingKey := func() (int, string) {
		t.Helper()
		point, top, _, err := fx.st.ResponsePagesRollState(ctx, fx.sid)
		if err != nil {
			t.Fatal(err)
		}
		for i := next - 1; i >= 0; i-- {
			if recs[i].Key >= point && recs[i].Key < top && i != 119 {
				return i, point
			}
		}
		t.Fatalf("no response between the roll-up point %s and %s", point, top)
		return 0, ""
	}
	// A roll-up commits between a deletion's read and its transaction:
	// the deletion is cancelled, and done again below the new point.
	feed()
	k, point := pendingKey()
	deleted[k] = true
	moved, err := fx.st.DeleteResponseStale(ctx, fx.sid, 30000+int64(k), recs[k].Key, func() {
		fx.apply(t, "high", nil, 0) // a pass that only rolls up
	})
	if err != nil || !moved {
		t.Fatalf("a deletion racing a roll-up: moved %v (%v), want cancelled", moved, err)
	}
	if p, _, _, _ := fx.st.ResponsePagesRollState(ctx, fx.sid); p <= point {
		t.Fatalf("the roll-up point stayed %s", p)
	}
	if err := fx.st.DeleteResponse(ctx, fx.aid, fx.sid, 30000+int64(k)); err != nil {
		t.Fatal(err)
	}
	fx.exact(t, 5)
	// A deletion commits between a roll-up's reads and its transaction:
	// the roll-up is cancelled and rolls the hour up again, without it.
	feed()
	k, _ = pendingKey()
	deleted[k] = true
	err = fx.st.RollUpStale(ctx, fx.sid, func() {
		if err := fx.st.DeleteResponse(ctx, fx.aid, fx.sid, 30000+int64(k)); err != nil {
			t.Fatal(err)
		}
		if _, _, pending, _ := fx.st.ResponsePagesRollState(ctx, fx.sid); len(pending) == 0 {
			t.Error("a deletion above the roll-up point left nothing pending")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if point, top, pending, _ := fx.st.ResponsePagesRollState(ctx, fx.sid); point != top || len(pending) != 0 {
		t.Errorf("after the roll-up: point %s, top %s, %d seconds of deletions pending; want the top and none", point, top, len(pending))
	}
	fx.exact(t, 3)
	for ; next < len(recs); next += 20 {
		fx.apply(t, "high", recs[next:min(next+20, len(recs))], -1)
	}
	fx.apply(t, "high", nil, 0)
	most := fx.exact(t, 1)
	t.Logf("a page start read at most %d items", most)
	// What a cold page start reads: above the roll-up point (the newest,
	// through the leaves' Query) and below it (the oldest, the tree).
	for _, q := range []store.ResponseQuery{{}, {Ascending: true}} {
		for _, k := range []int{25, 101, 201} {
			fx.rec.Take()
			fx.rec.Resume()
			_, items, err := fx.st.SkipResponses(ctx, fx.sid, q, k)
			fx.rec.Pause()
			if err != nil {
				t.Fatal(err)
			}
			reqs := fx.rec.Take()
			rcu := 0.0
			for _, r := range reqs {
				for _, u := range ddbsim.ReadUnits(r) {
					rcu += u
				}
			}
			t.Logf("passing over %d, ascending %v: %d requests, %d items, %.1f read units", k, q.Ascending, len(reqs), items, rcu)
		}
	}
	fx.levels(t, base, recs, deleted)
}

// TestResponsePagesSwitch: a survey whose complete index the tally
// already kept on every level (a backfilled survey from before the
// roll-up) switches at a point set once, two hours on: responses below
// it stay on every level, those above go to the leaves and are rolled
// up, and each response is counted once.
func TestResponsePagesSwitch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := time.Now().UTC().Add(-12 * time.Hour).Truncate(time.Hour)
	fx := newRollFixture(t, base.Add(5*time.Minute))
	if err := storetest.PreIndexSurvey(ctx, fx.st, fx.sid); err != nil {
		t.Fatal(err)
	}
	*fx.clock = base.Add(6 * time.Minute)
	if r, err := fx.st.BackfillResponsePages(ctx, fx.sid); err != nil || !r.Complete {
		t.Fatalf("backfill: %+v, %v", r, err)
	}
	recs := fx.responses(t, base.Add(7*time.Minute), 40000, 300) // 5 hours
	*fx.clock = base.Add(8 * time.Minute)
	// The first pass sets the point: two hours after the hour of its clock.
	fx.apply(t, "s", recs[:1], 1)
	point, _, _, err := fx.st.ResponsePagesRollState(ctx, fx.sid)
	if err != nil {
		t.Fatal(err)
	}
	if want := base.Add(2 * time.Hour).Format(survey.TimestampLayout); point != want {
		t.Fatalf("the switch point is %s, want %s", point, want)
	}
	if n := fx.counted(t, "N#"); n != 1 {
		t.Errorf("the root counts %d below the switch point, want 1 (every level)", n)
	}
	for i := 1; i < len(recs); i += 25 {
		*fx.clock = base.Add(time.Duration(8+i) * time.Minute)
		fx.apply(t, "s", recs[i:min(i+25, len(recs))], min(25, len(recs)-i))
		if i == 126 {
			fx.exact(t, 4)
		}
	}
	fx.apply(t, "s", nil, 0)
	fx.exact(t, 1)
	fx.levels(t, base, recs, nil)
}

// levels checks that every level counts each response below the roll-up
// point once: each hour node the responses of its hour, the root all of
// them (recs less the deleted).
func (fx rollFixture) levels(t *testing.T, base time.Time, recs []store.ResponsePageRecord, deleted map[int]bool) {
	t.Helper()
	point, _, _, err := fx.st.ResponsePagesRollState(context.Background(), fx.sid)
	if err != nil {
		t.Fatal(err)
	}
	hours := map[string]int{}
	below := 0
	for i, r := range recs {
		if !deleted[i] && r.Key < point {
			hours[r.Key[:13]]++
			below++
		}
	}
	for h := base; h.Format(survey.TimestampLayout) < point; h = h.Add(time.Hour) {
		if got, want := fx.counted(t, "N#"+h.Format("2006-01-02T15")), hours[h.Format("2006-01-02T15")]; got != want {
			t.Errorf("hour %s counts %d, want %d", h.Format("15"), got, want)
		}
	}
	if got := fx.counted(t, "N#"); got != below || below == 0 {
		t.Errorf("the root counts %d, want %d (of %d, below the roll-up point %s)", got, below, len(recs), point)
	}
}
