// Command local is `make run`: the whole API on one local server, on the same
// handlers the Lambda functions run. Without AWS_ENDPOINT_URL it starts the
// emulators itself (DynamoDB Local behind a conflict model, moto_server for
// KMS, SQS and S3); it creates the table, the KMS key and the exports
// bucket when missing, loads the sample catalog and a demo account, and
// prints the demo API key.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/kms"

	"surveyservice/functions/pages"
	"surveyservice/functions/templates"
	"surveyservice/functions/variables"
	"surveyservice/infra/seed"
	"surveyservice/internal/localaws"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/exports"
	"surveyservice/shared/links"
	"surveyservice/shared/ratelimit"
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
	api.JSONLogging(stderr)
	env := map[string]string{}
	for _, k := range []string{"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_DYNAMODB_STREAMS", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
		"AWS_SESSION_TOKEN", "TABLE_NAME", "KMS_KEY_ID", "EXPORTS_BUCKET", "PORT", "PUBLIC_SURVEY_URL", "PRIVACY_URL", "TEMPLATES_URL", "MEDIA_URL", "HOME",
		"WEBHOOK_ALLOW_LOOPBACK", "WEBHOOK_RETRY_DELAYS", "WEBHOOK_QUEUE_NAME",
		"DYNAMODB_LOCAL_DIR", "DYNAMODB_LOCAL_HEAP", "DYNAMODB_CONFLICT_HOLD", "RATE_LIMITS"} {
		env[k] = getenv(k)
	}
	// The public functions' limits per client and per survey, as on
	// Lambda; RATE_LIMITS=off serves without them, a number sizes the
	// client's (requests a minute).
	rates, err := ratelimit.RatesFromEnv(env["RATE_LIMITS"])
	if err != nil {
		return err
	}
	if env["AWS_ENDPOINT_URL"] == "" {
		emu, err := startEmulators(ctx, env, stdout)
		if err != nil {
			return err
		}
		defer emu.stop()
	}
	get := func(k string) string { return env[k] }
	port := or(env["PORT"], "3000")

	st, err := localaws.OpenStore(ctx, get)
	if err != nil {
		return err
	}
	if err := localaws.EnsureTable(ctx, st.Client(), st.TableName()); err != nil {
		return err
	}
	cfg, err := localaws.Load(ctx, awsenv.FromEnv(get))
	if err != nil {
		return err
	}
	kmsClient := kms.NewFromConfig(cfg)
	keyID := links.KeyFromEnv(get)
	if strings.HasPrefix(keyID, "alias/") {
		if _, err := localaws.EnsureKey(ctx, kmsClient, keyID); err != nil {
			return err
		}
	}
	bucket := exports.New(cfg, exports.BucketFromEnv(get))
	if err := localaws.EnsureExports(ctx, bucket); err != nil {
		return err
	}
	// The responders' files: the bucket's CORS rule lets the service's
	// own pages POST to it.
	origin := strings.TrimSuffix(or(env["PUBLIC_SURVEY_URL"], "http://127.0.0.1:"+port), "/")
	files := uploads.New(cfg, uploads.BucketFromEnv(get))
	if endpoint := or(env["AWS_ENDPOINT_URL_S3"], env["AWS_ENDPOINT_URL"]); endpoint != "" {
		// moto: the browser's POSTs go through the CORS proxy (s3cors.go).
		proxy, err := newS3CORS(endpoint, origin)
		if err != nil {
			return err
		}
		at, stop, err := proxy.listen()
		if err != nil {
			return err
		}
		defer stop()
		files = localaws.UploadsAt(cfg, uploads.BucketFromEnv(get), at)
	}
	if err := localaws.EnsureUploads(ctx, files, origin); err != nil {
		return err
	}
	n, err := st.ImportTemplates(ctx, seed.Templates)
	if err != nil {
		return fmt.Errorf("load the sample catalog: %w", err)
	}
	key, err := demoKey(ctx, st)
	if err != nil {
		return err
	}

	// Webhooks: the same dispatch and delivery code as in AWS, fed by
	// pollers of moto's stream and queue. Loopback receivers are allowed
	// locally unless WEBHOOK_ALLOW_LOOPBACK=false.
	delays, err := webhook.ParseDelays(env["WEBHOOK_RETRY_DELAYS"])
	if err != nil {
		return err
	}
	guard := webhook.Guard{AllowLoopback: env["WEBHOOK_ALLOW_LOOPBACK"] != "false"}
	sealer := links.NewSealer(kmsClient, keyID, st)
	hookCtx, stopHooks := context.WithCancel(ctx)
	defer stopHooks()
	hk, err := startHooks(hookCtx, st, sealer, hookOptions{aws: awsenv.FromEnv(get), queueName: or(env["WEBHOOK_QUEUE_NAME"], "survey-webhooks"),
		visibility: 60 * time.Second, guard: guard, delays: delays, workers: 2, maxIdle: 200 * time.Millisecond, files: files})
	if err != nil {
		return fmt.Errorf("webhooks: %w", err)
	}

	if _, err := startTally(hookCtx, st, awsenv.FromEnv(get)); err != nil {
		return fmt.Errorf("tally: %w", err)
	}
	jobs, err := startExportJobs(hookCtx, st, bucket, awsenv.FromEnv(get), or(env["EXPORT_QUEUE_NAME"], "survey-exports"))
	if err != nil {
		return fmt.Errorf("export jobs: %w", err)
	}

	// The API's own address, as API_BASE_URL is on Lambda: every absolute
	// URL it writes starts with it (contract section 3).
	apiBase, err := api.ParseBaseURL(or(env["API_BASE_URL"], "http://127.0.0.1:"+port))
	if err != nil {
		return fmt.Errorf("API_BASE_URL: %w", err)
	}
	handler := api.ServeAt(apiBase, serveWithin(routers(st, config{
		templates: templates.Config{
			MediaURL:     or(env["MEDIA_URL"], "http://127.0.0.1:"+port),
			TemplatesURL: or(env["TEMPLATES_URL"], "http://127.0.0.1:"+port),
		},
		variables:  variables.Config{SurveyURL: or(env["PUBLIC_SURVEY_URL"], "http://127.0.0.1:"+port)},
		sealer:     sealer,
		queue:      hk.queue,
		guard:      guard,
		exports:    bucket,
		exportJobs: jobs.queue,
		uploads:    files,
		pages: pages.Config{PublicURL: or(env["PUBLIC_SURVEY_URL"], "http://127.0.0.1:"+port), PrivacyURL: env["PRIVACY_URL"],
			UploadsOrigin: files.Origin()},
	}), limited(st, rates)))
	demo, err := demoSurvey(apiClient{h: handler, key: key}, "http://127.0.0.1:"+port)
	if err != nil {
		return fmt.Errorf("demo survey: %w", err)
	}
	// The sample templates backed by real surveys (a second import of the
	// catalog, with their survey ids).
	if n, _, err = loadCatalog(ctx, st, handler, seed.Templates); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		return fmt.Errorf("listen on 127.0.0.1:%s: %w (set PORT to use another port)", port, err)
	}
	server := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	fmt.Fprintf(stdout, "Loaded %d sample templates; table %q on %s\n", n, st.TableName(), or(env["AWS_ENDPOINT_URL_DYNAMODB"], env["AWS_ENDPOINT_URL"]))
	fmt.Fprintf(stdout, "Demo account: %s (enterprise plan)\n", demoEmail)
	fmt.Fprintf(stdout, "API key: %s\n", key)
	fmt.Fprintf(stdout, "Listening on http://127.0.0.1:%s\n", port)
	fmt.Fprintf(stdout, "Responder page: http://127.0.0.1:%s/s/%s/\n", port, demo.URLSlug)
	fmt.Fprintf(stdout, "Report: http://127.0.0.1:%s/r/%s/\n", port, demo.ReportCode)
	fmt.Fprintf(stdout, "Start a survey from a template: curl -H 'Authorization: API-Key %s' -H 'Content-Type: application/json' -d '{\"template\": \"customer-satisfaction-survey\", \"folder_id\": %d}' http://127.0.0.1:%s/api/v2/surveys/\n", key, demo.FolderID, port)
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
	stopHooks()
	return hk.wait(10 * time.Second)
}

// demoKey creates the demo account, or finds it on an endpoint that already
// has it, and issues a fresh key for it.
func demoKey(ctx context.Context, st *store.Store) (string, error) {
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
