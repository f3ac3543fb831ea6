package responders_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/guregu/dynamo/v2"

	"surveyservice/functions/responders"
	"surveyservice/functions/tally"
	"surveyservice/internal/ddbsim"
	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/links"
	"surveyservice/shared/responding"
	"surveyservice/shared/sending"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// The model of DynamoDB's limits (internal/ddbsim) replays what the
// handlers really send: a fixture whose store's DynamoDB client goes
// through a ddbsim.Recorder in front of DynamoDB Local records every
// request of a responder's visit (the page, the session, its partial
// saves, its sign-in, its submission) as the code sends it today, so that
// an item a change adds to a transaction is in the model at once.

// recorded is a verifier (codes into an outbox) whose store's requests go
// through rec, paused until the test resumes it.
type recorded struct {
	verifier
	rec *ddbsim.Recorder
}

func newRecorded(tb testing.TB, limits sending.Limits) recorded {
	tb.Helper()
	env := map[string]string{
		"AWS_ENDPOINT_URL": testenv.Endpoint(tb), "AWS_REGION": "us-east-1",
		"AWS_ACCESS_KEY_ID": testenv.AccessKey(tb), "AWS_SECRET_ACCESS_KEY": "test",
	}
	cfg, err := localaws.Load(context.Background(), awsenv.FromEnv(func(k string) string { return env[k] }))
	if err != nil {
		tb.Fatal(err)
	}
	rec := &ddbsim.Recorder{Next: cfg.HTTPClient}
	rec.Pause()
	ddb := cfg.Copy()
	ddb.HTTPClient = rec
	st := store.New(ddb, testenv.Store(tb).TableName())
	sealer := links.NewSealer(kms.NewFromConfig(cfg), testenv.KMSKeyID(tb), st)
	skew := &atomic.Int64{}
	st.Now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	a, _ := testenv.NewAccount(tb, survey.PlanEnterprise)
	fo, err := st.CreateFolder(context.Background(), a.ID, "Public", nil)
	if err != nil {
		tb.Fatal(err)
	}
	now := func() time.Time { return st.Now() }
	out := &outbox{}
	h := testenv.Conform(responders.New(responders.Deps{
		Store: st, Sealer: sealer, Now: now, Sender: out, Budgets: sending.NewBudgets(st, now), Limits: limits,
	}))
	f := fixture{st: st, sealer: sealer, h: h, aid: a.ID, fid: fo.ID, skew: skew}
	return recorded{verifier: verifier{fixture: f, out: out, ip: newClientIP()}, rec: rec}
}

// visit is one responder's requests, by what they do.
type visit struct {
	view, session, signIn, submit []ddbsim.Request
	// viewBusy is the view as at high rates, where the minute's views
	// fill the views item's set and a view is its record (store.CountView);
	// view is then the view of a minute of its own, as at one a minute.
	viewBusy []ddbsim.Request
	// saves are the partial saves, one per page turn.
	saves [][]ddbsim.Request
}

// visitOpts is what a recorded visit does.
type visitOpts struct {
	// pages: partial saves, one a page, each with the answers so far.
	pages bool
	// signIn: a code sent by email and confirmed before the submission.
	signIn bool
	// english: text answers in English only (else English and Persian).
	english bool
	// viewAt, when set, gives the visit's view two times (the store's
	// clock then): low, a minute no other view has (view), and busy, a
	// minute whose set of the views item is full (viewBusy).
	viewAt func() (low, busy time.Time)
}

// take is the requests recorded since the last take, or fails on a reply
// other than want.
func (r recorded) take(tb testing.TB, what string, got reply, want int) []ddbsim.Request {
	tb.Helper()
	if got.code != want {
		tb.Fatalf("%s: %d %s, want %d", what, got.code, got.body, want)
	}
	return r.rec.Take()
}

// visit records one responder's visit: the page, a session, its saves,
// its sign-in, the submission of answers (a text answer per question id,
// in order).
func (r recorded) visit(tb testing.TB, slug string, questions []int64, o visitOpts, rnd *rand.Rand) visit {
	tb.Helper()
	r.rec.Take()
	r.rec.Resume()
	defer r.rec.Pause()
	var v visit
	if o.viewAt != nil {
		low, busy := o.viewAt()
		v.view, v.viewBusy = r.viewAt(tb, slug, low), r.viewAt(tb, slug, busy)
	} else {
		v.view = r.take(tb, "view", send(tb, r.h, "GET", surveyPath(slug), ""), 200)
		v.viewBusy = v.view
	}
	sr := r.startSession(tb, slug, nil)
	v.session = r.take(tb, "session", sr, 201)
	var out struct{ Session string }
	if err := json.Unmarshal([]byte(sr.body), &out); err != nil {
		tb.Fatal(err)
	}
	sess := out.Session
	// A sign-in survey admits a partial only from a signed-in session
	// (section 18 as amended): the page signs in after its welcome.
	if o.signIn {
		ip := newClientIP()
		addr := fmt.Sprintf("r%d@company.example", rnd.Int64())
		captcha := r.solved(tb, slug) // the challenge's GET: the page asks for one before a code
		sent := postFrom(tb, r.h, verifyPath(slug), map[string]any{"session": sess, "channel": "email", "address": addr, "captcha": captcha}, ip)
		ver := sent.verification(tb)
		conf := postFrom(tb, r.h, confirmPath(slug), map[string]any{"session": sess, "verification": ver, "code": r.out.lastCode(tb, addr)}, ip)
		sess = conf.confirmed(tb)
		v.signIn = r.rec.Take()
	}
	answers := map[string]any{}
	text := freeTextSource
	if o.english {
		text = englishTextSource
	}
	at := rnd.IntN(len(text))
	for i, q := range questions {
		answers[strconv.FormatInt(q, 10)] = freeText(text, &at, 20+rnd.IntN(100))
		if o.pages {
			v.saves = append(v.saves, r.take(tb, "partial save", r.putPartial(tb, slug, map[string]any{"session": sess, "page": i, "answers": answers}), 204))
		}
	}
	// The hosted page's submission: its session's own key (no item of its
	// own: TestSessionOwnKey).
	body := mustJSON(tb, map[string]any{"session": sess, "answers": answers})
	v.submit = r.take(tb, "submission", r.submit(tb, slug, responding.SessionKey(sess), body), 201)
	return v
}

// viewAt records the page's view with the store's clock at at.
func (r recorded) viewAt(tb testing.TB, slug string, at time.Time) []ddbsim.Request {
	tb.Helper()
	was := r.skew.Swap(int64(time.Until(at)))
	defer r.skew.Store(was)
	return r.take(tb, "view", send(tb, r.h, "GET", surveyPath(slug), ""), 200)
}

// viewMinutes gives survey sid's views item a count (as the tally's first
// pass leaves it: a page never makes the item) and fills the set of a
// minute as views at high rates fill it, and answers the times of the
// visits' views (visitOpts.viewAt): low, a minute of each visit's own,
// two apart; busy, that full minute.
func (r recorded) viewMinutes(tb testing.TB, sid int64) func() (low, busy time.Time) {
	tb.Helper()
	ctx := context.Background()
	err := dynamo.NewFromIface(r.st.Client()).Table(r.st.TableName()).Update(store.AttrPK, store.SurveyPK(sid)).Range(store.AttrSK, "VIEWS").
		Add("views", 1).Set("survey_id", sid).Set(store.AttrGSI1PK, store.OwnerKey(r.aid)).Set(store.AttrGSI1SK, store.SurveyViewsOwnerSK(r.fid, sid)).Run(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	// Mid-minute, so that the clock's drift during a view stays in it.
	start := time.Now().Truncate(time.Minute).Add(30 * time.Second)
	busy := start.Add(-30 * time.Minute)
	was := r.skew.Swap(int64(time.Until(busy)))
	for range store.ViewSetCap + 1 { // the set full, and the container told so
		if err := r.st.CountView(ctx, r.aid, r.fid, sid); err != nil {
			tb.Fatal(err)
		}
	}
	r.skew.Store(was)
	k := 0
	return func() (time.Time, time.Time) {
		k++
		return start.Add(time.Duration(2*k) * time.Minute), busy
	}
}

// freeTextSource is what the recorded responders write in text answers
// (freeText):
// sentences as respondents write them, in English and in Persian, so that
// a response's item is as large, and compresses as well, as a real one
// (a run of one letter would compress to nothing).
var freeTextSource = []rune(strings.Join(freeTextSentences, " "))

// englishTextSource is freeTextSource's English sentences.
var englishTextSource = []rune(strings.Join(slices.DeleteFunc(slices.Clone(freeTextSentences), func(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Arabic, r) })
}), " "))

var freeTextSentences = []string{
	"The checkout page took too long to load on my phone, and I had to enter my address twice before it worked.",
	"I like the new menu a lot, but the font is small and the colours make it hard to read outside in the sun.",
	"Our team meets every Monday; the survey came on a Friday evening, so most of us answered it the next week.",
	"Support answered within an hour and fixed the invoice, which was wrong because of the change of plan in May.",
	"ارسال سفارش دو روز دیر شد ولی بسته‌بندی خوب بود و پشتیبانی هم سریع جواب داد.",
	"کلاس‌های آنلاین برای من راحت‌تر است چون مسیر دانشگاه طولانی است و هزینهٔ رفت‌وآمد زیاد شده.",
	"Prices went up twice this year; I would stay if there were a cheaper plan without the reports we never use.",
	"My daughter uses the app for homework; the offline mode would help, since the school's wifi is often down.",
	"I waited on the phone for forty minutes and nobody could tell me why the parcel was sent back to the depot.",
	"قیمت‌ها نسبت به پارسال تقریباً دو برابر شده و کیفیت غذا هم مثل قبل نیست، مخصوصاً آخر هفته‌ها.",
	"The form is clear, although question seven asks about my manager and I do not have one since the reorganisation.",
	"We booked the hall for the wedding in June; the staff were kind but the air conditioning broke twice that evening.",
	"پزشک وقت کافی برای توضیح دادن گذاشت ولی نوبت گرفتن از طریق سایت چند بار خطا داد و مجبور شدم تلفن بزنم.",
	"Delivery drivers leave packages at the gate of our building, where anyone can take them; a locker would solve it.",
	"The course material was good, the exercises less so: half of them repeat the examples with different numbers.",
	"برای سالمندان بهتر است اندازهٔ نوشته‌ها بزرگ‌تر باشد و دکمه‌ها از هم فاصلهٔ بیشتری داشته باشند.",
	"I renewed because of the family discount; without it I would have moved to the cheaper provider my sister uses.",
	"Parking near the clinic is impossible after nine, so I come by bus, which stops right in front of the entrance.",
}

// freeText is the next n characters of text from *at (a random place at
// first), wrapping at its end: a response's answers do not repeat one
// another while they take less than the text (freeTextSource's 1,900
// characters, englishTextSource's 1,400; a response of 12 answers takes
// about 840), as real answers do not (DEFLATE would find the repeats).
func freeText(text []rune, at *int, n int) string {
	var out []rune
	for len(out) < n {
		*at %= len(text)
		k := min(n-len(out), len(text)-*at)
		out = append(out, text[*at:*at+k]...)
		*at += k
	}
	return string(out)
}

// simSurvey is a survey of n text questions with the settings, and their ids.
func (r recorded) simSurvey(tb testing.TB, n int, set map[string]any) (string, int64, []int64) {
	tb.Helper()
	// Made three hours ago, past its page index's switch to the minute
	// leaves (a survey's first two hours write every level: store's
	// bornSwitchAfter), as a survey answered for days is.
	was := r.skew.Swap(int64(-3 * time.Hour))
	slug, sid := r.survey(tb, set)
	r.skew.Store(was)
	var qs []int64
	for i := range n {
		qs = append(qs, r.textQuestion(tb, sid, fmt.Sprintf("Q%d", i+1), false))
	}
	return slug, sid, qs
}

// writtenKeys are the keys of the items the requests write, check aside.
func writtenKeys(reqs []ddbsim.Request) map[string]bool {
	out := map[string]bool{}
	for _, r := range reqs {
		if r.Kind == ddbsim.Read {
			continue
		}
		for _, it := range r.Items {
			if !it.Check {
				out[it.Key] = true
			}
		}
	}
	return out
}

// tableItems are every item of the test's table by key, each as JSON.
func tableItems(tb testing.TB, f fixture) map[string]string {
	tb.Helper()
	var items []map[string]any
	var err error
	for range 3 {
		// DynamoDB Local once cut a Scan's reply of this table short
		// ("deserialization failed, unexpected EOF") in a fresh-clone make
		// test: a read, so it is simply read again.
		items = nil
		if err = f.db().Table(f.st.TableName()).Scan().Consistent(true).All(context.Background(), &items); err == nil {
			break
		}
		tb.Logf("reading the table again: %v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]string{}
	for _, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			tb.Fatal(err)
		}
		out[fmt.Sprint(it["PK"])+"|"+fmt.Sprint(it["SK"])] = string(b)
	}
	return out
}

// TestSimReplaysWhatTheStoreWrites: the requests the model replays are
// the ones DynamoDB receives. For each step of a responder's visit to a
// survey keeping partials and asking for a sign-in (the page, the
// session, the code sent and confirmed, two partial saves, the
// submission), every item the step created, changed or deleted in the
// table is one the recorded requests write (a write the model missed
// fails here: the session's claim, since one response a session); and
// the model's units are DynamoDB's for every read and every single write
// (DynamoDB Local's figures for a transaction are not AWS's: 4 units for
// one Put of 100 bytes, as for two, so those the model keeps by AWS's
// documented rule, 2 a KB an item and 1 a KB an index write).
func TestSimReplaysWhatTheStoreWrites(t *testing.T) {
	r := newRecorded(t, sending.DefaultLimits)
	slug, _, qs := r.simSurvey(t, 2, map[string]any{"partial_responses": true, "service_auth": true, "service_auth_domains": []string{"*@company.example"}})
	sess := r.session(t, slug, nil)
	addr := "sim@company.example"
	captcha := r.solved(t, slug)
	answers := map[string]any{}
	steps := []struct {
		name string
		do   func() reply
		want int
	}{
		{"view", func() reply { return send(t, r.h, "GET", surveyPath(slug), "") }, 200},
		{"session", func() reply { return r.startSession(t, slug, nil) }, 201},
		{"code sent", func() reply {
			return postFrom(t, r.h, verifyPath(slug), map[string]any{"session": sess, "channel": "email", "address": addr, "captcha": captcha}, r.ip)
		}, 202},
		{"code confirmed", func() reply {
			var out struct{ Verification string }
			_ = json.Unmarshal([]byte(lastBody), &out)
			got := postFrom(t, r.h, confirmPath(slug), map[string]any{"session": sess, "verification": out.Verification, "code": r.out.lastCode(t, addr)}, r.ip)
			var s struct{ Session string }
			if json.Unmarshal([]byte(got.body), &s) == nil && s.Session != "" {
				sess = s.Session
			}
			return got
		}, 200},
		{"partial save 1", func() reply {
			answers[strconv.FormatInt(qs[0], 10)] = "one"
			return r.putPartial(t, slug, map[string]any{"session": sess, "page": 0, "answers": answers})
		}, 204},
		{"partial save 2", func() reply {
			answers[strconv.FormatInt(qs[1], 10)] = "two"
			return r.putPartial(t, slug, map[string]any{"session": sess, "page": 1, "answers": answers})
		}, 204},
		{"submission", func() reply { return r.respond(t, slug, sess, answers) }, 201},
	}
	for _, s := range steps {
		before := tableItems(t, r.fixture)
		r.rec.Take()
		r.rec.Resume()
		got := s.do()
		r.rec.Pause()
		lastBody = got.body
		reqs := r.rec.Take()
		if got.code != s.want {
			t.Fatalf("%s: %d %s, want %d", s.name, got.code, got.body, s.want)
		}
		after := tableItems(t, r.fixture)
		written := writtenKeys(reqs)
		var missed []string
		for k, v := range after {
			if before[k] != v && !written[k] {
				missed = append(missed, k)
			}
		}
		for k := range before {
			if _, ok := after[k]; !ok && !written[k] {
				missed = append(missed, k+" (deleted)")
			}
		}
		if len(missed) > 0 {
			t.Errorf("%s: the model does not replay the writes of %v", s.name, missed)
		}
		var wcu, rcu float64
		for _, q := range reqs {
			switch q.Kind {
			case ddbsim.Read:
				u := 0.0
				for _, x := range ddbsim.ReadUnits(q) {
					u += x
				}
				// An empty Query: DynamoDB Local reports 0 units, AWS bills
				// the minimum (a unit strongly consistent), as the model does.
				empty := q.Op == "Query" && !slices.ContainsFunc(q.Items, func(it ddbsim.Item) bool { return it.Key != "" }) && q.Consumed == 0
				if u != q.Consumed && !empty {
					t.Errorf("%s: %s: the model reads %.1f units, DynamoDB %.1f (%+v)", s.name, q.Op, u, q.Consumed, q.Items)
				}
				rcu += u
			case ddbsim.Write:
				if c := ddbsim.Cost(q); c != q.Consumed {
					t.Errorf("%s: %s: the model writes %.1f units, DynamoDB %.1f (%+v)", s.name, q.Op, c, q.Consumed, q.Items)
				}
				wcu += ddbsim.Cost(q)
			case ddbsim.Tx:
				wcu += ddbsim.Cost(q)
			}
		}
		t.Logf("%-15s %2d requests, %4.1f WCU, %4.1f RCU, writes %v", s.name, len(reqs), wcu, rcu, slices.Sorted(func(yield func(string) bool) {
			for k := range written {
				if !yield(k) {
					return
				}
			}
		}))
		if s.name == "submission" && !slices.ContainsFunc(slices.Collect(func(yield func(string) bool) {
			for k := range written {
				if !yield(k) {
					return
				}
			}
		}), func(k string) bool { return strings.Contains(k, "|"+store.SessionSK("")) }) {
			t.Errorf("submission: the session's claim is not among its writes %v", written)
		}
	}
}

// lastBody is the answer of the step before (the code's verification).
var lastBody string

// sumWCU is the write units of the requests, by the model's rules.
func sumWCU(reqs []ddbsim.Request) float64 {
	t := 0.0
	for _, r := range reqs {
		t += ddbsim.Cost(r)
	}
	return t
}

// BenchmarkPartialPages: the write units a response costs with partial
// saves (contract section 20) on surveys of 3, 12, 50 and 100 questions,
// a page each, as the handlers write them: each page turn's PUT (the
// answers so far), and the submission.
//
//	go test -run '^$' -bench PartialPages -benchtime=1x ./functions/responders
func BenchmarkPartialPages(b *testing.B) {
	r := newRecorded(b, sending.DefaultLimits)
	rnd := rand.New(rand.NewPCG(3, 4))
	fmt.Fprintf(os.Stdout, "\n%-6s %12s %12s %12s %12s %12s %14s\n", "pages", "WCU saves", "WCU/turn", "WCU last", "WCU max", "WCU submit", "WCU/response")
	for _, n := range []int{3, 12, 50, 100} {
		slug, _, qs := r.simSurvey(b, n, map[string]any{"partial_responses": true})
		var v visit
		for range b.N {
			v = r.visit(b, slug, qs, visitOpts{pages: true}, rnd)
		}
		saves, last, most := 0.0, 0.0, 0.0
		for _, s := range v.saves {
			last = sumWCU(s)
			saves += last
			most = max(most, last)
		}
		sub := sumWCU(v.submit)
		fmt.Fprintf(os.Stdout, "%-6d %12.0f %12.1f %12.0f %12.0f %12.0f %14.0f\n", n, saves, saves/float64(n), last, most, sub, saves+sub)
		b.ReportMetric(saves+sub, fmt.Sprintf("WCU/response@%dpages", n))
		b.ReportMetric(most, fmt.Sprintf("WCU/save-max@%dpages", n))
	}
}

// simRetry is the callers' policy, as the code has it: a submission's
// transaction cancelled by a conflict is tried again (backoff,
// elements.go: 2 + [0, 8n+8) ms) up to 5 times; single writes and reads
// the SDK retries (awsenv.MaxAttempts).
var simRetry = ddbsim.Retry{
	TxAttempts:    5,
	WriteAttempts: awsenv.MaxAttempts,
	Backoff: func(n int, r *rand.Rand) time.Duration {
		return time.Duration(r.IntN(8*n+8)+2) * time.Millisecond
	},
}

// tallyPasses are the tally function's own passes (functions/tally,
// recorded) over the stream records of the survey's visits: low, each
// record in a pass of its own, as a survey answered about once a minute
// has them; high, all in one batch, as at hundreds a second.
func (r recorded) tallyPasses(tb testing.TB, sid int64) (low, high []ddbsim.Request) {
	tb.Helper()
	pad := fmt.Sprintf("#%020d", sid)
	var recs []events.DynamoDBEventRecord
	for _, shard := range testenv.StreamRecords(tb) {
		for _, rec := range shard {
			if tally.Matches(rec) && strings.Contains(rec.Change.Keys["PK"].String(), pad) {
				recs = append(recs, rec)
			}
		}
	}
	if len(recs) == 0 {
		tb.Fatalf("no stream record of survey %d", sid)
	}
	t := tally.New(tally.Deps{Store: r.st})
	ctx := context.Background()
	pass := func(shard string, batch []events.DynamoDBEventRecord) []ddbsim.Request {
		r.rec.Take()
		r.rec.Resume()
		defer r.rec.Pause()
		ev := events.DynamoDBTimeWindowEvent{TimeWindowProperties: events.TimeWindowProperties{ShardID: shard}}
		ev.Records = batch
		if _, err := t.Handle(ctx, ev); err != nil {
			tb.Fatal(err)
		}
		return r.rec.Take()
	}
	// One stream shard carries a quiet survey's records for hours, each in
	// a batch of its own: each item's checkpoint of that shard is replaced,
	// not one added a record. Its views count themselves (store.CountView):
	// their records are the high rates'.
	for _, rec := range recs {
		if strings.HasPrefix(rec.Change.Keys["SK"].String(), "VIEW#") {
			continue
		}
		low = append(low, pass(fmt.Sprintf("sim-low-%d", sid), []events.DynamoDBEventRecord{rec})...)
	}
	return low, pass(fmt.Sprintf("sim-high-%d", sid), recs)
}

// unitsByItem sums the write units of reqs by the kind of item written
// (its partition key's prefix and its sort key's, an index's copy apart),
// divided by n: where a tally pass's units go.
func unitsByItem(reqs []ddbsim.Request, n int) string {
	by := map[string]float64{}
	for _, r := range reqs {
		if r.Kind == ddbsim.Read {
			continue
		}
		for _, it := range r.Items {
			one := ddbsim.Request{Kind: r.Kind, Items: []ddbsim.Item{it}}
			all := ddbsim.Cost(one)
			one.Items[0].GSIs = nil
			table := ddbsim.Cost(one)
			by[itemKind(it.Key)] += table
			if all > table {
				by[itemKind(it.Key)+" (GSI)"] += all - table
			}
		}
	}
	return perResponse(by, n)
}

// itemKind names an item's kind: its partition key's first part and its
// sort key's up to its first "#" or digit (SURVEY/VIEWS, RPAGES/N).
func itemKind(key string) string {
	pk, sk, _ := strings.Cut(key, "|")
	pk, _, _ = strings.Cut(pk, "#")
	if i := strings.IndexAny(sk, "#0123456789"); i >= 0 {
		sk = sk[:i]
	}
	return pk + "/" + sk
}

// readsByItem is the read units of reqs, per response over n, by
// operation and the kind of the first item it read ("nothing" for a
// read that found none).
func readsByItem(reqs []ddbsim.Request, n int) string {
	by := map[string]float64{}
	for _, r := range reqs {
		if r.Kind != ddbsim.Read {
			continue
		}
		what := "nothing"
		if len(r.Items) > 0 {
			what = itemKind(r.Items[0].Key)
		}
		for _, u := range ddbsim.ReadUnits(r) {
			by[r.Op+" "+what] += u
		}
	}
	return perResponse(by, n)
}

// perResponse writes units by name, per response over n, and their sum.
func perResponse(by map[string]float64, n int) string {
	names := make([]string, 0, len(by))
	total := 0.0
	for k, v := range by {
		names = append(names, k)
		total += v
	}
	slices.Sort(names)
	var out []string
	for _, k := range names {
		out = append(out, fmt.Sprintf("%s %.2f", k, by[k]/float64(n)))
	}
	return fmt.Sprintf("%.2f: %s", total/float64(n), strings.Join(out, ", "))
}

// viralOnly runs one variant of BenchmarkViralResponders (plain,
// partials, sign-in, both): -args -viral=plain.
var viralOnly = flag.String("viral", "", "BenchmarkViralResponders: run only this variant")

// BenchmarkViralResponders replays the handlers' own requests (recorded
// on DynamoDB Local through ddbsim.Recorder) against DynamoDB's rules at
// 1 a minute, 100, 1,000 and 5,000 responders a second on one survey of
// 12 questions: each responder's page view, session and submission, with
// and without partial saves (a page a question) and a sign-in (a code
// sent by email and confirmed), beside the tally function's passes over
// the visits' stream records (tallyPasses: at 1 a minute each record in a
// pass of its own, at 100 a second and more all of 32 visits in one) and
// an owner's settings change a second. Printed by flow: 503s, write and
// read units per operation, and, per run, the hottest partitions and the
// write units a response costs all in.
//
//	go test -run '^$' -bench ViralResponders -benchtime=1x ./functions/responders
func BenchmarkViralResponders(b *testing.B) {
	// Budgets wide enough for the recorded visits (each from a client and
	// to an address of its own); what they write is the same.
	wide := sending.Limit{N: 1 << 20, Per: time.Hour}
	r := newRecorded(b, sending.Limits{Address: wide, Client: wide, Survey: wide, Account: wide})
	rnd := rand.New(rand.NewPCG(5, 6))
	ctx := context.Background()
	type variant struct {
		name string
		o    visitOpts
		set  map[string]any
	}
	variants := []variant{
		{"plain", visitOpts{}, nil},
		{"partials", visitOpts{pages: true}, map[string]any{"partial_responses": true}},
		{"sign-in", visitOpts{signIn: true}, map[string]any{"service_auth": true, "service_auth_domains": []string{"*@company.example"}}},
		{"both", visitOpts{pages: true, signIn: true},
			map[string]any{"partial_responses": true, "service_auth": true, "service_auth_domains": []string{"*@company.example"}}},
	}
	for range b.N {
		for _, vr := range variants {
			if *viralOnly != "" && vr.name != *viralOnly {
				continue
			}
			slug, sid, qs := r.simSurvey(b, 12, vr.set)
			o := vr.o
			o.viewAt = r.viewMinutes(b, sid)
			var visits []visit
			for range 32 {
				visits = append(visits, r.visit(b, slug, qs, o, rnd))
			}
			// Each simulated session has a session hash of its own (and so
			// its own partitions), as distinct sessions have: a save of a
			// session every page turn, a submission one.
			pool := func(get func(visit) [][]ddbsim.Request) func(int) []ddbsim.Request {
				var all [][]ddbsim.Request
				for _, v := range visits {
					all = append(all, get(v)...)
				}
				return ddbsim.PoolRespelled(all, distinctSessions(len(all)/len(visits)))
			}
			one := func(f func(visit) []ddbsim.Request) func(visit) [][]ddbsim.Request {
				return func(v visit) [][]ddbsim.Request { return [][]ddbsim.Request{f(v)} }
			}
			low, high := r.tallyPasses(b, sid)
			fmt.Fprintf(os.Stdout, "\n%s: the tally at 1 a minute, write units a response by item: %s\n", vr.name, unitsByItem(low, len(visits)))
			var subs []ddbsim.Request
			for _, v := range visits {
				subs = append(subs, v.submit...)
			}
			fmt.Fprintf(os.Stdout, "%s: the submission, write units by item: %s\n", vr.name, unitsByItem(subs, len(visits)))
			fmt.Fprintf(os.Stdout, "%s: the tally at 1 a minute, read units a response by request: %s\n", vr.name, readsByItem(low, len(visits)))
			r.rec.Resume()
			if err := r.st.UpdateSettings(ctx, r.aid, sid, store.SettingsUpdate{Set: map[string]any{"hide_progressbar": true}}); err != nil {
				b.Fatal(err)
			}
			patch := r.rec.Take()
			r.rec.Pause()
			fmt.Fprintf(os.Stdout, "\n%s: %-9s %-13s %7s %6s %9s %9s %9s  %s\n", vr.name, "rate/s", "flow", "ops", "503", "WCU/op", "RCU/op", "p99", "")
			for _, rate := range []float64{1.0 / 60, 100, 1000, 5000} {
				d, tally := 5*time.Second, high
				if rate < 1 {
					d, tally = time.Hour, low
				}
				view := func(v visit) []ddbsim.Request { return v.viewBusy } // a record: the minute's set is full
				if rate < 1 {
					view = func(v visit) []ddbsim.Request { return v.view } // the views item, itself
				}
				flows := []ddbsim.Flow{
					{Name: "view", Rate: rate, Next: pool(one(view))},
					{Name: "session", Rate: rate, Next: pool(one(func(v visit) []ddbsim.Request { return v.session }))},
					{Name: "submit", Rate: rate, Next: pool(one(func(v visit) []ddbsim.Request { return v.submit }))},
					{Name: "tally", Rate: rate / float64(len(visits)), Next: func(int) []ddbsim.Request { return tally }},
					{Name: "owner PATCH", Rate: min(1, rate), Next: func(int) []ddbsim.Request { return patch }},
				}
				if vr.o.pages {
					flows = append(flows, ddbsim.Flow{Name: "partial save", Rate: rate * float64(len(qs)), Next: pool(func(v visit) [][]ddbsim.Request { return v.saves })})
				}
				if vr.o.signIn {
					flows = append(flows, ddbsim.Flow{Name: "sign-in", Rate: rate, Next: pool(one(func(v visit) []ddbsim.Request { return v.signIn }))})
				}
				res := ddbsim.Run(ddbsim.DefaultRules, simRetry, d, 7, flows...)
				allIn, reads, busy := 0.0, 0.0, 0
				for _, f := range res.Flows {
					per := map[string]float64{"partial save": float64(len(qs)), "tally": 1 / float64(len(visits)), "owner PATCH": 0}
					k, ok := per[f.Name]
					if !ok {
						k = 1
					}
					allIn += k * f.WCUPerOp
					reads += k * f.RCUPerOp
					busy += f.Busy
					fmt.Fprintf(os.Stdout, "%s: %-9.3g %-13s %7d %6d %9.1f %9.1f %9s\n", vr.name, rate, f.Name, f.Ops, f.Busy, f.WCUPerOp, f.RCUPerOp, f.P99.Round(time.Millisecond/10))
				}
				fmt.Fprintf(os.Stdout, "%s: %-9.3g all in: %.1f WCU and %.1f RCU a response; hottest %s (%.0f WCU/s), reads %s (%.0f RCU/s)\n",
					vr.name, rate, allIn, reads, res.HotPartition, res.HotWCU, res.HotReadPartition, res.HotRCU)
				surveyRCU, copyRCU := surveyReads(res.ReadRCU, sid)
				fmt.Fprintf(os.Stdout, "%s: %-9.3g the survey item reads %.0f RCU/s, its hottest state copy %.0f; the page index writes %.0f WCU/s\n",
					vr.name, rate, surveyRCU, copyRCU, res.WriteWCU[store.ResponsePagesPK(sid)])
				b.ReportMetric(allIn, fmt.Sprintf("WCU/response/%s@%.3g/s", vr.name, rate))
				b.ReportMetric(float64(busy), fmt.Sprintf("503/%s@%.3g/s", vr.name, rate))
			}
		}
	}
}

// surveyReads is what the survey item of sid and the hottest read copy
// of its state read a second, of a run's reads by partition.
func surveyReads(read map[string]float64, sid int64) (item, hottestCopy float64) {
	for k := range store.SurveyStateCopies {
		hottestCopy = max(hottestCopy, read[store.SurveyStatePK(sid, k)])
	}
	return read[store.SurveyPK(sid)], hottestCopy
}

// distinctSessions respells a replayed operation (the i-th of its flow;
// every consecutive operations are one session's, as a visit's page
// turns are) as a session of its own: the recorded session's hash, an
// Idempotency-Key's and a response id become ones of that simulated
// session's, and with them the partitions the store derives from them
// (SessionPK, PartialsKey, IdempotencyShard, ResponseShard), a read that
// found nothing included. A replay of 32 recorded sessions would put
// every operation in the 32 sessions' partitions (4 of 32 on one index
// shard, 1,362 write units a second at 1,000 responses a second), which
// the distinct sessions of a real survey spread.
func distinctSessions(every int) func(i int, reqs []ddbsim.Request) []ddbsim.Request {
	return func(i int, reqs []ddbsim.Request) []ddbsim.Request {
		n := i / max(every, 1)
		fresh := func(old string) string {
			sum := sha256.Sum256([]byte(fmt.Sprint(old, "#", n)))
			return hex.EncodeToString(sum[:])
		}
		moved := map[string]string{} // a recorded session partition -> the simulated one
		respell := func(it *ddbsim.Item) {
			pk, sk, ok := strings.Cut(it.Key, "|")
			if base, _, copied := strings.Cut(pk, "#STATE#"); ok && copied && sk == store.SurveyStateSK {
				// The read copy of the survey's state the session's token
				// (a save) or the response's id (the fence) picks.
				b, _ := strconv.ParseUint(fresh("state")[:2], 16, 8)
				it.Partition = fmt.Sprintf("%s#STATE#%d", base, int(b)%store.SurveyStateCopies)
				it.Key = it.Partition + "|" + sk
				return
			}
			if rest, isView := strings.CutPrefix(pk, "VIEWLOG#"); ok && isView && len(rest) > 20 {
				// A view record's shard is random (store.CountView): each
				// simulated view its own, not its recorded visit's (16
				// recorded visits left a shard 4 of them about one run in
				// four, 1,250 units a second at 5,000 views).
				b, _ := strconv.ParseUint(fresh("view")[:2], 16, 8)
				it.Partition = fmt.Sprintf("VIEWLOG#%s#%d", rest[:20], int(b)%store.ViewShards)
				it.Key = it.Partition + "|" + sk
				return
			}
			if rest, isEntry := strings.CutPrefix(pk, "PIDX#"); ok && isEntry && len(rest) > 20 {
				// A partial's list entry: the shard its simulated session's
				// hash picks (the partial's id stands for the session).
				_, id, _ := strings.Cut(sk, "#")
				b, _ := strconv.ParseUint(fresh("entry#" + id)[2:4], 16, 8)
				sid, _ := strconv.ParseInt(rest[:20], 10, 64)
				it.Partition = store.PartialEntryPK(sid, int(b)%store.PartialShards)
				it.Key = it.Partition + "|" + sk
				return
			}
			// A session's own partition (SESSION#<sid>#<hash>) or one of
			// the responses' (RESPONSES#<sid>[#k]).
			prefix := "RESPONSES#"
			if strings.HasPrefix(pk, "SESSION#") {
				prefix = "SESSION#"
			}
			if !ok || !strings.HasPrefix(pk, prefix) || len(pk) < len(prefix)+20 {
				return
			}
			sid, err := strconv.ParseInt(pk[len(prefix):len(prefix)+20], 10, 64)
			if err != nil {
				return
			}
			gsi := func(prefix, to string) {
				for g, p := range it.GSIs {
					if strings.HasPrefix(p, prefix) {
						it.GSIs[g] = to
					}
				}
			}
			switch {
			case strings.HasPrefix(sk, store.SessionSK("")) && len(sk) >= len(store.SessionSK(""))+64:
				h := sk[len(store.SessionSK("")) : len(store.SessionSK(""))+64]
				nh := fresh(h)
				npk := store.SessionPK(sid, nh)
				if prefix == "RESPONSES#" {
					npk = store.SessionLegacyPK(sid, nh) // a session sealed before its own partition
				}
				moved[it.Partition] = npk
				it.Key, it.Partition = npk+"|"+store.SessionSK(nh)+sk[len(store.SessionSK(h)):], npk
				gsi("GSI1:PARTIALS#", "GSI1:"+store.PartialsKey(sid, store.PartialShard(nh)))
			case strings.HasPrefix(sk, "IDEM#"):
				nh := fresh(sk)
				it.Partition = store.ResponsesShardPK(sid, store.IdempotencyShard(nh))
				it.Key = it.Partition + "|" + sk
			case strings.HasPrefix(sk, "RESPONSE#"):
				b, _ := hex.DecodeString(fresh(sk)[:16])
				var rid int64
				for _, x := range b {
					rid = rid<<8 | int64(x)
				}
				shard := store.ResponseShard(rid)
				it.Partition = store.ResponsesShardPK(sid, shard)
				it.Key = it.Partition + "|" + sk
				gsi("GSI1:RTIME#", "GSI1:"+store.ResponseTimeShardKey(sid, shard))
			}
		}
		for r := range reqs {
			for j := range reqs[r].Items {
				respell(&reqs[r].Items[j])
			}
		}
		for r := range reqs {
			for j, it := range reqs[r].Items {
				if to, ok := moved[it.Partition]; ok && it.Key == "" {
					reqs[r].Items[j].Partition = to // a Query of the session's items that found none
				}
			}
		}
		return reqs
	}
}

// TestPartialSaveWritesOnlyWhatChanged: a partial saved page by page on a
// survey of 40 questions (a page each) costs the same at its last page as
// at its first: each PUT writes 3 units whatever the page count, never
// more: its list entry (PIDX#<sid>#<shard>), the session's header or,
// when the answers changed since the last delta pass 300 bytes, a delta
// instead, and the delete of its entry before; nothing else, and nothing
// in a partition of the survey's that is not its shard. An answer changed and one taken back on
// earlier pages show in the partial as read by the session (resume), by
// the owner's list, and by response.partial's reader of a stream image.
func TestPartialSaveWritesOnlyWhatChanged(t *testing.T) {
	r := newRecorded(t, sending.DefaultLimits)
	ctx := context.Background()
	slug, sid, qs := r.simSurvey(t, 40, map[string]any{"partial_responses": true})
	sess := r.session(t, slug, nil)
	hash := sha256.Sum256([]byte(sess))
	claim := hex.EncodeToString(hash[:])
	answers := map[string]any{}
	var deltas int
	for i, q := range qs {
		answers[strconv.FormatInt(q, 10)] = fmt.Sprintf("answer %02d %s", i, strings.Repeat("x", 40))
		switch i {
		case 20:
			answers[strconv.FormatInt(qs[3], 10)] = "changed on page 20"
		case 30:
			delete(answers, strconv.FormatInt(qs[5], 10))
		}
		r.rec.Take()
		r.rec.Resume()
		got := r.putPartial(t, slug, map[string]any{"session": sess, "page": i, "answers": answers})
		r.rec.Pause()
		reqs := r.rec.Take()
		if got.code != 204 {
			t.Fatalf("page %d: %d %s", i, got.code, got.body)
		}
		wcu, puts := 0.0, 0
		for _, q := range reqs {
			if q.Kind == ddbsim.Read {
				continue
			}
			// The copies of the survey's state are written whole with the
			// survey (surveystate.go): a save never writes one.
			if slices.ContainsFunc(q.Items, func(it ddbsim.Item) bool { return strings.Contains(it.Key, "#STATE#") }) {
				t.Errorf("page %d: a copy of the survey's state written: %+v", i, q)
			}
			wcu += ddbsim.Cost(q)
			for _, it := range q.Items {
				if strings.Contains(it.Key, "#D#") {
					deltas++
				}
				if !strings.Contains(it.Key, "COUNTER#") {
					puts++
				}
			}
		}
		if wcu > 3 || puts > 3 {
			t.Errorf("page %d: %.1f WCU in %d writes, want at most 3: %+v", i, wcu, puts, reqs)
		}
		for _, q := range reqs {
			for _, it := range q.Items {
				if strings.HasPrefix(it.Partition, "PIDX#") && it.Partition != store.PartialEntryPK(sid, store.PartialShard(claim)) {
					t.Errorf("page %d: an entry in another shard: %+v", i, it)
				}
			}
		}
	}
	if deltas < 3 {
		t.Fatalf("%d deltas written over 40 pages: the test does not reach them", deltas)
	}
	want := map[int64]string{}
	for k, v := range answers {
		id, _ := strconv.ParseInt(k, 10, 64)
		want[id] = `"` + v.(string) + `"`
	}
	same := func(what string, got map[int64]json.RawMessage) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %d answers, want %d", what, len(got), len(want))
		}
		for id, v := range want {
			if string(got[id]) != v {
				t.Errorf("%s: answer %d is %s, want %s", what, id, got[id], v)
			}
		}
	}
	p, found, err := r.st.SessionPartial(ctx, sid, claim, false)
	if err != nil || !found || p.LastPage != 39 {
		t.Fatalf("the session's partial: %+v %v %v", p, found, err)
	}
	same("the session's partial", p.Answers)
	page, err := r.st.PartialsPage(ctx, sid, store.PartialQuery{})
	if err != nil || len(page.Partials) != 1 {
		t.Fatalf("the owner's list: %+v %v", page, err)
	}
	same("the owner's list", page.Partials[0].Answers)
	// One entry left of 40 saves: each deleted the one before.
	var entries []struct {
		Base    int    `dynamo:"delta_base"`
		Deltas  int    `dynamo:"deltas"`
		Answers string `dynamo:"answers"`
	}
	if err := r.db().Table(r.st.TableName()).Get("PK", store.PartialEntryPK(sid, store.PartialShard(claim))).Consistent(true).All(ctx, &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("%d entries of one partial: %+v", len(entries), entries)
	}
	head := entries[0]
	got, err := r.st.PartialAnswers(ctx, store.PartialHead{Session: claim, Base: head.Base, Deltas: head.Deltas, Pending: head.Answers, ID: p.ID, SurveyID: sid,
		PartitionKey: store.SessionPK(sid, claim)})
	if err != nil {
		t.Fatal(err)
	}
	same("response.partial's reader", got)
}

// TestPartialsListedAcrossShards: partials of many sessions (over the 32
// index shards) list newest change first, page by page through the
// cursor, each once, and within submitted_after / submitted_before.
func TestPartialsListedAcrossShards(t *testing.T) {
	r := newRecorded(t, sending.DefaultLimits)
	ctx := context.Background()
	_, sid, qs := r.simSurvey(t, 1, map[string]any{"partial_responses": true})
	base := time.Now().Add(-2 * time.Hour).UTC().Truncate(time.Second)
	st := r.st
	n := 0
	st.Now = func() time.Time { return base.Add(time.Duration(n) * time.Minute) }
	const total = 45
	for n = range total {
		sum := sha256.Sum256([]byte(fmt.Sprint("listed ", n)))
		if _, _, err := st.SavePartial(ctx, store.PartialWrite{SurveyID: sid, Session: hex.EncodeToString(sum[:]), StartedAt: base,
			Answers: map[int64]json.RawMessage{qs[0]: json.RawMessage(fmt.Sprintf(`"%d"`, n))}}); err != nil {
			t.Fatal(err)
		}
	}
	n = total
	for _, tc := range []struct {
		name     string
		q        store.PartialQuery
		from, to int // the answers listed, newest first: from down to to
	}{
		{"all", store.PartialQuery{Limit: 7}, total - 1, 0},
		{"bounded", store.PartialQuery{Limit: 4, After: base.Add(9 * time.Minute), Before: base.Add(30 * time.Minute)}, 29, 10},
	} {
		var got []string
		q := tc.q
		for pages := 0; ; pages++ {
			page, err := st.PartialsPage(ctx, sid, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Partials) > q.Limit || pages > total {
				t.Fatalf("%s: a page of %d, limit %d", tc.name, len(page.Partials), q.Limit)
			}
			for _, p := range page.Partials {
				got = append(got, string(p.Answers[qs[0]]))
			}
			if page.Next == "" {
				break
			}
			q.Cursor = page.Next
		}
		var want []string
		for i := tc.from; i >= tc.to; i-- {
			want = append(want, fmt.Sprintf(`"%d"`, i))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: listed %v, want %v", tc.name, got, want)
		}
	}
}

// TestViralPartialsReadOffTheSurveyItem: the model (DynamoDB's limits,
// replaying the handlers' recorded requests, each simulated session its
// own) at 1,000 responses a second on one survey of 12 questions, a page
// each, with partial saves: no partition is read past 90 % of the 3,000
// units a second one serves (the survey item, the copies of its state,
// the owner's account), where every save reading the survey item asked
// it some 13,000; and fewer than 1 % of the saves answer 503. No
// submission answers 503, and no partition (or index partition) is
// written past 90 % of its 1,000 units a second: the sessions' items are
// on partitions of their own (a third of the submissions answered 503
// when they shared the responses' 16, each asked 1,250 units a second).
func TestViralPartialsReadOffTheSurveyItem(t *testing.T) {
	r := newRecorded(t, sending.DefaultLimits)
	rnd := rand.New(rand.NewPCG(8, 9))
	slug, _, qs := r.simSurvey(t, 12, map[string]any{"partial_responses": true})
	var visits []visit
	for range 16 {
		visits = append(visits, r.visit(t, slug, qs, visitOpts{pages: true}, rnd))
	}
	pool := func(get func(visit) [][]ddbsim.Request) func(int) []ddbsim.Request {
		var all [][]ddbsim.Request
		for _, v := range visits {
			all = append(all, get(v)...)
		}
		return ddbsim.PoolRespelled(all, distinctSessions(len(all)/len(visits)))
	}
	one := func(f func(visit) []ddbsim.Request) func(visit) [][]ddbsim.Request {
		return func(v visit) [][]ddbsim.Request { return [][]ddbsim.Request{f(v)} }
	}
	const rate = 1000
	res := ddbsim.Run(ddbsim.DefaultRules, simRetry, 3*time.Second, 7,
		ddbsim.Flow{Name: "view", Rate: rate, Next: pool(one(func(v visit) []ddbsim.Request { return v.view }))},
		ddbsim.Flow{Name: "session", Rate: rate, Next: pool(one(func(v visit) []ddbsim.Request { return v.session }))},
		ddbsim.Flow{Name: "submit", Rate: rate, Next: pool(one(func(v visit) []ddbsim.Request { return v.submit }))},
		ddbsim.Flow{Name: "partial save", Rate: rate * float64(len(qs)), Next: pool(func(v visit) [][]ddbsim.Request { return v.saves })})
	t.Logf("hottest read %s at %.0f units a second; hottest write %s at %.0f", res.HotReadPartition, res.HotRCU, res.HotPartition, res.HotWCU)
	if res.HotRCU > 0.9*ddbsim.DefaultRules.PartitionRCU {
		t.Errorf("%s is read %.0f units a second, past 90 %% of %.0f", res.HotReadPartition, res.HotRCU, ddbsim.DefaultRules.PartitionRCU)
	}
	for _, f := range res.Flows {
		t.Logf("%-13s %6d ops %5d × 503, %.1f RCU/op", f.Name, f.Ops, f.Busy, f.RCUPerOp)
		if f.Name == "partial save" && f.Busy*100 >= f.Ops {
			t.Errorf("%d of %d saves answered 503, want under 1 %%", f.Busy, f.Ops)
		}
		if f.Name == "submit" && f.Busy > 0 {
			t.Errorf("%d of %d submissions answered 503, want none", f.Busy, f.Ops)
		}
	}
	if res.HotWCU > 0.9*ddbsim.DefaultRules.PartitionWCU {
		t.Errorf("%s is written %.0f units a second, past 90 %% of %.0f", res.HotPartition, res.HotWCU, ddbsim.DefaultRules.PartitionWCU)
	}
}

// TestViralRespondersReadOffTheSurveyItem: at 1,000 responders a second
// on one survey, plain and with a sign-in, and five page views a
// responder (a viral survey is viewed more than it is answered), the
// survey item is read at most a third of the 3,000 units a second one
// item serves, no read copy of its state past 90 % of them, and no view,
// session, sign-in or submission answers 503. (Before, every view,
// session, challenge and code send read the survey item: 2,033 units a
// second plain, 2,555 with sign-in, at one view a responder.)
func TestViralRespondersReadOffTheSurveyItem(t *testing.T) {
	r := newRecorded(t, sending.Limits{Address: wideBudget, Client: wideBudget, Survey: wideBudget, Account: wideBudget})
	rnd := rand.New(rand.NewPCG(10, 11))
	for _, vr := range []struct {
		name string
		o    visitOpts
		set  map[string]any
	}{
		{"plain", visitOpts{}, nil},
		{"sign-in", visitOpts{signIn: true}, map[string]any{"service_auth": true, "service_auth_domains": []string{"*@company.example"}}},
	} {
		slug, sid, qs := r.simSurvey(t, 12, vr.set)
		// A container reads the survey's collection once; the recorded
		// visits are a warm container's (the model's rates are thousands
		// of visits to containers that have read it).
		send(t, r.h, "GET", surveyPath(slug), "")
		var visits []visit
		for range 16 {
			visits = append(visits, r.visit(t, slug, qs, vr.o, rnd))
		}
		pool := func(f func(visit) []ddbsim.Request) func(int) []ddbsim.Request {
			var all [][]ddbsim.Request
			for _, v := range visits {
				all = append(all, f(v))
			}
			return ddbsim.PoolRespelled(all, distinctSessions(1))
		}
		const rate = 1000
		flows := []ddbsim.Flow{
			{Name: "view", Rate: 5 * rate, Next: pool(func(v visit) []ddbsim.Request { return v.view })},
			{Name: "session", Rate: rate, Next: pool(func(v visit) []ddbsim.Request { return v.session })},
			{Name: "submit", Rate: rate, Next: pool(func(v visit) []ddbsim.Request { return v.submit })},
		}
		if vr.o.signIn {
			flows = append(flows, ddbsim.Flow{Name: "sign-in", Rate: rate, Next: pool(func(v visit) []ddbsim.Request { return v.signIn })})
		}
		res := ddbsim.Run(ddbsim.DefaultRules, simRetry, 3*time.Second, 7, flows...)
		item, hottest := surveyReads(res.ReadRCU, sid)
		t.Logf("%s: the survey item reads %.0f units a second, the hottest copy of its state %.0f", vr.name, item, hottest)
		if item > ddbsim.DefaultRules.PartitionRCU/3 {
			t.Errorf("%s: the survey item is read %.0f units a second, past a third of %.0f", vr.name, item, ddbsim.DefaultRules.PartitionRCU)
			// Which recorded requests did: seen once in a whole package's
			// run under load (1,245 units, from 1 of 16 visits), never alone.
			for i, v := range visits {
				for name, reqs := range map[string][]ddbsim.Request{"view": v.view, "session": v.session, "submit": v.submit, "sign-in": v.signIn} {
					for _, q := range reqs {
						for _, it := range q.Items {
							if strings.HasPrefix(it.Key, store.SurveyPK(sid)+"|") {
								t.Logf("%s: visit %d's %s: %s of %s (consistent %v, %.1f units)", vr.name, i, name, q.Op, it.Key, q.Consistent, q.Consumed)
							}
						}
					}
				}
			}
		}
		if hottest > 0.9*ddbsim.DefaultRules.PartitionRCU {
			t.Errorf("%s: a copy of the survey's state is read %.0f units a second, past 90 %% of %.0f", vr.name, hottest, ddbsim.DefaultRules.PartitionRCU)
		}
		for _, f := range res.Flows {
			t.Logf("%s: %-8s %6d ops %5d × 503, %.1f RCU/op", vr.name, f.Name, f.Ops, f.Busy, f.RCUPerOp)
			if f.Busy > 0 {
				t.Errorf("%s: %d of %d %s answered 503", vr.name, f.Busy, f.Ops, f.Name)
			}
		}
	}
}

// wideBudget is a sending budget no recorded visit reaches.
var wideBudget = sending.Limit{N: 1 << 20, Per: time.Hour}

// TestWarmRoutesReadNoSurveyItem: on a warm container, a responder's
// whole visit (the page, the session, the challenge, the code sent and
// confirmed, the submission) sends DynamoDB no request that names the
// survey item: each reads a read copy of the survey's state instead
// (surveystate.go), whose partition is its own.
func TestWarmRoutesReadNoSurveyItem(t *testing.T) {
	r := newRecorded(t, sending.Limits{Address: wideBudget, Client: wideBudget, Survey: wideBudget, Account: wideBudget})
	rnd := rand.New(rand.NewPCG(12, 13))
	slug, sid, qs := r.simSurvey(t, 3, map[string]any{"service_auth": true, "service_auth_domains": []string{"*@company.example"}})
	r.visit(t, slug, qs, visitOpts{signIn: true}, rnd) // warms the container
	v := r.visit(t, slug, qs, visitOpts{signIn: true}, rnd)
	item := store.SurveyPK(sid) + "|" + store.SurveySK
	for name, reqs := range map[string][]ddbsim.Request{"view": v.view, "session": v.session, "sign-in": v.signIn, "submission": v.submit} {
		copies := 0
		for _, q := range reqs {
			for _, it := range q.Items {
				if it.Key == item || it.Partition == store.SurveyPK(sid) {
					t.Errorf("%s: %s names %s", name, q.Op, it.Key)
				}
				if strings.HasPrefix(it.Partition, store.SurveyPK(sid)+"#STATE#") {
					copies++
				}
			}
		}
		if copies == 0 {
			t.Errorf("%s: read no copy of the survey's state", name)
		}
	}
}

// TestResponseItemSizes: the response item of the benchmark's responses
// (12 text answers of 20-120 characters of free text), measured as the
// recorder measures what a request writes (DynamoDB's item size), is
// under 1 KB, in English and in English and Persian (2 bytes a Persian
// letter): 2 write units in the submission's transaction and 1 for its
// GSI1 copy. The plain documents made them 1.1-1.5 KB and 1.3-1.7 KB (4
// and 2 units); DEFLATE alone 0.8-0.95 KB and 0.92-1.15 KB, most of the
// mixed ones still past 1 KB; brotli 0.68-0.8 KB and 0.78-0.96 KB
// (docs/scale.md).
func TestResponseItemSizes(t *testing.T) {
	r := newRecorded(t, sending.DefaultLimits)
	slug, _, qs := r.simSurvey(t, 12, nil)
	for _, c := range []struct {
		name    string
		english bool
		most    int
	}{{"English", true, 1023}, {"English and Persian", false, 1023}} {
		rnd := rand.New(rand.NewPCG(5, 6))
		var sizes []int
		for range 16 {
			v := r.visit(t, slug, qs, visitOpts{english: c.english}, rnd)
			for _, q := range v.submit {
				for _, it := range q.Items {
					if _, sk, _ := strings.Cut(it.Key, "|"); q.Kind == ddbsim.Tx && strings.HasPrefix(sk, "RESPONSE#") {
						sizes = append(sizes, it.Bytes)
					}
				}
			}
		}
		t.Logf("%s: response items, bytes: %v", c.name, sizes)
		if len(sizes) != 16 {
			t.Fatalf("%s: %d response items among the submissions' transactions, want 16", c.name, len(sizes))
		}
		for i, n := range sizes {
			if n > c.most {
				t.Errorf("%s: response %d: its item is %d bytes, want at most %d", c.name, i, n, c.most)
			}
		}
	}
}
