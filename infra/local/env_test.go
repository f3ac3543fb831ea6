package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"surveyservice/infra/seed"
	"surveyservice/internal/dnstest"
	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
)

// madeByRun are the variables a Lambda main reads that `make run` sets
// itself, because it makes what they name: the queues (by
// WEBHOOK_QUEUE_NAME and EXPORT_QUEUE_NAME, which it reads) and the CORS
// proxy in front of the uploads bucket, whose origin the pages must name.
var madeByRun = map[string]string{
	"DOMAINS_DISTRIBUTION_ID": "make run records the CloudFront calls in its outbox (moto has no distribution tenants)",
	"WEBHOOK_QUEUE_URL":       "make run creates the queue named WEBHOOK_QUEUE_NAME",
	"WEBHOOK_SLOW_QUEUE_URL":  "make run creates the slow lane beside WEBHOOK_QUEUE_NAME",
	"WEBHOOK_SLOW_QUEUE_ARN":  "make run creates the slow lane beside WEBHOOK_QUEUE_NAME",
	"EXPORT_QUEUE_URL":        "make run creates the queue named EXPORT_QUEUE_NAME",
	"UPLOADS_ORIGIN":          "make run's CORS proxy is the uploads' origin",
}

// runVar is one variable `make run` reads and how a run shows that it
// used it: check looks at a run started with envRun's environment; bad is
// a value run refuses before it starts anything.
type runVar struct {
	name  string
	check func(t *testing.T, r *envRun)
	bad   string
}

// runVars are every variable a Lambda main reads (less madeByRun) and
// every variable the configuration table in docs/operating.md documents.
var runVars = []runVar{
	// First: a later check's own run (AWS_DEFAULT_REGION) shares the path
	// and removes the file when it stops.
	{name: "ADMIN_ENV_FILE", check: func(t *testing.T, r *envRun) {
		b, err := os.ReadFile(r.env["ADMIN_ENV_FILE"])
		if err != nil || !strings.Contains(string(b), "TABLE_NAME="+r.env["TABLE_NAME"]+"\n") {
			t.Errorf("the admin env file: %v\n%s", err, b)
		}
	}},
	{name: "AWS_ENDPOINT_URL", check: func(t *testing.T, r *envRun) {
		// A dead endpoint: the run only works because every service has
		// its own endpoint, as the SDKs' service-specific variables say.
		if r.started == "" {
			t.Error("run did not start")
		}
	}},
	{name: "AWS_ENDPOINT_URL_DYNAMODB", check: func(t *testing.T, r *envRun) { r.sawCalls(t, "AWS_ENDPOINT_URL_DYNAMODB") }},
	{name: "AWS_ENDPOINT_URL_DYNAMODB_STREAMS", check: func(t *testing.T, r *envRun) { r.sawCalls(t, "AWS_ENDPOINT_URL_DYNAMODB_STREAMS") }},
	{name: "AWS_ENDPOINT_URL_KMS", check: func(t *testing.T, r *envRun) { r.sawCalls(t, "AWS_ENDPOINT_URL_KMS") }},
	{name: "AWS_ENDPOINT_URL_SQS", check: func(t *testing.T, r *envRun) { r.sawCalls(t, "AWS_ENDPOINT_URL_SQS") }},
	{name: "AWS_ENDPOINT_URL_S3", check: func(t *testing.T, r *envRun) { r.sawCalls(t, "AWS_ENDPOINT_URL_S3") }},
	{name: "AWS_ENDPOINT_URL_SESV2", check: func(t *testing.T, r *envRun) { r.sawCalls(t, "AWS_ENDPOINT_URL_SESV2") }},
	{name: "AWS_ENDPOINT_URL_SNS", check: func(t *testing.T, r *envRun) { r.sawCalls(t, "AWS_ENDPOINT_URL_SNS") }},
	{name: "MAIL_FROM", check: func(t *testing.T, r *envRun) {
		// make run verifies the identity on the emulator, as a deployment
		// does once in SES.
		if _, err := sesv2.NewFromConfig(r.moto(t)).GetEmailIdentity(context.Background(),
			&sesv2.GetEmailIdentityInput{EmailIdentity: aws.String(r.env["MAIL_FROM"])}); err != nil {
			t.Error(err)
		}
	}},
	{name: "SMS_SENDER_ID", check: func(t *testing.T, r *envRun) {
		out, err := sns.NewFromConfig(r.moto(t)).GetSMSAttributes(context.Background(), &sns.GetSMSAttributesInput{})
		if err != nil || out.Attributes["DefaultSenderID"] != r.env["SMS_SENDER_ID"] {
			t.Errorf("the SMS preferences %v, %v; want the sender id %s", out, err, r.env["SMS_SENDER_ID"])
		}
	}},
	{name: "VERIFY_LIMITS", bad: "survey=lots"},
	{name: "SMS_DAILY_LIMIT", bad: "lots"},
	{name: "AWS_REGION", check: func(t *testing.T, r *envRun) { r.signedIn(t, "eu-west-1") }},
	{name: "AWS_DEFAULT_REGION", check: func(t *testing.T, r *envRun) {
		// AWS_REGION wins where both are set, as on Lambda; alone, it is
		// the region.
		env := r.baseEnv(t)
		delete(env, "AWS_REGION")
		alone := startEnvRun(t, env)
		alone.signedIn(t, "ap-south-1")
	}},
	{name: "AWS_ACCESS_KEY_ID", check: func(t *testing.T, r *envRun) {
		for _, a := range r.authorizations() {
			if !strings.Contains(a, "Credential="+r.env["AWS_ACCESS_KEY_ID"]+"/") {
				t.Fatalf("a call signed as %q", a)
			}
		}
	}},
	{name: "AWS_SECRET_ACCESS_KEY", check: func(t *testing.T, r *envRun) { r.signedWithSecret(t) }},
	{name: "AWS_SESSION_TOKEN", check: func(t *testing.T, r *envRun) {
		for _, c := range r.calls() {
			if got := c.header.Get("X-Amz-Security-Token"); got != r.env["AWS_SESSION_TOKEN"] {
				t.Fatalf("a call with the session token %q", got)
			}
		}
	}},
	{name: "TABLE_NAME", check: func(t *testing.T, r *envRun) {
		// DynamoDB Local keeps the tests' tables in a database per access
		// key and region: the run's own.
		cfg := testenv.Config(t)
		cfg.Region, cfg.Credentials = r.env["AWS_REGION"], credentials.NewStaticCredentialsProvider(r.env["AWS_ACCESS_KEY_ID"], "x", "")
		if _, err := dynamodb.NewFromConfig(cfg).DescribeTable(context.Background(),
			&dynamodb.DescribeTableInput{TableName: aws.String(r.env["TABLE_NAME"])}); err != nil {
			t.Error(err)
		}
	}},
	{name: "KMS_KEY_ID", check: func(t *testing.T, r *envRun) {
		if _, err := kms.NewFromConfig(r.moto(t)).DescribeKey(context.Background(),
			&kms.DescribeKeyInput{KeyId: aws.String(r.env["KMS_KEY_ID"])}); err != nil {
			t.Error(err)
		}
	}},
	{name: "EXPORTS_BUCKET", check: func(t *testing.T, r *envRun) { r.bucketExists(t, r.env["EXPORTS_BUCKET"]) }},
	{name: "UPLOADS_BUCKET", check: func(t *testing.T, r *envRun) { r.bucketExists(t, r.env["UPLOADS_BUCKET"]) }},
	{name: "WEBHOOK_QUEUE_NAME", check: func(t *testing.T, r *envRun) { r.queueExists(t, r.env["WEBHOOK_QUEUE_NAME"]) }},
	{name: "EXPORT_QUEUE_NAME", check: func(t *testing.T, r *envRun) { r.queueExists(t, r.env["EXPORT_QUEUE_NAME"]) }},
	{name: "PORT", check: func(t *testing.T, r *envRun) {
		if r.started != "http://127.0.0.1:"+r.env["PORT"] {
			t.Errorf("listening on %s", r.started)
		}
	}},
	{name: "PUBLIC_SURVEY_URL", check: func(t *testing.T, r *envRun) {
		// The uploads bucket's CORS rule admits the service's pages.
		cors, err := s3.NewFromConfig(r.moto(t), func(o *s3.Options) { o.UsePathStyle = true }).GetBucketCors(context.Background(),
			&s3.GetBucketCorsInput{Bucket: aws.String(r.env["UPLOADS_BUCKET"])})
		if err != nil {
			t.Fatal(err)
		}
		if len(cors.CORSRules) == 0 || !slices.Contains(cors.CORSRules[0].AllowedOrigins, r.env["PUBLIC_SURVEY_URL"]) {
			t.Errorf("the uploads bucket's CORS rules %+v", cors.CORSRules)
		}
	}},
	{name: "PUBLIC_SURVEY_DOMAIN", check: func(t *testing.T, r *envRun) {
		// A claimed subdomain under it serves the account's page by Host;
		// an unclaimed one answers 404 (contract section 23).
		c := r.owner(t)
		sv, err := buildSurvey(c, surveySpec{Name: "by host", Language: 1})
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("runenv%d", time.Now().UnixNano()%1e9)
		if err := c.call("PUT", "/api/account/subdomain/", map[string]any{"subdomain": name}, nil); err != nil {
			t.Fatal(err)
		}
		for host, want := range map[string]int{name + "." + r.env["PUBLIC_SURVEY_DOMAIN"]: 200, "unclaimed-x." + r.env["PUBLIC_SURVEY_DOMAIN"]: 404} {
			req, _ := http.NewRequest("GET", r.started+"/s/"+sv.URLSlug+"/", nil)
			req.Host = host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("GET /s/ on %s: %d, want %d", host, resp.StatusCode, want)
			}
		}
	}},
	{name: "DNS_RESOLVER", check: func(t *testing.T, r *envRun) {
		// A claim verified through the resolver it names makes the domain
		// serve the account's page by Host (contract section 23).
		c := r.owner(t)
		sv, err := buildSurvey(c, surveySpec{Name: "by domain", Language: 1})
		if err != nil {
			t.Fatal(err)
		}
		domain := fmt.Sprintf("forms-%d.acme.example", time.Now().UnixNano()%1e9)
		var d struct {
			ID           int64  `json:"id"`
			CNAMETarget  string `json:"cname_target"`
			Verification struct {
				Name  string `json:"name"`
				Value string `json:"value"`
			} `json:"verification"`
		}
		if err := c.call("POST", "/api/account/domains/", map[string]any{"domain": domain}, &d); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(d.CNAMETarget, "."+r.env["DOMAINS_TARGET_SUFFIX"]) {
			t.Errorf("cname_target %q is not under DOMAINS_TARGET_SUFFIX %q", d.CNAMETarget, r.env["DOMAINS_TARGET_SUFFIX"])
		}
		r.dns.SetTXT(d.Verification.Name, d.Verification.Value)
		r.dns.SetCNAME(domain, d.CNAMETarget)
		if err := c.call("POST", fmt.Sprintf("/api/account/domains/%d/verify/", d.ID), nil, nil); err != nil {
			t.Fatal(err)
		}
		for host, want := range map[string]int{domain: 200, "unclaimed." + domain: 404} {
			req, _ := http.NewRequest("GET", r.started+"/s/"+sv.URLSlug+"/", nil)
			req.Host = host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("GET /s/ on %s: %d, want %d", host, resp.StatusCode, want)
			}
		}
		// The CloudFront call the verify would make (moto has no
		// distribution tenants) is recorded in the local outbox.
		resp, err := http.Get(r.started + "/local/outbox/")
		if err != nil {
			t.Fatal(err)
		}
		var sent []struct{ To, Channel, Subject string }
		err = json.NewDecoder(resp.Body).Decode(&sent)
		resp.Body.Close()
		if err != nil || !slices.Contains(sent, struct{ To, Channel, Subject string }{domain, "cloudfront", "CreateDistributionTenant"}) {
			t.Errorf("the local outbox has no CreateDistributionTenant of %s: %+v, %v", domain, sent, err)
		}
	}},
	{name: "DOMAINS_ORIGIN_SECRET", check: func(t *testing.T, r *envRun) {
		// A submission carrying the custom domains' distribution's secret
		// records its viewer's address (X-Survey-Viewer); one with another
		// secret records its own (the loopback's).
		c := r.owner(t)
		sv, err := buildSurvey(c, surveySpec{Name: "viewer address", Language: 4, Elements: []map[string]any{{"type": 2, "title": "Name?"}}})
		if err != nil {
			t.Fatal(err)
		}
		qid := fmt.Sprint(sv.Elements[0]["id"])
		for secret, want := range map[string]string{r.env["DOMAINS_ORIGIN_SECRET"]: "203.0.113.77", "another": "127.0.0.1"} {
			post := func(path string, body any, out any) {
				b, _ := json.Marshal(body)
				req, _ := http.NewRequest("POST", r.started+path, bytes.NewReader(b))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Idempotency-Key", fmt.Sprintf("origin-%d", time.Now().UnixNano()))
				req.Header.Set("X-Survey-Origin", secret)
				req.Header.Set("X-Survey-Viewer", "203.0.113.77")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				if resp.StatusCode/100 != 2 || json.NewDecoder(resp.Body).Decode(out) != nil {
					t.Fatalf("POST %s: %d", path, resp.StatusCode)
				}
			}
			var session struct{ Session string }
			post("/api/public/surveys/"+sv.URLSlug+"/sessions/", map[string]any{}, &session)
			var done struct{ ID int64 }
			post("/api/public/surveys/"+sv.URLSlug+"/responses/", map[string]any{"session": session.Session, "answers": map[string]any{qid: "x"}}, &done)
			var got struct {
				Responder struct{ IP string } `json:"responder"`
			}
			if err := c.call("GET", fmt.Sprintf("/api/surveys/%d/responses/%d/", sv.ID, done.ID), nil, &got); err != nil {
				t.Fatal(err)
			}
			if got.Responder.IP != want {
				t.Errorf("a submission with the secret %q recorded the address %q, want %q", secret, got.Responder.IP, want)
			}
		}
	}},
	{name: "DOMAINS_TARGET_SUFFIX", check: func(t *testing.T, r *envRun) {
		var d struct {
			CNAMETarget string `json:"cname_target"`
		}
		domain := fmt.Sprintf("suffix-%d.acme.example", time.Now().UnixNano()%1e9)
		if err := r.owner(t).call("POST", "/api/account/domains/", map[string]any{"domain": domain}, &d); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(d.CNAMETarget, "."+r.env["DOMAINS_TARGET_SUFFIX"]) {
			t.Errorf("cname_target %q is not under DOMAINS_TARGET_SUFFIX %q", d.CNAMETarget, r.env["DOMAINS_TARGET_SUFFIX"])
		}
	}},
	{name: "TEMPLATES_URL", check: func(t *testing.T, r *envRun) {
		if page := r.templatePage(t); !strings.Contains(page, "embedding_link points at the public survey on "+r.env["TEMPLATES_URL"]) {
			t.Errorf("the template's page does not name TEMPLATES_URL:\n%s", page)
		}
	}},
	{name: "MEDIA_URL", check: func(t *testing.T, r *envRun) {
		if page := r.templatePage(t); !strings.Contains(page, "resolve against "+r.env["MEDIA_URL"]) {
			t.Errorf("the template's page does not name MEDIA_URL:\n%s", page)
		}
	}},
	{name: "PRIVACY_URL", check: func(t *testing.T, r *envRun) {
		sv, err := buildSurvey(r.owner(t), withWelcome("privacy", map[string]any{"privacy_preserving_message_enabled": true}))
		if err != nil {
			t.Fatal(err)
		}
		if page := r.get(t, "/s/"+sv.URLSlug+"/"); !strings.Contains(page, `href="`+r.env["PRIVACY_URL"]+`"`) {
			t.Errorf("the welcome page does not link the privacy notice:\n%s", page)
		}
	}},
	{name: "WEBHOOK_ALLOW_LOOPBACK", check: func(t *testing.T, r *envRun) {
		sv, err := buildSurvey(r.owner(t), surveySpec{Name: "loopback", Language: 4})
		if err != nil {
			t.Fatal(err)
		}
		err = r.owner(t).call("POST", "/api/surveys/"+jsonID(sv.ID)+"/webhooks/", map[string]any{"url": "http://127.0.0.1:9/hook"}, nil)
		if err == nil || !strings.Contains(err.Error(), ": 400 ") {
			t.Errorf("a loopback webhook with WEBHOOK_ALLOW_LOOPBACK=false: %v", err)
		}
	}},
	{name: "WEBHOOK_RETRY_DELAYS", bad: "soon"},
	{name: "RATE_LIMITS", bad: "many"},
	{name: "API_BASE_URL", bad: "ftp://api.example.com"},
	{name: "DYNAMODB_CONFLICT_HOLD", bad: "-1s"},
	{name: "DYNAMODB_LOCAL_DIR", bad: "/nonexistent/dynamodb-local"},
	{name: "DYNAMODB_LOCAL_HEAP", bad: "lots"},
	// make run's own: TestRunKeepsItsData shows the kept data used.
	{name: "LOCAL_DATA_DIR", bad: "/dev/null/kept"},
	{name: "LOG_FILE", bad: "/dev/null/make-run.log"},
}

func jsonID(id int64) string { b, _ := json.Marshal(id); return string(b) }

// TestRunReadsItsEnvironment is `make run` reading its environment as the
// Lambda mains read theirs: each variable they read, and each docs/operating.md
// documents, set to a value of its own, is used (a bad value is refused
// by name). Before, run copied a hand-kept list of 24 variables, and
// UPLOADS_BUCKET, EXPORT_QUEUE_NAME and AWS_ENDPOINT_URL_KMS, _SQS and _S3
// were silently ignored.
func TestRunReadsItsEnvironment(t *testing.T) {
	r := startEnvRun(t, nil)
	for _, v := range runVars {
		t.Run(v.name, func(t *testing.T) {
			if v.bad == "" {
				v.check(t, r)
				return
			}
			// Without AWS_ENDPOINT_URL, so that the emulators' variables
			// are read too; each bad value is refused before anything
			// starts for good.
			env := map[string]string{"HOME": os.Getenv("HOME"), "PORT": freePort(t), v.name: v.bad}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			err := run(ctx, func(k string) string { return env[k] }, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), v.bad) && !strings.Contains(err.Error(), v.name) {
				t.Errorf("%s=%q: run returned %v, want it refused", v.name, v.bad, err)
			}
		})
	}
}

// TestRunVarsAreEveryVariable holds runVars to every variable a Lambda
// main reads (the getenv calls of functions/ and shared/) and every one
// the configuration table in docs/operating.md documents.
func TestRunVarsAreEveryVariable(t *testing.T) {
	want := map[string]string{}
	literal := regexp.MustCompile(`(?i)getenv\("([A-Z0-9_]+)"\)`)
	for _, dir := range []string{"../../functions", "../../shared"} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			for _, m := range literal.FindAllStringSubmatch(string(b), -1) {
				want[m[1]] = path
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, svc := range awsenv.Services {
		want[awsenv.EndpointVar(svc)] = "awsenv.Services"
	}
	readme, err := os.ReadFile("../../docs/operating.md")
	if err != nil {
		t.Fatal(err)
	}
	_, conf, _ := strings.Cut(string(readme), "\n## Configuration\n")
	conf, _, _ = strings.Cut(conf, "\n## ")
	row, name := regexp.MustCompile(`(?m)^\| ([^|]*) \|`), regexp.MustCompile("`([A-Z0-9_]+)`")
	for _, m := range row.FindAllStringSubmatch(conf, -1) {
		for _, n := range name.FindAllStringSubmatch(m[1], -1) {
			want[n[1]] = "docs/operating.md"
		}
	}
	if len(want) < 20 {
		t.Fatalf("found only %d variables: %v", len(want), want)
	}
	for name, where := range want {
		if _, ok := madeByRun[name]; ok {
			continue
		}
		if !slices.ContainsFunc(runVars, func(v runVar) bool { return v.name == name }) {
			t.Errorf("%s (read in %s) is not in runVars", name, where)
		}
	}
}

// envRun is a run of `make run` with every variable set to a value of its
// own, each AWS service on an endpoint of its own that records its calls.
type envRun struct {
	env       map[string]string
	started   string
	endpoints map[string]*recorder
	key       string
	once      sync.Once
	tmpl      string
	// dns is the DNS server DNS_RESOLVER names, whose records the checks set.
	dns *dnstest.Server
}

// baseEnv is the run's environment, a copy.
func (r *envRun) baseEnv(_ *testing.T) map[string]string {
	env := map[string]string{}
	for k, v := range r.env {
		env[k] = v
	}
	return env
}

// startEnvRun starts run() with env, or (nil) with every variable set.
func startEnvRun(t *testing.T, env map[string]string) *envRun {
	t.Helper()
	lambda := testenv.Env(t)
	r := &envRun{endpoints: map[string]*recorder{}}
	targets := map[string]string{
		"AWS_ENDPOINT_URL_DYNAMODB": lambda["AWS_ENDPOINT_URL_DYNAMODB"], "AWS_ENDPOINT_URL_DYNAMODB_STREAMS": lambda["AWS_ENDPOINT_URL_DYNAMODB_STREAMS"],
		"AWS_ENDPOINT_URL_KMS": lambda["AWS_ENDPOINT_URL"], "AWS_ENDPOINT_URL_SQS": lambda["AWS_ENDPOINT_URL"], "AWS_ENDPOINT_URL_S3": lambda["AWS_ENDPOINT_URL"],
		"AWS_ENDPOINT_URL_SESV2": lambda["AWS_ENDPOINT_URL"], "AWS_ENDPOINT_URL_SNS": lambda["AWS_ENDPOINT_URL"],
	}
	if env == nil {
		port := freePort(t)
		r.dns = dnstest.Start(t)
		env = map[string]string{
			"DNS_RESOLVER": r.dns.Addr, "DOMAINS_TARGET_SUFFIX": "domains.run-env.test", "DOMAINS_ORIGIN_SECRET": "run-env-origin-" + port,
			// Nothing listens on the discard port: every call must go to
			// its service's own endpoint.
			"AWS_ENDPOINT_URL": "http://127.0.0.1:9",
			"AWS_REGION":       "eu-west-1", "AWS_DEFAULT_REGION": "ap-south-1",
			"AWS_ACCESS_KEY_ID": "AKIDMAKERUNTEST", "AWS_SECRET_ACCESS_KEY": "make-run-secret", "AWS_SESSION_TOKEN": "make-run-token",
			"TABLE_NAME": "local-run-env-" + port, "KMS_KEY_ID": "alias/run-env-" + port,
			"EXPORTS_BUCKET": "run-env-exports-" + port, "UPLOADS_BUCKET": "run-env-uploads-" + port,
			"WEBHOOK_QUEUE_NAME": "run-env-webhooks-" + port, "EXPORT_QUEUE_NAME": "run-env-exports-" + port,
			"PUBLIC_SURVEY_URL": "https://surveys.example.com", "PUBLIC_SURVEY_DOMAIN": "run-env.test", "TEMPLATES_URL": "https://templates.example.net",
			"MEDIA_URL": "https://media.example.org", "PRIVACY_URL": "https://example.com/privacy",
			"WEBHOOK_ALLOW_LOOPBACK": "false", "WEBHOOK_RETRY_DELAYS": "1s,2s", "RATE_LIMITS": "off",
			"MAIL_FROM": "run-env-" + port + "@mail.example.com", "SMS_SENDER_ID": "RunEnv" + port[len(port)-2:],
			"PORT": port, "HOME": os.Getenv("HOME"), "ADMIN_ENV_FILE": filepath.Join(t.TempDir(), "make-run.env"),
		}
	}
	env["PORT"] = freePort(t)
	for name, target := range targets {
		rec := newRecorder(t, target)
		r.endpoints[name] = rec
		env[name] = rec.srv.URL
	}
	r.env = env
	_, r.started = startLocal(t, env)
	return r
}

// sawCalls checks that calls went to the endpoint named by variable.
func (r *envRun) sawCalls(t *testing.T, variable string) {
	t.Helper()
	if n := len(r.endpoints[variable].all()); n == 0 {
		t.Errorf("no call went to %s", variable)
	}
}

func (r *envRun) calls() []call {
	var all []call
	for _, rec := range r.endpoints {
		all = append(all, rec.all()...)
	}
	return all
}

func (r *envRun) authorizations() []string {
	var out []string
	for _, c := range r.calls() {
		out = append(out, c.header.Get("Authorization"))
	}
	return out
}

// signedIn checks that every call was signed for region.
func (r *envRun) signedIn(t *testing.T, region string) {
	t.Helper()
	for _, a := range r.authorizations() {
		if !strings.Contains(a, "/"+region+"/") {
			t.Fatalf("a call signed as %q, want region %s", a, region)
		}
	}
}

// signedWithSecret signs the first KMS call again with the run's secret
// and finds the same signature.
func (r *envRun) signedWithSecret(t *testing.T) {
	t.Helper()
	calls := r.endpoints["AWS_ENDPOINT_URL_KMS"].all()
	if len(calls) == 0 {
		t.Fatal("no KMS call")
	}
	c := calls[0]
	auth := c.header.Get("Authorization")
	_, signed, _ := strings.Cut(auth, "SignedHeaders=")
	signed, _, _ = strings.Cut(signed, ",")
	req, err := http.NewRequest(c.method, "http://"+c.host+c.uri, bytes.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = c.host
	for _, h := range strings.Split(signed, ";") {
		if h != "host" && h != "content-length" {
			req.Header[http.CanonicalHeaderKey(h)] = c.header.Values(h)
		}
	}
	at, err := time.Parse("20060102T150405Z", c.header.Get("X-Amz-Date"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(c.body)
	creds := aws.Credentials{AccessKeyID: r.env["AWS_ACCESS_KEY_ID"], SecretAccessKey: r.env["AWS_SECRET_ACCESS_KEY"], SessionToken: r.env["AWS_SESSION_TOKEN"]}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), "kms", r.env["AWS_REGION"], at); err != nil {
		t.Fatal(err)
	}
	if got := req.Header.Get("Authorization"); got != auth {
		t.Errorf("the KMS call was not signed with AWS_SECRET_ACCESS_KEY:\n got %s\nwant %s", auth, got)
	}
}

// moto is a configuration on the emulator's moto in the run's region.
func (r *envRun) moto(t *testing.T) aws.Config {
	t.Helper()
	env := map[string]string{"AWS_REGION": r.env["AWS_REGION"], "AWS_ENDPOINT_URL": r.endpoints["AWS_ENDPOINT_URL_S3"].target}
	cfg, err := awsenv.Load(context.Background(), awsenv.FromEnv(func(k string) string { return env[k] }))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func (r *envRun) bucketExists(t *testing.T, name string) {
	t.Helper()
	if _, err := s3.NewFromConfig(r.moto(t), func(o *s3.Options) { o.UsePathStyle = true }).HeadBucket(context.Background(),
		&s3.HeadBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Errorf("bucket %s: %v", name, err)
	}
}

func (r *envRun) queueExists(t *testing.T, name string) {
	t.Helper()
	if _, err := sqs.NewFromConfig(r.moto(t)).GetQueueUrl(context.Background(), &sqs.GetQueueUrlInput{QueueName: aws.String(name)}); err != nil {
		t.Errorf("queue %s in %s: %v", name, r.env["AWS_REGION"], err)
	}
}

// owner is an enterprise account on the run's table, made as the admin
// command makes one, calling the run's server.
func (r *envRun) owner(t *testing.T) apiClient {
	t.Helper()
	if r.key == "" {
		r.key = accountOn(t, r.env)
	}
	u, err := url.Parse(r.started)
	if err != nil {
		t.Fatal(err)
	}
	return apiClient{h: httputil.NewSingleHostReverseProxy(u), key: r.key}
}

// templatePage is a sample template's browsable page (whose note says
// where its links point), after the sample catalog is imported as `admin
// templates import` does.
func (r *envRun) templatePage(t *testing.T) string {
	t.Helper()
	r.once.Do(func() {
		ctx := context.Background()
		st, err := localaws.OpenStore(ctx, func(k string) string { return r.env[k] })
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.ImportTemplates(ctx, seed.Templates); err != nil {
			t.Fatal(err)
		}
		var catalog []struct {
			Slug string `json:"url_slug"`
		}
		if err := json.Unmarshal(seed.Templates, &catalog); err != nil || len(catalog) == 0 {
			t.Fatalf("sample catalog: %v", err)
		}
		r.tmpl = r.get(t, "/api/templates/"+url.PathEscape(catalog[0].Slug)+"/?format=api")
	})
	return r.tmpl
}

func (r *envRun) get(t *testing.T, path string) string {
	t.Helper()
	resp, err := http.Get(r.started + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// call is one request an endpoint received.
type call struct {
	method, host, uri string
	header            http.Header
	body              []byte
}

// recorder is an AWS endpoint that records each call and passes it on to
// target.
type recorder struct {
	target string
	srv    *httptest.Server
	mu     sync.Mutex
	calls  []call
}

func newRecorder(t *testing.T, target string) *recorder {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{target: target}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(u)
		r.Out.Host = r.In.Host
	}}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.calls = append(rec.calls, call{method: r.Method, host: r.Host, uri: r.RequestURI, header: r.Header.Clone(), body: body})
		rec.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

func (rec *recorder) all() []call {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.calls)
}
