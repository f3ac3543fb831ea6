// Command local is `make run`: the whole API on one local server, on the same
// handlers the Lambda functions run. It creates the table, the KMS key, the
// queues and the buckets when missing. Without AWS_ENDPOINT_URL it starts
// the emulators itself (DynamoDB Local behind a conflict model, moto_server
// for KMS, SQS and S3), loads the sample catalog and a demo account, and
// prints the demo API key; on an endpoint of the caller's own it makes no
// sample data.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"surveyservice/functions/account"
	"surveyservice/functions/pages"
	"surveyservice/functions/templates"
	"surveyservice/infra/seed"
	"surveyservice/internal/localaws"
	"surveyservice/internal/outbox"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/cdn"
	"surveyservice/shared/exports"
	"surveyservice/shared/hosts"
	"surveyservice/shared/links"
	"surveyservice/shared/ratelimit"
	"surveyservice/shared/sending"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
	"surveyservice/shared/webhook"
)

// demoEmail is the demo account `make run` creates (or reuses).
const demoEmail = "demo@example.com"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) error {
	logFile, closeLog, err := openLog(getenv("LOG_FILE"), stderr)
	if err != nil {
		return err
	}
	defer closeLog()
	env, err := readEnv(getenv)
	if err != nil {
		return err
	}
	env.logFile = logFile
	// Without AWS_ENDPOINT_URL make run starts the emulators and fills
	// them for a new user; a client that brings its own emulators gets
	// what is missing but no sample data, so that it can make the one
	// catalog account itself (contract section 9).
	own := getenv("AWS_ENDPOINT_URL") == ""
	if own {
		// LOCAL_DATA_DIR (make run sets .cache/local-data) keeps the
		// run's data for the next one; unset, everything is in memory.
		if dir := getenv("LOCAL_DATA_DIR"); dir != "" {
			if env.kept, err = openKept(dir); err != nil {
				return err
			}
			defer env.kept.close()
		}
		emu, endpoints, err := startEmulators(ctx, env.get, stdout, env.kept)
		if err != nil {
			return err
		}
		defer emu.stop()
		maps.Copy(env.over, endpoints)
	}
	res, err := createResources(ctx, env)
	if err != nil {
		return err
	}
	defer res.close()
	if env.kept != nil {
		n, err := env.kept.restoreBuckets(ctx, res.s3)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Kept data in %s (%d files put back; make run FRESH=1 starts empty)\n", env.kept.dir, n)
		// Ctrl-C ends ctx: the buckets are saved after the server stops,
		// before the emulators do (the deferred stops run after this).
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := env.kept.saveBuckets(sctx, res.s3); err != nil {
				fmt.Fprintln(stderr, "error: keeping the buckets' files:", err)
			}
		}()
	}
	// Every message sent (SES and SNS on the emulator) is also kept in the
	// local outbox and printed, so that a person can read it.
	res.outbox = outbox.New(stdout)
	res.sender = res.outbox.Wrap(res.sender)
	hookCtx, stopHooks := context.WithCancel(ctx)
	defer stopHooks()
	bg, err := startBackground(hookCtx, env, res)
	if err != nil {
		return err
	}
	// The admin command queues the webhook deliveries it records (domain
	// events) on this queue, as the functions do, so that they go at once
	// rather than at the retrier's next pass.
	env.over["WEBHOOK_QUEUE_URL"] = bg.hooks.queue.URL
	// The API's own address, as API_BASE_URL is on Lambda: every absolute
	// URL it writes starts with it (contract section 3).
	// The host chooses whose surveys are served (contract section 23):
	// <subdomain>.localhost:PORT serves that account's, as on Lambda.
	byHost := hosts.New(hosts.ConfigFromEnv(env.get), res.st)
	res.byHost = byHost
	handler := withOutbox(res.outbox, api.ServeAt(env.apiBase, byHost.Wrap(serveWithin(routers(res.st, functionsConfig(env, res, bg)), limited(res.st, env.rates)),
		hosts.Serving, pages.NotFound())))
	var sample *sampleData
	if own {
		if sample, err = loadSampleData(ctx, res.st, handler, env.port, env.kept); err != nil {
			return err
		}
	}
	if err := listenAndServe(ctx, handler, env, res.st, sample, stdout); err != nil {
		return err
	}
	stopHooks()
	return bg.hooks.wait(10 * time.Second)
}

// environment is what `make run` reads, read as the Lambda mains read it:
// the process's environment passed through, with the emulators' endpoints
// and what `make run` made itself (its S3 CORS proxy) laid over it, and
// `make run`'s own defaults where a variable is unset. So every variable a
// Lambda main reads works the same in `make run`.
type environment struct {
	getenv func(string) string
	// over wins over getenv: the endpoints of the emulators `make run`
	// started and the uploads' origin of its CORS proxy.
	over map[string]string
	// defaults fill what getenv leaves empty: the service's addresses on
	// the local server.
	defaults map[string]string
	// port is the local server's (PORT, default 3000).
	port string
	// rates are the public functions' limits (RATE_LIMITS); delays the
	// webhooks' retry schedule (WEBHOOK_RETRY_DELAYS); guard admits
	// loopback receivers unless WEBHOOK_ALLOW_LOOPBACK=false.
	// apiBase is the API's own address (API_BASE_URL, default the local
	// server's).
	apiBase string
	rates   ratelimit.Rates
	delays  []time.Duration
	guard   webhook.Guard
	// limits are the sending budgets (VERIFY_LIMITS).
	limits sending.Limits
	// smsDaily is the whole service's SMS a day (SMS_DAILY_LIMIT).
	smsDaily int64
	// logFile is where the JSON log goes (LOG_FILE), "" for stderr.
	logFile string
	// kept is the data kept across runs (LOCAL_DATA_DIR), nil when
	// everything stays in memory.
	kept *keptData
}

// readEnv reads the environment and checks the values `make run` parses,
// before anything starts.
func readEnv(getenv func(string) string) (*environment, error) {
	port := or(getenv("PORT"), "3000")
	local := "http://127.0.0.1:" + port
	e := &environment{getenv: getenv, over: map[string]string{}, port: port,
		defaults: map[string]string{"PUBLIC_SURVEY_URL": local, "TEMPLATES_URL": local, "MEDIA_URL": local, "API_BASE_URL": local,
			"PUBLIC_SURVEY_DOMAIN": "localhost", "DOMAINS_TARGET_SUFFIX": "domains.localhost",
			"MAIL_FROM": "no-reply@survey.example.com"}}
	// The public functions' limits per client and per survey, as on
	// Lambda; RATE_LIMITS=off serves without them, a number sizes the
	// client's (requests a minute).
	var err error
	if e.rates, err = ratelimit.RatesFromEnv(e.get("RATE_LIMITS")); err != nil {
		return nil, err
	}
	if e.delays, err = webhook.ParseDelays(e.get("WEBHOOK_RETRY_DELAYS")); err != nil {
		return nil, err
	}
	if e.limits, err = sending.LimitsFromEnv(e.get); err != nil {
		return nil, err
	}
	if e.smsDaily, err = sending.SMSDailyFromEnv(e.get); err != nil {
		return nil, err
	}
	if e.apiBase, err = api.ParseBaseURL(e.get("API_BASE_URL")); err != nil {
		return nil, fmt.Errorf("API_BASE_URL: %w", err)
	}
	// Loopback receivers are allowed locally unless
	// WEBHOOK_ALLOW_LOOPBACK=false.
	e.guard = webhook.Guard{AllowLoopback: e.get("WEBHOOK_ALLOW_LOOPBACK") != "false"}
	return e, nil
}

// get reads one variable: what is laid over the environment, else the
// environment's value, else `make run`'s default.
func (e *environment) get(k string) string {
	if v, ok := e.over[k]; ok {
		return v
	}
	return or(e.getenv(k), e.defaults[k])
}

// resources are the table, the KMS key and the buckets `make run` serves
// on, created where missing.
type resources struct {
	st      *store.Store
	sealer  *links.Sealer
	exports *exports.Bucket
	// uploads is the responders' files, reached through the CORS proxy.
	uploads *uploads.Bucket
	// sender sends email and SMS (SES and SNS on the emulator), each
	// message also kept in outbox.
	sender sending.Sender
	outbox *outbox.Outbox
	// s3 reaches every bucket, to keep and restore their files.
	s3 *s3.Client
	// byHost decides what a request's host serves (contract section 23).
	byHost *hosts.Resolver
	close  func()
}

// createResources creates what is missing (the table, the KMS key, the
// exports and uploads buckets) and starts the uploads' CORS proxy, whose
// origin it lays over the environment (UPLOADS_ORIGIN).
func createResources(ctx context.Context, env *environment) (*resources, error) {
	st, err := localaws.OpenStore(ctx, env.get)
	if err != nil {
		return nil, err
	}
	if err := localaws.EnsureTable(ctx, st.Client(), st.TableName()); err != nil {
		return nil, err
	}
	cfg, err := localaws.Load(ctx, awsenv.FromEnv(env.get))
	if err != nil {
		return nil, err
	}
	kmsClient := kms.NewFromConfig(cfg)
	keyID := links.KeyFromEnv(env.get)
	if strings.HasPrefix(keyID, "alias/") {
		if _, err := localaws.EnsureKey(ctx, kmsClient, keyID); err != nil {
			return nil, err
		}
	}
	var sealing links.KMS = kmsClient
	if env.kept != nil {
		master, err := env.kept.masterKey()
		if err != nil {
			return nil, fmt.Errorf("LOCAL_DATA_DIR: %w", err)
		}
		if sealing, err = newKeptKMS(kmsClient, master); err != nil {
			return nil, err
		}
	}
	bucket := exports.New(cfg, exports.BucketFromEnv(env.get))
	if err := localaws.EnsureExports(ctx, bucket); err != nil {
		return nil, err
	}
	// What a deployment sets up once for sending: the verified MAIL_FROM
	// identity, the account's SMS preferences.
	mail, err := sending.ConfigFromEnv(env.get)
	if err != nil {
		return nil, err
	}
	if err := localaws.EnsureMailIdentity(ctx, cfg, mail.MailFrom); err != nil {
		return nil, err
	}
	if err := localaws.EnsureSMSPreferences(ctx, cfg, mail.SenderID); err != nil {
		return nil, err
	}
	res := &resources{st: st, sealer: links.NewSealer(sealing, keyID, st), exports: bucket, sender: sending.New(cfg, mail), close: func() {},
		s3: s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })}
	// The responders' files: the bucket's CORS rule lets the service's
	// own pages POST to it.
	origin := strings.TrimSuffix(env.get("PUBLIC_SURVEY_URL"), "/")
	res.uploads = uploads.New(cfg, uploads.BucketFromEnv(env.get))
	if endpoint := or(env.get("AWS_ENDPOINT_URL_S3"), env.get("AWS_ENDPOINT_URL")); endpoint != "" {
		// moto: the browser's POSTs go through the CORS proxy (s3cors.go).
		proxy, err := newS3CORS(endpoint, origin)
		if err != nil {
			return nil, err
		}
		at, stop, err := proxy.listen()
		if err != nil {
			return nil, err
		}
		res.close = stop
		res.uploads = localaws.UploadsAt(cfg, uploads.BucketFromEnv(env.get), at)
	}
	if err := localaws.EnsureUploads(ctx, res.uploads, origin); err != nil {
		res.close()
		return nil, err
	}
	env.over["UPLOADS_ORIGIN"] = res.uploads.Origin()
	return res, nil
}

// background is what runs beside the server, as Lambda's event source
// mappings and schedules run the functions in AWS.
type background struct {
	hooks *hooks
	jobs  *exportJobs
}

// startBackground starts the webhooks' pollers and retrier, the tally and
// the export jobs: the same dispatch, deliver, tally and export code as in
// AWS, fed by pollers of the table's stream and the queues. They stop with
// ctx.
func startBackground(ctx context.Context, env *environment, res *resources) (*background, error) {
	hk, err := startHooks(ctx, res.st, res.sealer, hookOptions{aws: awsenv.FromEnv(env.get), queueName: or(env.get("WEBHOOK_QUEUE_NAME"), "survey-webhooks"),
		visibility: 60 * time.Second, guard: env.guard, delays: env.delays, workers: 2, maxIdle: 200 * time.Millisecond, files: res.uploads,
		sender: res.sender, limits: env.limits, smsDaily: env.smsDaily, baseURL: env.apiBase})
	if err != nil {
		return nil, fmt.Errorf("webhooks: %w", err)
	}
	if _, err := startTally(ctx, res.st, awsenv.FromEnv(env.get)); err != nil {
		return nil, fmt.Errorf("tally: %w", err)
	}
	jobs, err := startExportJobs(ctx, res.st, res.exports, awsenv.FromEnv(env.get), or(env.get("EXPORT_QUEUE_NAME"), "survey-exports"))
	if err != nil {
		return nil, fmt.Errorf("export jobs: %w", err)
	}
	return &background{hooks: hk, jobs: jobs}, nil
}

// functionsConfig is each function's configuration, from the environment
// as its Lambda main reads it.
func functionsConfig(env *environment, res *resources, bg *background) config {
	return config{
		templates:  templates.Deps{MediaURL: env.get("MEDIA_URL"), TemplatesURL: env.get("TEMPLATES_URL")},
		surveyURL:  env.get("PUBLIC_SURVEY_URL"),
		hosts:      hosts.ConfigFromEnv(env.get),
		domains:    localDomains(env, res),
		sealer:     res.sealer,
		queue:      bg.hooks.queue,
		guard:      env.guard,
		exports:    res.exports,
		exportJobs: bg.jobs.queue,
		uploads:    res.uploads,
		pages:      pagesConfig(env, res),
		sender:     res.sender,
		limits:     env.limits,
		smsDaily:   env.smsDaily,
	}
}

// sampleData is what `make run` made for a new user: the demo account's
// key, its demo survey, and the sample catalog.
type sampleData struct {
	key       string
	memberKey string
	demo      builtSurvey
	templates int
}

// loadSampleData loads the sample catalog, creates (or finds) the demo
// account and its demo survey, and builds the sample templates' surveys.
//
// With kept, the keys printed before are printed again while they work.
func loadSampleData(ctx context.Context, st *store.Store, handler http.Handler, port string, kept *keptData) (*sampleData, error) {
	if _, err := st.ImportTemplates(ctx, seed.Templates); err != nil {
		return nil, fmt.Errorf("load the sample catalog: %w", err)
	}
	var keys demoKeys
	if kept != nil {
		keys = kept.demoKeys()
	}
	key, err := demoKey(ctx, st, keys.Owner)
	if err != nil {
		return nil, err
	}
	demo, err := demoSurvey(apiClient{h: handler, key: key}, "http://127.0.0.1:"+port)
	if err != nil {
		return nil, fmt.Errorf("demo survey: %w", err)
	}
	memberKey, err := demoMember(apiClient{h: handler, key: key}, demo.FolderID, keys.Member)
	if err != nil {
		return nil, fmt.Errorf("demo member: %w", err)
	}
	if kept != nil {
		if err := kept.saveDemoKeys(demoKeys{Owner: key, Member: memberKey}); err != nil {
			return nil, fmt.Errorf("LOCAL_DATA_DIR: %w", err)
		}
	}
	// The sample templates backed by real surveys (a second import of the
	// catalog, with their survey ids).
	n, _, err := loadCatalog(ctx, st, handler, seed.Templates)
	if err != nil {
		return nil, err
	}
	return &sampleData{key: key, memberKey: memberKey, demo: demo, templates: n}, nil
}

// listenAndServe listens on PORT, prints the banner (the sample data's,
// where make run made it), and serves until ctx ends (Ctrl-C), then shuts
// the server down.
func listenAndServe(ctx context.Context, handler http.Handler, env *environment, st *store.Store, sample *sampleData, stdout io.Writer) error {
	port := env.port
	tcp, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		return fmt.Errorf("listen on 127.0.0.1:%s: %w (set PORT to use another port)", port, err)
	}
	ln := strayEscapes{tcp}
	server := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	pairs := adminEnv(env)
	removeAdminEnv, err := writeAdminEnv(env.get("ADMIN_ENV_FILE"), pairs)
	if err != nil {
		_ = ln.Close()
		return err
	}
	defer removeAdminEnv()
	adminLine := fmt.Sprintf("Admin command: make admin ARGS='account create --email you@example.com --plan pro', or in a shell:\n  %s\n  go run ./infra/admin ...\n", exportLine(pairs))
	on := or(env.get("AWS_ENDPOINT_URL_DYNAMODB"), env.get("AWS_ENDPOINT_URL"))
	if env.logFile != "" {
		adminLine += fmt.Sprintf("Request log: %s (warnings and errors also here; LOG_FILE=- make run logs everything here)\n", env.logFile)
	}
	// The banner ends with what a person needs next (the key, the pages,
	// the walkthrough's line) and "Listening on", the log going to its
	// file: nothing buries it.
	outbox := fmt.Sprintf("Local outbox (every email and SMS sent): http://127.0.0.1:%s%s\n", port, outboxPath)
	if sample == nil {
		fmt.Fprintf(stdout, "Table %q on %s; no sample data on an endpoint of your own (make accounts with the admin command)\n", st.TableName(), on)
		fmt.Fprint(stdout, adminLine)
		fmt.Fprint(stdout, outbox)
	} else {
		key, demo := sample.key, sample.demo
		fmt.Fprintf(stdout, "Loaded %d sample templates; table %q on %s\n", sample.templates, st.TableName(), on)
		fmt.Fprint(stdout, adminLine)
		fmt.Fprint(stdout, outbox)
		fmt.Fprintf(stdout, "Member %s (editor of the demo survey's folder; docs/teams.md): API key %s\n", demoMemberEmail, sample.memberKey)
		fmt.Fprintf(stdout,
			"Start a survey from a template: curl -H 'Authorization: API-Key %s' -H 'Content-Type: application/json' "+
				"-d '{\"template\": \"customer-satisfaction-survey\", \"folder_id\": %d}' http://127.0.0.1:%s/api/v2/surveys/\n", key, demo.FolderID, port)
		fmt.Fprintf(stdout, "Demo account: %s (enterprise plan)\n", demoEmail)
		fmt.Fprintf(stdout, "API key: %s\n", key)
		fmt.Fprintf(stdout, "Responder page: http://127.0.0.1:%s/s/%s/\n", port, demo.URLSlug)
		fmt.Fprintf(stdout, "Report: http://127.0.0.1:%s/r/%s/\n", port, demo.ReportCode)
		fmt.Fprintf(stdout, "The walkthrough (README), in another terminal:\n  %s\n  bash examples/walkthrough.sh\n", walkthroughLine(key, port))
	}
	fmt.Fprintf(stdout, "Listening on http://127.0.0.1:%s\n", port)
	errc := make(chan error, 1)
	go func() { errc <- server.Serve(ln) }()
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	case <-ctx.Done():
		slog.Info("shutting down")
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = server.Shutdown(sctx)
	}
	return nil
}

// walkthroughLine is the line a person pastes into another terminal to run
// the README's walkthrough against this run, whatever its port.
func walkthroughLine(key, port string) string {
	return "export KEY=" + shellQuote(key) + " BASE=" + shellQuote("http://127.0.0.1:"+port)
}

// demoKey creates the demo account, or finds it on an endpoint that already
// has it, and issues a fresh key for it, unless kept (the key a kept run
// printed) is still the demo account's.
func demoKey(ctx context.Context, st *store.Store, kept string) (string, error) {
	if kept != "" {
		if acct, err := st.AccountByKeyHash(ctx, survey.HashKey(kept)); err == nil && strings.EqualFold(acct.Email, demoEmail) {
			return kept, nil
		}
	}
	acct, err := st.AccountByEmail(ctx, demoEmail)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		acct, err = st.CreateAccount(ctx, survey.Account{Email: demoEmail, FirstName: "Demo", LastName: "Owner", Plan: survey.PlanEnterprise})
	}
	if err != nil {
		return "", fmt.Errorf("demo account: %w", err)
	}
	return st.CreateKey(ctx, acct.ID)
}

func or(v, fallback string) string {
	if v == "" {
		return fallback
	}
	return v
}

// pagesConfig is the pages' configuration, as their Lambda main reads it:
// links point at the survey's account subdomain when active (section 23),
// and learn what a custom domain serves from the server's host resolver.
func pagesConfig(env *environment, res *resources) pages.Config {
	cfg := pages.ConfigFromEnv(env.get)
	cfg.Links = res.byHost.Links(cfg.PublicURL, res.st)
	return cfg
}

// localDomains is the custom domain routes' configuration, as the account
// function's main reads it, with CloudFront's distribution tenants made
// and removed on a stand-in that records each call in the local outbox
// (moto has no distribution tenants; contract section 23).
func localDomains(env *environment, res *resources) account.Domains {
	d := account.DomainsFromEnv(env.get)
	d.Tenants = &cdn.CloudFront{API: outbox.NewCloudFront(res.outbox), Distribution: "local"}
	return d
}
