package sending

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"surveyservice/shared/ratelimit"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Limit is a budget's size: N messages a fixed window of Per (an hour, a
// day), windows aligned on UTC.
type Limit struct {
	N   int64
	Per time.Duration
}

func (l Limit) String() string {
	switch l.Per {
	case time.Hour:
		return fmt.Sprintf("%d/h", l.N)
	case 24 * time.Hour:
		return fmt.Sprintf("%d/d", l.N)
	case time.Minute:
		return fmt.Sprintf("%d/m", l.N)
	}
	return fmt.Sprintf("%d/%s", l.N, l.Per)
}

// Limits are section 18's sending budgets: per address and per client
// fixed, per survey and per account configurable (VERIFY_LIMITS).
type Limits struct {
	Address, Client, Survey, Account Limit
}

// DefaultLimits are the contract's: 3 an hour to one address, 10 an hour
// from one client, 1,000 an hour per survey, 10,000 a day per account.
var DefaultLimits = Limits{
	Address: Limit{3, time.Hour},
	Client:  Limit{10, time.Hour},
	Survey:  Limit{1000, time.Hour},
	Account: Limit{10000, 24 * time.Hour},
}

// ParseLimits reads VERIFY_LIMITS, "survey=1000/h,account=10000/d": each
// of survey and account as N/h, N/d (or N/m, for tests), in any order;
// what it leaves out keeps its default; empty is the defaults.
func ParseLimits(s string) (Limits, error) {
	l := DefaultLimits
	if strings.TrimSpace(s) == "" {
		return l, nil
	}
	for part := range strings.SplitSeq(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return Limits{}, fmt.Errorf("VERIFY_LIMITS: %q is not name=N/h or name=N/d", part)
		}
		lim, err := parseLimit(val)
		if err != nil {
			return Limits{}, fmt.Errorf("VERIFY_LIMITS: %s: %w", name, err)
		}
		switch strings.TrimSpace(name) {
		case "survey":
			l.Survey = lim
		case "account":
			l.Account = lim
		default:
			return Limits{}, fmt.Errorf("VERIFY_LIMITS: unknown budget %q (survey, account)", name)
		}
	}
	return l, nil
}

// LimitsFromEnv is ParseLimits of VERIFY_LIMITS.
func LimitsFromEnv(getenv func(string) string) (Limits, error) {
	return ParseLimits(getenv("VERIFY_LIMITS"))
}

func parseLimit(s string) (Limit, error) {
	n, per, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Limit{}, fmt.Errorf("%q is not N/h or N/d", s)
	}
	v, err := strconv.ParseInt(n, 10, 64)
	if err != nil || v < 1 {
		return Limit{}, fmt.Errorf("%q: the count must be a whole number of at least 1", s)
	}
	units := map[string]time.Duration{"m": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	d, ok := units[per]
	if !ok {
		return Limit{}, fmt.Errorf("%q: the window must be m, h or d", s)
	}
	return Limit{N: v, Per: d}, nil
}

// Budget is one counter a send spends from: its scope (what is limited,
// as "verify-survey"), its key (which one) and its limit.
type Budget struct {
	Scope, Key string
	Limit      Limit
	// Shared marks a budget every send of a survey or an account spends
	// from: its counter is sharded (store.BudgetShards).
	Shared bool
}

// The budgets of section 18, by purpose: a purpose ("verify", "notify")
// keeps its own counters, so that notifications never eat into the codes'
// budget. Spend them narrowest first (address, client, then survey and
// account), so a refusal touches no shared counter.

// AddressBudget is the budget of one address or number (kept by a hash of
// its normal form, never in clear).
func (l Limits) AddressBudget(purpose, address string) Budget {
	return Budget{Scope: purpose + "-address", Key: addressKey(address), Limit: l.Address}
}

// ClientBudget is the budget of one client, by its source IP (an IPv6
// client by its /64); it spans surveys.
func (l Limits) ClientBudget(purpose, ip string) Budget {
	return Budget{Scope: purpose + "-client", Key: store.BudgetClientKey(ip), Limit: l.Client}
}

// SurveyBudget is the budget of one survey.
func (l Limits) SurveyBudget(purpose string, sid int64) Budget {
	return Budget{Scope: purpose + "-survey", Key: strconv.FormatInt(sid, 10), Limit: l.Survey, Shared: true}
}

// AccountBudget is the budget of one account (the survey's owner).
func (l Limits) AccountBudget(purpose string, aid int64) Budget {
	return Budget{Scope: purpose + "-account", Key: strconv.FormatInt(aid, 10), Limit: l.Account, Shared: true}
}

// Budgets spends and refunds budgets in the table.
type Budgets struct {
	store *store.Store
	now   func() time.Time
	// smsDaily caps the SMS of the whole service a UTC day
	// (SMS_DAILY_LIMIT; 0 is DefaultSMSDaily).
	smsDaily int64
}

// DefaultSMSDaily is the service's SMS a day without SMS_DAILY_LIMIT
// (contract section 18 as amended).
const DefaultSMSDaily = 10000

// SMSDailyFromEnv reads SMS_DAILY_LIMIT: a whole number of at least 1, or
// empty for DefaultSMSDaily.
func SMSDailyFromEnv(getenv func(string) string) (int64, error) {
	s := strings.TrimSpace(getenv("SMS_DAILY_LIMIT"))
	if s == "" {
		return DefaultSMSDaily, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("SMS_DAILY_LIMIT: %q is not a whole number of at least 1", s)
	}
	return n, nil
}

// WithSMSDaily sets the service's SMS a day (SMS_DAILY_LIMIT) and answers b.
func (b *Budgets) WithSMSDaily(n int64) *Budgets {
	b.smsDaily = n
	return b
}

// The service's SMS budget is spread over smsShards counters a day, each
// its own item (and partition key) holding its share of the limit, so
// that no one item takes every SMS of the service: a send spends from a
// shard picked at random and, when that one is full, from the next, until
// one has room or all refused. Exact: the shares add up to the limit, so
// the service never sends more; it refuses only when every shard is full
// (save a unit a concurrent spend holds for the moment before it gives it
// back, as Spend's other budgets may). Near the limit a refusal costs up
// to smsShards conditional writes, once the day's limit is all but spent.
const (
	smsShards    = 16
	smsScope     = "sms-service"
	smsDayLength = 24 * time.Hour
)

// smsLimit is the service's SMS a day in force.
func (b *Budgets) smsLimit() int64 {
	if b.smsDaily > 0 {
		return b.smsDaily
	}
	return DefaultSMSDaily
}

// smsWindow is the service's SMS day as of now: one window over
// smsShards counters (store.SpendBudget spreads and bounds them).
func smsWindow(now time.Time) store.BudgetWindow {
	start := now.UTC().Truncate(smsDayLength)
	return store.BudgetWindow{Scope: smsScope, Key: "day", Start: start, End: start.Add(smsDayLength), Shards: smsShards}
}

// spendServiceSMS spends one SMS from the service's day (smsShards), or
// answers ETOOMANY (Retry-After the seconds left in the UTC day).
func (b *Budgets) spendServiceSMS(ctx context.Context, now time.Time) (store.BudgetWindow, error) {
	w, ok, err := b.store.SpendBudget(ctx, smsWindow(now), 1, b.smsLimit())
	if err != nil {
		return store.BudgetWindow{}, err
	}
	if !ok {
		return store.BudgetWindow{}, ratelimit.Throttled(w.End.Sub(now))
	}
	return w, nil
}

// ServiceSMSSent answers how many SMS the whole service has sent today
// (UTC): the shards' counters added up (one strongly consistent
// BatchGetItem; for operators and tests).
func (b *Budgets) ServiceSMSSent(ctx context.Context) (int64, error) {
	return b.store.BudgetSpent(ctx, smsWindow(b.now()))
}

// NewBudgets is the budgets of st; now is the clock (time.Now).
func NewBudgets(st *store.Store, now func() time.Time) *Budgets {
	if now == nil {
		now = time.Now
	}
	return &Budgets{store: st, now: now}
}

// Spent is what one Spend took: Refund gives it back.
type Spent struct {
	b       *Budgets
	windows []store.BudgetWindow
}

// Refund gives back every budget of the spend (a send that then failed).
// It tries every one, and answers the failures joined.
func (s Spent) Refund(ctx context.Context) error {
	var errs []error
	for _, w := range s.windows {
		if err := s.b.store.RefundBudget(ctx, w, 1); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Spend spends one message from every budget, or from none: each budget
// is one conditional UpdateItem (exact under races), in the order given;
// when one refuses, those already spent are given back and Spend answers
// ETOOMANY (429, DRF's throttled body, Retry-After the seconds left in the
// refusing window). A failure of the table gives back what was spent and
// answers the store's error (503 when it is busy).
//
// Never a transaction: budgets a survey or an account share take every
// concurrent send's write, and a transaction touching an item another one
// holds is cancelled. A spend refused after an earlier budget's write may
// briefly hold one unit of that budget; it never admits past a limit.
func (b *Budgets) Spend(ctx context.Context, budgets ...Budget) (Spent, error) {
	now := b.now()
	spent := Spent{b: b}
	for _, bu := range budgets {
		w, ok, err := b.store.SpendBudget(ctx, window(bu, now), 1, bu.Limit.N)
		if err == nil && ok {
			spent.windows = append(spent.windows, w)
			continue
		}
		if rerr := spent.Refund(context.WithoutCancel(ctx)); rerr != nil {
			err = errors.Join(err, rerr)
		}
		if err != nil {
			return Spent{}, err
		}
		return Spent{}, ratelimit.Throttled(w.End.Sub(now))
	}
	return spent, nil
}

// Used answers how much of a budget the current window has spent.
func (b *Budgets) Used(ctx context.Context, bu Budget) (int64, error) {
	return b.store.BudgetSpent(ctx, window(bu, b.now()))
}

// window is the budget's fixed window holding now: a survey's and an
// account's, which every send of theirs spends from, over
// store.BudgetShards counters.
func window(bu Budget, now time.Time) store.BudgetWindow {
	start := now.UTC().Truncate(bu.Limit.Per)
	w := store.BudgetWindow{Scope: bu.Scope, Key: bu.Key, Start: start, End: start.Add(bu.Limit.Per)}
	if bu.Shared {
		w.Shards = store.BudgetShards
	}
	return w
}

// IsThrottled reports whether err is a budget's refusal (429).
func IsThrottled(err error) bool {
	var se *survey.Error
	return errors.As(err, &se) && se.Code == survey.ETOOMANY
}
