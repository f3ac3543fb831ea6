package sending_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/guregu/dynamo/v2"

	"surveyservice/internal/localaws"
	"surveyservice/internal/moto"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/sending"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// uniq is a key no other test uses.
func uniq(prefix string) string { return fmt.Sprintf("%s-%d", prefix, rand.Int64()) }

// TestSpendIsExactUnderRaces: 10 concurrent spends of a budget of 3
// admit exactly 3; the others are 429s in DRF's throttled shape whose
// Retry-After is what is left of the window; a refund gives one back.
func TestSpendIsExactUnderRaces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 27, 14, 20, 0, 0, time.UTC)
	b := sending.NewBudgets(testenv.Store(t), func() time.Time { return now })
	bu := sending.Budget{Scope: "test-address", Key: uniq("k"), Limit: sending.Limit{N: 3, Per: time.Hour}}

	var wg sync.WaitGroup
	var mu sync.Mutex
	var admitted []sending.Spent
	var refused []error
	for range 10 {
		wg.Go(func() {
			s, err := b.Spend(ctx, bu)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				refused = append(refused, err)
				return
			}
			admitted = append(admitted, s)
		})
	}
	wg.Wait()
	if len(admitted) != 3 || len(refused) != 7 {
		t.Fatalf("admitted %d, refused %d; want 3 and 7 (refusals: %v)", len(admitted), len(refused), refused)
	}
	for _, err := range refused {
		rec := httptest.NewRecorder()
		api.Error(rec, httptest.NewRequest(http.MethodGet, "/", nil), err)
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "2400" {
			t.Errorf("refusal: %d Retry-After %q, want 429 2400", rec.Code, rec.Header().Get("Retry-After"))
		}
		testenv.SameJSON(t, "throttled body", rec.Body.Bytes(), `{"detail": "Request was throttled. Expected available in 2400 seconds."}`)
		if !sending.IsThrottled(err) {
			t.Errorf("IsThrottled(%v) false", err)
		}
	}
	if used, err := b.Used(ctx, bu); err != nil || used != 3 {
		t.Fatalf("used %d, %v; want 3", used, err)
	}
	if err := admitted[0].Refund(ctx); err != nil {
		t.Fatal(err)
	}
	if used, err := b.Used(ctx, bu); err != nil || used != 2 {
		t.Fatalf("after a refund: used %d, %v; want 2", used, err)
	}
	if _, err := b.Spend(ctx, bu); err != nil {
		t.Fatalf("the refunded unit: %v", err)
	}
	// The next window starts afresh.
	now = now.Add(time.Hour)
	if _, err := b.Spend(ctx, bu); err != nil {
		t.Fatalf("next window: %v", err)
	}
}

// TestSharedBudgetIsExactAndSpread: a survey's budget (every send of the
// survey spends from it) is spread over store.BudgetShards counters, so
// no one item takes every send's write, and still admits exactly its
// limit under races: 60 concurrent spends of a survey budget of 40
// admit 40 (no shard past its share, more than one shard written), the
// window reads 40, and a refund gives back to the shard it took from.
func TestSharedBudgetIsExactAndSpread(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 27, 15, 20, 0, 0, time.UTC)
	st := testenv.Store(t)
	b := sending.NewBudgets(st, func() time.Time { return now })
	bu := sending.Limits{Survey: sending.Limit{N: 40, Per: time.Hour}}.SurveyBudget("test", rand.Int64N(1<<40))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var admitted []sending.Spent
	refused := 0
	for range 60 {
		wg.Go(func() {
			s, err := b.Spend(ctx, bu)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				admitted = append(admitted, s)
			case sending.IsThrottled(err):
				refused++
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(admitted) != 40 || refused != 20 {
		t.Fatalf("admitted %d, refused %d; want 40 and 20", len(admitted), refused)
	}
	db := dynamo.NewFromIface(st.Client())
	for i := range store.BudgetShards {
		pk := store.BudgetPK(bu.Scope, bu.Key)
		if i > 0 {
			pk += "#" + strconv.Itoa(i)
		}
		var sh struct {
			N int64 `dynamo:"n"`
		}
		// Each shard is a partition key of its own, holding its share.
		w := now.Truncate(time.Hour).Unix()
		if err := db.Table(st.TableName()).Get("PK", pk).Range("SK", dynamo.Equal, store.BudgetSK(w)).Consistent(true).One(ctx, &sh); err != nil {
			t.Fatalf("shard %s: %v (a full budget fills every shard)", pk, err)
		}
		if sh.N > (40+store.BudgetShards-1)/store.BudgetShards {
			t.Errorf("shard %s holds %d, past its share of 40", pk, sh.N)
		}
	}
	if used, err := b.Used(ctx, bu); err != nil || used != 40 {
		t.Fatalf("used %d, %v; want 40", used, err)
	}
	if err := admitted[7].Refund(ctx); err != nil {
		t.Fatal(err)
	}
	if used, err := b.Used(ctx, bu); err != nil || used != 39 {
		t.Fatalf("after a refund: used %d, %v; want 39", used, err)
	}
	if _, err := b.Spend(ctx, bu); err != nil {
		t.Fatalf("the refunded unit: %v", err)
	}
	if _, err := b.Spend(ctx, bu); !sending.IsThrottled(err) {
		t.Fatalf("past the limit again: %v, want a refusal", err)
	}
}

// TestSpendIsAllOrNone: a spend that one budget refuses takes nothing
// from the others (the earlier ones are given back), and answers the
// refusing window's wait.
func TestSpendIsAllOrNone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 27, 23, 0, 0, 0, time.UTC)
	b := sending.NewBudgets(testenv.Store(t), func() time.Time { return now })
	addr := sending.Budget{Scope: "test-address", Key: uniq("a"), Limit: sending.Limit{N: 3, Per: time.Hour}}
	acct := sending.Budget{Scope: "test-account", Key: uniq("acct"), Limit: sending.Limit{N: 1, Per: 24 * time.Hour}}
	if _, err := b.Spend(ctx, addr, acct); err != nil {
		t.Fatal(err)
	}
	_, err := b.Spend(ctx, addr, acct)
	var se *survey.Error
	if !errors.As(err, &se) || se.Code != survey.ETOOMANY || se.RetryAfter != time.Hour {
		t.Fatalf("the account's day is spent: %v, want ETOOMANY after 1h (the day's end)", err)
	}
	if used, _ := b.Used(ctx, addr); used != 1 {
		t.Errorf("the address's budget holds %d, want 1 (the refused spend given back)", used)
	}
	if used, _ := b.Used(ctx, acct); used != 1 {
		t.Errorf("the account's budget holds %d, want 1", used)
	}
}

// TestParseLimits: VERIFY_LIMITS in its documented form, partial, empty,
// and wrong.
func TestParseLimits(t *testing.T) {
	t.Parallel()
	got, err := sending.ParseLimits("survey=1000/h,account=10000/d")
	if err != nil || got != sending.DefaultLimits {
		t.Errorf("the contract's form: %+v, %v", got, err)
	}
	got, err = sending.ParseLimits(" account=5/h ")
	if err != nil || got.Account != (sending.Limit{N: 5, Per: time.Hour}) || got.Survey != sending.DefaultLimits.Survey {
		t.Errorf("account only: %+v, %v", got, err)
	}
	if got, err := sending.ParseLimits(""); err != nil || got != sending.DefaultLimits {
		t.Errorf("empty: %+v, %v", got, err)
	}
	if got := sending.DefaultLimits.Account.String(); got != "10000/d" {
		t.Errorf("String: %q", got)
	}
	for _, bad := range []string{"survey", "survey=10", "survey=0/h", "survey=-1/h", "survey=10/w", "address=3/h", "survey=x/h"} {
		if _, err := sending.ParseLimits(bad); err == nil || !strings.Contains(err.Error(), "VERIFY_LIMITS") {
			t.Errorf("%q: %v, want an error naming VERIFY_LIMITS", bad, err)
		}
	}
}

// TestAWSSenderOnMoto: an email leaves through SES from MAIL_FROM and an
// SMS through SNS to the number, as moto records them; an unverified
// MAIL_FROM fails the send (503, ErrNotSent) and gives the budgets back.
func TestAWSSenderOnMoto(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env, cfg := testenv.Env(t), testenv.Config(t)
	s, from := motoSender(t, map[string]string{"SMS_SENDER_ID": "Survey"})
	b := sending.NewBudgets(testenv.Store(t), nil)
	bu := sending.Budget{Scope: "test-address", Key: uniq("k"), Limit: sending.Limit{N: 3, Per: time.Hour}}
	to := uniq("to") + "@example.org"
	phone := fmt.Sprintf("+1555%07d", rand.IntN(10_000_000))
	email := sending.Message{Channel: sending.ChannelEmail, To: to, Subject: "کد ورود", Body: "کد شما: ۱۲۳۴۵۶"}
	sms := sending.Message{Channel: sending.ChannelSMS, To: phone, Body: "Your code: 123456"}
	if err := sending.Send(ctx, s, b, email, bu); err != nil {
		t.Fatal(err)
	}
	if err := sending.Send(ctx, s, b, sms, bu); err != nil {
		t.Fatal(err)
	}
	emails, texts, err := moto.Sent(ctx, env["AWS_ENDPOINT_URL"])
	if err != nil {
		t.Fatal(err)
	}
	var gotEmail, gotSMS bool
	for _, e := range emails {
		if len(e.Destinations.To) == 1 && e.Destinations.To[0] == to {
			gotEmail = e.Source == from && e.Subject == email.Subject && e.Body == email.Body
		}
	}
	for _, m := range texts {
		if m.PhoneNumber == phone {
			gotSMS = m.Message == sms.Body
		}
	}
	if !gotEmail || !gotSMS {
		t.Errorf("moto holds the email: %v, the SMS: %v", gotEmail, gotSMS)
	}

	// An identity SES has not verified: SES refuses, nothing is spent.
	bad, err := sending.FromEnv(cfg, func(k string) string {
		return map[string]string{"MAIL_FROM": uniq("nobody") + "@unverified.example"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	err = sending.Send(ctx, bad, b, email, bu)
	if !errors.Is(err, sending.ErrNotSent) {
		t.Fatalf("unverified sender: %v, want ErrNotSent", err)
	}
	rec := httptest.NewRecorder()
	api.Error(rec, httptest.NewRequest(http.MethodGet, "/", nil), err)
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("a failed send answers %d, want 503", rec.Code)
	}
	if used, _ := b.Used(ctx, bu); used != 2 {
		t.Errorf("after the failed send the budget holds %d, want 2 (nothing spent)", used)
	}
	if _, err := sending.FromEnv(cfg, func(string) string { return "" }); err == nil {
		t.Error("no MAIL_FROM: no error")
	}
}

// motoSender is the AWS sender on the emulators with vars, from a MAIL_FROM
// of its own that SES has verified: the sender and that address.
func motoSender(t *testing.T, vars map[string]string) (*sending.AWS, string) {
	t.Helper()
	from := uniq("from") + "@example.com"
	if err := localaws.EnsureMailIdentity(context.Background(), testenv.Config(t), from); err != nil {
		t.Fatal(err)
	}
	s, err := sending.FromEnv(testenv.Config(t), func(k string) string {
		if k == "MAIL_FROM" {
			return from
		}
		return vars[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, from
}

// TestEmailSubjectIsOneLine: a subject built from a survey's name, which
// may hold a line break (a PATCH takes it), reaches SES as one line: its
// control characters and line separators a space, so that no header line
// breaks and SES has none to refuse (every code email of such a survey
// would then answer 503). Found by hostile10.
func TestEmailSubjectIsOneLine(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := testenv.Env(t)
	s, _ := motoSender(t, nil)
	for _, tc := range []struct{ subject, want string }{
		{"Your code for Survey\r\nBcc: x@example.org", "Your code for Survey Bcc: x@example.org"},
		{"کد ورود\nنظرسنجی\u2028دوم\t", "کد ورود نظرسنجی دوم"},
		{"Line\u0085next\x00end", "Line next end"},
		{"Plain subject", "Plain subject"},
	} {
		to := uniq("to") + "@example.org"
		if err := s.Send(ctx, sending.Message{Channel: sending.ChannelEmail, To: to, Subject: tc.subject, Body: "b"}); err != nil {
			t.Fatalf("%q: %v", tc.subject, err)
		}
		emails, _, err := moto.Sent(ctx, env["AWS_ENDPOINT_URL"])
		if err != nil {
			t.Fatal(err)
		}
		got := "(none)"
		for _, e := range emails {
			if len(e.Destinations.To) == 1 && e.Destinations.To[0] == to {
				got = e.Subject
			}
		}
		if got != tc.want {
			t.Errorf("subject %q reached SES as %q, want %q", tc.subject, got, tc.want)
		}
	}
}

// TestSMSCarriesTheSenderID: the SNS Publish names the phone number and
// carries SMS_SENDER_ID as AWS.SNS.SMS.SenderID (moto keeps no message
// attributes of an SMS, so the request itself is read).
func TestSMSCarriesTheSenderID(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := new(strings.Builder)
		_, _ = io.Copy(b, r.Body)
		mu.Lock()
		body = b.String()
		mu.Unlock()
		if strings.Contains(r.Header.Get("Content-Type"), "json") {
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			_, _ = io.WriteString(w, `{"MessageId": "m1"}`)
			return
		}
		w.Header().Set("Content-Type", "text/xml")
		_, _ = io.WriteString(w, `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>m1</MessageId></PublishResult>`+
			`<ResponseMetadata><RequestId>r1</RequestId></ResponseMetadata></PublishResponse>`)
	}))
	defer srv.Close()
	cfg := aws.Config{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL),
		Credentials: credentials.NewStaticCredentialsProvider("a", "b", "")}
	s := sending.New(cfg, sending.Config{MailFrom: "x@example.com", SenderID: "Survey"})
	if err := s.Send(context.Background(), sending.Message{Channel: sending.ChannelSMS, To: "+15551230000", Body: "hi"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"AWS.SNS.SMS.SenderID", "Survey", "15551230000", "Transactional"} {
		if !strings.Contains(body, want) {
			t.Errorf("the Publish request lacks %q:\n%s", want, body)
		}
	}
	if err := s.Send(context.Background(), sending.Message{Channel: "fax", To: "1"}); !errors.Is(err, sending.ErrNotSent) {
		t.Errorf("an unknown channel: %v", err)
	}
}

// countingSender counts what it sends, by channel.
type countingSender struct {
	mu   sync.Mutex
	sent map[string]int
}

func (c *countingSender) Send(_ context.Context, m sending.Message) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent[m.Channel]++
	return nil
}

// TestServiceSMSDaily: SMS_DAILY_LIMIT caps the whole service's SMS a day
// (contract section 18 as amended) exactly under 40 racing sends, each to
// another number of another account (no narrower budget refuses): 21 are
// sent with a limit of 21 (more shards than the limit is not divisible
// by), the rest 429 until the UTC day ends; email is not counted; the
// next day sends again.
func TestServiceSMSDaily(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 27, 23, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	b := sending.NewBudgets(testenv.Store(t), clock).WithSMSDaily(21)
	s := &countingSender{sent: map[string]int{}}
	l := sending.DefaultLimits
	var wg sync.WaitGroup
	var throttled sync.Map
	for i := range 40 {
		wg.Go(func() {
			to := fmt.Sprintf("+98912%07d", i)
			err := sending.Send(ctx, s, b, sending.Message{Channel: sending.ChannelSMS, To: to, Body: "code"},
				l.AddressBudget("test", to), l.AccountBudget("test", int64(1000+i)))
			if err != nil {
				throttled.Store(i, err)
			}
		})
	}
	wg.Wait()
	if s.sent[sending.ChannelSMS] != 21 {
		t.Fatalf("sent %d SMS, want exactly 21", s.sent[sending.ChannelSMS])
	}
	throttled.Range(func(_, v any) bool {
		rec := httptest.NewRecorder()
		api.Error(rec, httptest.NewRequest(http.MethodGet, "/", nil), v.(error))
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "3600" {
			t.Errorf("refusal: %d Retry-After %q, want 429 3600", rec.Code, rec.Header().Get("Retry-After"))
		}
		return true
	})
	if n, err := b.ServiceSMSSent(ctx); err != nil || n != 21 {
		t.Errorf("the shards count %d (%v), want 21", n, err)
	}
	if err := sending.Send(ctx, s, b, sending.Message{Channel: sending.ChannelEmail, To: "a@example.com", Body: "code"}); err != nil {
		t.Errorf("an email past the SMS limit: %v", err)
	}
	mu.Lock()
	now = now.Add(2 * time.Hour)
	mu.Unlock()
	if err := sending.Send(ctx, s, b, sending.Message{Channel: sending.ChannelSMS, To: "+989120000001", Body: "code"}); err != nil {
		t.Errorf("the next day's first SMS: %v", err)
	}
}
