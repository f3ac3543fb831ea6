// Command admin manages accounts, API keys and the template catalog:
//
//	go run ./infra/admin account create --email E --plan free|pro|enterprise [--first-name F] [--last-name L] [--catalog]
//	go run ./infra/admin key create --account N
//	go run ./infra/admin key revoke --key K
//	go run ./infra/admin templates import FILE
//	go run ./infra/admin sweep [--now YYYY-MM-DDTHH:MM:SSZ]
//	go run ./infra/admin domains check [--now YYYY-MM-DDTHH:MM:SSZ]
//	go run ./infra/admin recount --account N | --survey ID [--dry-run] [--quiet 10m]
//	go run ./infra/admin replay-webhooks --from T --to T
//	go run ./infra/admin keep-files --since T [--segments N]
//	go run ./infra/admin finish-withdrawals [--segments N]
//	go run ./infra/admin webhooks backfill [--segments N]
//	go run ./infra/admin pages backfill (--survey ID | --all) [--segments N]
//
// It reads the same environment as the functions (TABLE_NAME, AWS_REGION,
// AWS_ENDPOINT_URL ...), prints one JSON object on stdout, and reports errors
// on stderr with exit status 1 (2 for a usage error). Without a local
// endpoint it acts on real AWS only when given --aws; `make admin ARGS=...`
// runs it against the running `make run`.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"

	"surveyservice/functions/sweeper"
	"surveyservice/internal/localaws"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/cdn"
	"surveyservice/shared/dnscheck"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

const usage = `usage (--aws to act on real AWS when no AWS_ENDPOINT_URL is set):
  admin account create --email E --plan free|pro|enterprise [--first-name F] [--last-name L] [--catalog]
  admin key create --account N
  admin key revoke --key K
  admin templates import FILE
  admin reports backfill
  admin previews backfill
  admin sweep [--now YYYY-MM-DDTHH:MM:SSZ]
  admin domains check [--now YYYY-MM-DDTHH:MM:SSZ]   (the daily re-check of verified custom domains, through DNS_RESOLVER)
  admin recount --account N | --survey ID [--dry-run] [--quiet 10m]   (refuses to write to a survey with a response submitted or edited within --quiet; --dry-run always looks)
  admin replay-webhooks --from RFC3339 --to RFC3339
  admin keep-files --since RFC3339 [--segments N]
  admin finish-withdrawals [--segments N]   (withdrawals of refused responses that the dispatch's stream gave up)
  admin webhooks backfill [--segments N]
  admin pages backfill (--survey ID | --all) [--segments N]
`

// errUsage marks a command line that is wrong, not a failure of the work.
var errUsage = errors.New("usage")

func main() {
	code := run(context.Background(), os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	os.Exit(code)
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	args, realAWS := cutFlag(args, "--aws")
	if err := checkTarget(getenv, realAWS); err != nil {
		fmt.Fprintf(stderr, "admin: %v\n", err)
		return 2
	}
	out, err := dispatch(ctx, args, getenv)
	if errors.Is(err, errUsage) {
		fmt.Fprintf(stderr, "admin: %v\n%s", err, usage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "admin: %s\n", message(err))
		return 1
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(out)
	return 0
}

// cutFlag removes a global flag from the command line wherever it stands
// and reports whether it was there.
func cutFlag(args []string, flag string) ([]string, bool) {
	out := make([]string, 0, len(args))
	found := false
	for _, a := range args {
		if a == flag || a == "-"+strings.TrimLeft(flag, "-") {
			found = true
			continue
		}
		out = append(out, a)
	}
	return out, found
}

// checkTarget refuses to reach real AWS by accident: with no local endpoint
// set, the command names the account it would use and needs --aws.
func checkTarget(getenv func(string) string, realAWS bool) error {
	if getenv("AWS_ENDPOINT_URL") != "" || getenv("AWS_ENDPOINT_URL_DYNAMODB") != "" || realAWS {
		return nil
	}
	c := awsenv.FromEnv(getenv)
	creds := "the default credential chain"
	if p := getenv("AWS_PROFILE"); p != "" {
		creds = "profile " + strconv.Quote(p)
	} else if getenv("AWS_ACCESS_KEY_ID") != "" {
		creds = "AWS_ACCESS_KEY_ID from the environment"
	}
	return fmt.Errorf("no AWS_ENDPOINT_URL is set, so this would act on real AWS (region %s, table %q, %s).\n"+
		"Pass --aws to do that. Against make run, use make admin ARGS='...' or the export line make run printed",
		c.Region, store.TableNameFrom(getenv), creds)
}

// message is what an operator reads: a domain error's detail, or for a
// wrapped failure (a throttled or broken store) the whole chain, cause
// included.
func message(err error) string {
	if e, ok := err.(*survey.Error); ok {
		if e.Code == survey.ENOTFOUND {
			return "not found"
		}
		return e.Detail
	}
	return err.Error()
}

// command is one admin command: its arguments after the command's words,
// and the environment.
type command func(ctx context.Context, args []string, getenv func(string) string) (any, error)

// oneWord are the commands named by one word, twoWords by two.
var (
	oneWord = map[string]command{
		"sweep": sweep, "recount": recount, "replay-webhooks": replayWebhooks, "keep-files": keepFiles, "finish-withdrawals": finishWithdrawals,
	}
	twoWords = map[string]command{
		"account create": accountCreate, "key create": keyCreate, "key revoke": keyRevoke,
		"reports backfill": reportsBackfill, "previews backfill": previewsBackfill, "webhooks backfill": backfillHooked, "pages backfill": backfillPages,
		"templates import": templatesImport, "domains check": domainsCheck,
	}
)

func dispatch(ctx context.Context, args []string, getenv func(string) string) (any, error) {
	if len(args) >= 1 {
		if c, ok := oneWord[args[0]]; ok {
			return c(ctx, args[1:], getenv)
		}
	}
	if len(args) < 2 {
		return nil, fmt.Errorf("%w: missing command", errUsage)
	}
	name := args[0] + " " + args[1]
	c, ok := twoWords[name]
	if !ok {
		return nil, fmt.Errorf("%w: unknown command %q", errUsage, name)
	}
	return c(ctx, args[2:], getenv)
}

// accountCreate creates an account and its first key; --catalog makes it the catalog's (one such account).
func accountCreate(ctx context.Context, rest []string, getenv func(string) string) (any, error) {
	fs := newFlags("account create")
	email := fs.String("email", "", "the owner's email")
	plan := fs.String("plan", "", "free, pro or enterprise")
	first := fs.String("first-name", "", "first name")
	last := fs.String("last-name", "", "last name")
	catalog := fs.Bool("catalog", false, "make it the catalog's account: its surveys back the templates (one such account)")
	if err := parse(fs, rest, 0); err != nil {
		return nil, err
	}
	if *email == "" || *plan == "" {
		return nil, fmt.Errorf("%w: account create needs --email and --plan", errUsage)
	}
	p, err := survey.ParsePlan(*plan)
	if err != nil {
		return nil, err
	}
	st, err := open(ctx, getenv)
	if err != nil {
		return nil, err
	}
	if *catalog {
		// Refuse before creating anything when another account is the
		// catalog's already.
		if other, err := st.CatalogAccount(ctx); err == nil {
			return nil, fmt.Errorf("account %d is already the catalog account", other)
		} else if survey.ErrorCode(err) != survey.ENOTFOUND {
			return nil, err
		}
	}
	a, err := st.CreateAccount(ctx, survey.Account{Email: *email, Plan: p, FirstName: *first, LastName: *last})
	if err != nil {
		return nil, err
	}
	if *catalog {
		if err := st.SetCatalogAccount(ctx, a.ID); err != nil {
			return nil, err
		}
	}
	key, err := st.CreateKey(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"account_id": a.ID, "api_key": key}
	if *catalog {
		out["catalog"] = true
	}
	return out, nil
}

// keyCreate issues another key for an account.
func keyCreate(ctx context.Context, rest []string, getenv func(string) string) (any, error) {
	fs := newFlags("key create")
	account := fs.String("account", "", "account id")
	if err := parse(fs, rest, 0); err != nil {
		return nil, err
	}
	id, err := strconv.ParseInt(*account, 10, 64)
	if err != nil || id <= 0 {
		return nil, fmt.Errorf("%w: key create needs --account with a positive account id", errUsage)
	}
	st, err := open(ctx, getenv)
	if err != nil {
		return nil, err
	}
	key, err := st.CreateKey(ctx, id)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return nil, fmt.Errorf("no account has id %d", id)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"account_id": id, "api_key": key}, nil
}

// keyRevoke revokes a key.
func keyRevoke(ctx context.Context, rest []string, getenv func(string) string) (any, error) {
	fs := newFlags("key revoke")
	key := fs.String("key", "", "the API key to revoke")
	if err := parse(fs, rest, 0); err != nil {
		return nil, err
	}
	if *key == "" {
		return nil, fmt.Errorf("%w: key revoke needs --key", errUsage)
	}
	st, err := open(ctx, getenv)
	if err != nil {
		return nil, err
	}
	if err := st.RevokeKey(ctx, *key); survey.ErrorCode(err) == survey.ENOTFOUND {
		return nil, errors.New("no such key")
	} else if err != nil {
		return nil, err
	}
	return map[string]any{"revoked": true}, nil
}

// reportsBackfill gives surveys created before report codes had their own item
// (shared/store/reports.go) that item, so their public report is found.
func reportsBackfill(ctx context.Context, rest []string, getenv func(string) string) (any, error) {
	return codesBackfill(ctx, "reports backfill", rest, getenv, (*store.Store).BackfillReportCodes)
}

// previewsBackfill gives surveys created before preview codes had their
// own item (shared/store/previews.go) that item, so their page is found at
// /s/<preview_code>/.
func previewsBackfill(ctx context.Context, rest []string, getenv func(string) string) (any, error) {
	return codesBackfill(ctx, "previews backfill", rest, getenv, (*store.Store).BackfillPreviewCodes)
}

// codesBackfill runs one of the store's code-item backfills.
func codesBackfill(ctx context.Context, name string, rest []string, getenv func(string) string,
	backfill func(*store.Store, context.Context) (int, error)) (any, error) {
	fs := newFlags(name)
	if err := parse(fs, rest, 0); err != nil {
		return nil, err
	}
	st, err := open(ctx, getenv)
	if err != nil {
		return nil, err
	}
	n, err := backfill(st, ctx)
	if err != nil {
		return nil, err
	}
	return map[string]any{"written": n}, nil
}

// templatesImport loads a catalog file into the table.
func templatesImport(ctx context.Context, rest []string, getenv func(string) string) (any, error) {
	fs := newFlags("templates import")
	if err := parse(fs, rest, 1); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return nil, err
	}
	st, err := open(ctx, getenv)
	if err != nil {
		return nil, err
	}
	n, err := st.ImportTemplates(ctx, data)
	if err != nil {
		return nil, err
	}
	return map[string]any{"imported": n}, nil
}

func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse reads flags and wants exactly nargs positional arguments.
func parse(fs *flag.FlagSet, args []string, nargs int) error {
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %s: %v", errUsage, fs.Name(), err)
	}
	if fs.NArg() != nargs {
		return fmt.Errorf("%w: %s takes %d argument(s), got %d", errUsage, fs.Name(), nargs, fs.NArg())
	}
	return nil
}

// open connects to the table. Against a local endpoint it creates the table
// when missing; against AWS it uses the full credential chain (profiles,
// SSO), which the lean Lambda loader leaves out.
func open(ctx context.Context, getenv func(string) string) (*store.Store, error) {
	c := awsenv.FromEnv(getenv)
	c.Policy = awsenv.Events // an operator's command: no request's deadline
	if c.Endpoint == "" && c.Credentials == nil {
		full, err := config.LoadDefaultConfig(ctx, config.WithRegion(c.Region))
		if err != nil {
			return nil, err
		}
		c.Credentials = full.Credentials
	}
	st, err := store.Open(ctx, c, store.TableNameFrom(getenv))
	if err != nil {
		return nil, err
	}
	if c.Endpoint != "" {
		if err := localaws.EnsureTable(ctx, st.Client(), st.TableName()); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// nowFlag parses --now (YYYY-MM-DDTHH:MM:SSZ); "" is the real time.
func nowFlag(v string) (time.Time, error) {
	if v == "" {
		return time.Now(), nil
	}
	t, err := time.Parse("2006-01-02T15:04:05Z", v)
	if err != nil || len(v) != len("2006-01-02T15:04:05Z") {
		return time.Time{}, fmt.Errorf("%w: --now %q is not YYYY-MM-DDTHH:MM:SSZ", errUsage, v)
	}
	return t, nil
}

// domainsCheck runs the daily re-check of the verified custom domains once
// (contract section 23), with the sweeper function's own code, as of --now.
func domainsCheck(ctx context.Context, args []string, getenv func(string) string) (any, error) {
	fs := newFlags("domains check")
	at := fs.String("now", "", "check as of this UTC time, YYYY-MM-DDTHH:MM:SSZ")
	if err := parse(fs, args, 0); err != nil {
		return nil, err
	}
	now, err := nowFlag(*at)
	if err != nil {
		return nil, err
	}
	st, err := open(ctx, getenv)
	if err != nil {
		return nil, err
	}
	var notify func(context.Context, store.DomainOwner) error
	if getenv("MAIL_FROM") != "" {
		// Told as the function tells (without MAIL_FROM the notices stay
		// pending for the function's daily run).
		c := awsenv.FromEnv(getenv)
		c.Policy = awsenv.Events
		cfg, err := awsenv.Load(ctx, c)
		if err != nil {
			return nil, err
		}
		n, err := sweeper.NotifierFromEnv(cfg, st, getenv)
		if err != nil {
			return nil, err
		}
		notify = n.Notify
	}
	var tenants cdn.Tenants
	if getenv("DOMAINS_DISTRIBUTION_ID") != "" {
		c := awsenv.FromEnv(getenv)
		c.Policy = awsenv.Events
		cfg, err := awsenv.Load(ctx, c)
		if err != nil {
			return nil, err
		}
		tenants = cdn.FromEnv(cfg, getenv)
	}
	return sweeper.CheckDomains(ctx, st, dnscheck.New(getenv("DNS_RESOLVER")), tenants, now, notify)
}

// sweep runs the expiry sweep once, with the sweeper function's own code,
// as of --now (default: the real time).
func sweep(ctx context.Context, args []string, getenv func(string) string) (any, error) {
	fs := newFlags("sweep")
	nowFlag := fs.String("now", "", "sweep as of this UTC time, YYYY-MM-DDTHH:MM:SSZ")
	if err := parse(fs, args, 0); err != nil {
		return nil, err
	}
	now := time.Now()
	if *nowFlag != "" {
		t, err := time.Parse("2006-01-02T15:04:05Z", *nowFlag)
		if err != nil || len(*nowFlag) != len("2006-01-02T15:04:05Z") {
			return nil, fmt.Errorf("%w: --now %q is not YYYY-MM-DDTHH:MM:SSZ", errUsage, *nowFlag)
		}
		now = t
	}
	st, err := open(ctx, getenv)
	if err != nil {
		return nil, err
	}
	res, err := sweeper.New(sweeper.Deps{Store: st}).Run(ctx, now)
	if err != nil {
		return nil, err
	}
	return map[string]any{"closed": res.Closed}, nil
}
