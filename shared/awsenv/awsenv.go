// Package awsenv builds the AWS SDK configuration every function and tool
// shares, counts the DynamoDB and KMS calls each request makes, and tells
// transient AWS failures (answered 503) from real ones (answered 500).
package awsenv

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
)

// MaxAttempts, MaxBackoff and AttemptTimeout are the HTTP functions'
// policy (HTTP), kept as names for the code that sizes work by them.
var (
	MaxAttempts    = HTTP.MaxAttempts
	MaxBackoff     = HTTP.MaxBackoff
	AttemptTimeout = HTTP.AttemptTimeout
)

// Policy is how hard the SDK tries one AWS call: attempts, the time each
// attempt may take, and the backoff between them. A call's worst case
// (WorstCall) must fit the time its function has, so it is set per kind of
// function.
type Policy struct {
	MaxAttempts int
	// AttemptTimeout bounds one attempt of a DynamoDB, KMS or SQS call:
	// small JSON requests that answer in milliseconds when well.
	AttemptTimeout time.Duration
	// S3AttemptTimeout bounds one attempt of an S3 call: an export's 8 MiB
	// part, an upload's check.
	S3AttemptTimeout time.Duration
	MaxBackoff       time.Duration
}

// WorstCall is the longest one call (not S3) can take before the SDK gives
// up: every attempt timing out, with the longest backoffs between.
func (p Policy) WorstCall() time.Duration {
	return time.Duration(p.MaxAttempts)*p.AttemptTimeout + time.Duration(p.MaxAttempts-1)*p.MaxBackoff
}

// The policies.
//
// HTTP is the API's functions': a route chains 1-8 calls (a submission
// 5-8) in a 10 s function whose handler is cut DeadlineMargin (1.5 s)
// before it (shared/api/deadline.go). DynamoDB answers in single-digit
// milliseconds, so a call that has not answered in 1 s is stuck (a lost
// connection, a hot partition): it is tried again at once, three times in
// all, and a dependency that stays slow makes the SDK give up after 3.4 s
// (WorstCall), so the handler answers the API's own 503 with Retry-After,
// well inside the 8.5 s the deadline leaves, instead of one stuck call
// (3 attempts of 3 s before) spending the whole request.
//
// Events is the functions that run on queues, streams and schedules
// (deliver, dispatch, retrier, sweeper, tally, exports) and the admin
// command: no client waits on them and a failed batch is retried whole, so
// a call tries harder (4 attempts of up to 4 s, backoff up to 1 s: 19 s
// at worst) within the shortest of their timeouts (deliver's 30 s).
var (
	HTTP   = Policy{MaxAttempts: 3, AttemptTimeout: time.Second, S3AttemptTimeout: 10 * time.Second, MaxBackoff: 200 * time.Millisecond}
	Events = Policy{MaxAttempts: 4, AttemptTimeout: 4 * time.Second, S3AttemptTimeout: 60 * time.Second, MaxBackoff: time.Second}
)

// Config is what the environment says about AWS.
type Config struct {
	Region   string // AWS_REGION, default us-east-1
	Endpoint string // AWS_ENDPOINT_URL, for moto locally; empty in AWS
	// Endpoints are the service-specific endpoints, by the SDK's service id
	// ("DynamoDB", "DynamoDB Streams"), from AWS_ENDPOINT_URL_<ID> as the
	// AWS SDKs name them (AWS_ENDPOINT_URL_DYNAMODB, ..._DYNAMODB_STREAMS):
	// locally DynamoDB is DynamoDB Local while KMS, SQS and S3 are moto.
	// Empty in AWS.
	Endpoints map[string]string
	// Credentials defaults to the AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
	// and AWS_SESSION_TOKEN that Lambda sets ("test" for a local endpoint).
	// Tools that want profiles or SSO pass their own provider.
	Credentials aws.CredentialsProvider
	// Policy is the retry and timeout policy of the calls; zero means
	// HTTP.
	Policy Policy
}

// Services are the SDK service ids whose AWS_ENDPOINT_URL_<ID> FromEnv
// reads: the services this code calls.
var Services = []string{"DynamoDB", "DynamoDB Streams", "KMS", "SQS", "S3", "SESv2", "SNS"}

// EndpointVar is the environment variable of a service's own endpoint, as
// the AWS SDKs derive it from the service id: AWS_ENDPOINT_URL_DYNAMODB_STREAMS
// for "DynamoDB Streams".
func EndpointVar(service string) string {
	return "AWS_ENDPOINT_URL_" + strings.ToUpper(strings.ReplaceAll(service, " ", "_"))
}

// FromEnv reads the AWS settings once, from getenv.
func FromEnv(getenv func(string) string) Config {
	c := Config{Region: getenv("AWS_REGION"), Endpoint: getenv("AWS_ENDPOINT_URL")}
	for _, svc := range Services {
		if u := getenv(EndpointVar(svc)); u != "" {
			if c.Endpoints == nil {
				c.Endpoints = map[string]string{}
			}
			c.Endpoints[svc] = u
		}
	}
	if c.Region == "" {
		c.Region = getenv("AWS_DEFAULT_REGION")
	}
	if c.Region == "" {
		c.Region = "us-east-1"
	}
	id, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY")
	switch {
	case id != "" && secret != "":
		c.Credentials = credentials.NewStaticCredentialsProvider(id, secret, getenv("AWS_SESSION_TOKEN"))
	case c.Local():
		c.Credentials = credentials.NewStaticCredentialsProvider("test", "test", "")
	}
	return c
}

// Local reports whether any endpoint is set: the calls go to local
// emulators, not to AWS.
func (c Config) Local() bool { return c.Endpoint != "" || len(c.Endpoints) > 0 }

// Load returns the SDK configuration, with the call counter installed on
// every client made from it. It builds aws.Config by hand rather than with
// the SDK's config package: that package's profile, SSO and STS machinery
// doubles every function's binary and slows its cold start, and a Lambda
// function's credentials are in its environment anyway.
func Load(_ context.Context, c Config) (aws.Config, error) {
	if c.Credentials == nil {
		return aws.Config{}, errors.New("awsenv: no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_ENDPOINT_URL for a local emulator)")
	}
	p := c.Policy
	if p.MaxAttempts == 0 {
		p = HTTP
	}
	cfg := aws.Config{
		Region:      c.Region,
		Credentials: aws.NewCredentialsCache(c.Credentials),
		Retryer: func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = p.MaxAttempts
				o.MaxBackoff = p.MaxBackoff
				// A single write that met a running transaction on its item
				// (TransactionConflictException) may be tried again, as
				// DynamoDB advises; the SDK does not retry it by default.
				o.Retryables = append(o.Retryables, retry.RetryableErrorCode{
					Codes: map[string]struct{}{"TransactionConflictException": {}},
				})
			})
		},
		HTTPClient: policyClients(p),
		APIOptions: []func(*middleware.Stack) error{counterOptions},
	}
	if c.Endpoint != "" {
		cfg.BaseEndpoint = aws.String(c.Endpoint)
	}
	if len(c.Endpoints) > 0 {
		// Each client asks its config sources for its own endpoint (the
		// SDK's service-specific endpoint resolution), as the config
		// package's environment source would answer from the process's
		// AWS_ENDPOINT_URL_<ID>; here the answer comes from getenv.
		cfg.ConfigSources = append(cfg.ConfigSources, serviceEndpoints(c.Endpoints))
	}
	if c.Local() {
		cfg.HTTPClient = emulatorClients(c)
	}
	return cfg, nil
}

// policyClients sends each request with its policy's attempt timeout: S3's
// for S3, AttemptTimeout for every other service. The service is read from
// the request's context, which the SDK builds the request with. An attempt
// cut at its timeout fails as a timeout (not as a cancelled call: the
// call's own context is alive), which the retryer tries again.
func policyClients(p Policy) aws.HTTPClient {
	return serviceClients{
		short: awshttp.NewBuildableClient().WithTimeout(p.AttemptTimeout),
		s3:    awshttp.NewBuildableClient().WithTimeout(p.S3AttemptTimeout),
	}
}

type serviceClients struct{ short, s3 aws.HTTPClient }

func (c serviceClients) Do(r *http.Request) (*http.Response, error) {
	if awsmiddleware.GetServiceID(r.Context()) == "S3" {
		return c.s3.Do(r)
	}
	return c.short.Do(r)
}

// serviceEndpoints answers the SDK's question "which endpoint for this
// service?" (its ServiceBaseEndpointProvider interface).
type serviceEndpoints map[string]string

// GetServiceBaseEndpoint returns the endpoint of the service with SDK id
// sdkID, if one is set.
func (e serviceEndpoints) GetServiceBaseEndpoint(_ context.Context, sdkID string) (string, bool, error) {
	u, ok := e[sdkID]
	return u, ok, nil
}

// emulatorClients sends each request over the client of its emulator: one
// connection at a time to moto (AWS_ENDPOINT_URL; see emulatorClient), a
// pool of connections to a service-specific endpoint elsewhere (DynamoDB
// Local serves concurrent requests as DynamoDB does).
func emulatorClients(c Config) aws.HTTPClient {
	serial := emulatorClient()
	if len(c.Endpoints) == 0 {
		return serial
	}
	moto := ""
	if u, err := url.Parse(c.Endpoint); err == nil && c.Endpoint != "" {
		moto = u.Host
	}
	pooled := awshttp.NewBuildableClient().WithTimeout(30 * time.Second).WithTransportOptions(func(tr *http.Transport) {
		tr.MaxIdleConnsPerHost = 64
	})
	return hostClients{serialHost: moto, serial: serial, pooled: pooled}
}

// hostClients picks the HTTP client of a request by its host.
type hostClients struct {
	serialHost     string
	serial, pooled aws.HTTPClient
}

// Do sends the request on the client of its host.
func (h hostClients) Do(r *http.Request) (*http.Response, error) {
	if r.URL.Host == h.serialHost {
		return h.serial.Do(r)
	}
	return h.pooled.Do(r)
}

// emulatorClient talks to a local emulator over one connection at a time.
// moto serves requests on threads, and its TransactWriteItems deep-copies
// the table while other threads write it: concurrent transactions fail
// with 500s there (never in DynamoDB); and a transaction that fails puts
// its copy back, undoing what other connections wrote meanwhile, counter
// ADDs included, so that ids are handed out twice (store's
// TestEmulatorRollbackLosesConcurrentWrites). Serialising at the client
// keeps every interleaving of our own goroutines, which is what the
// concurrency tests are about, and loses no throughput (moto is bound by
// one core). Queued requests wait their turn, so the timeout is generous.
// It narrows the window without closing it: a request abandoned on a
// timeout or a cancelled context still runs in moto while the next one
// opens a new connection, which is why the store survives both a taken id
// and a retried write that had landed (store/ids.go, store/puttoken.go).
func emulatorClient() *awshttp.BuildableClient {
	return awshttp.NewBuildableClient().WithTimeout(30 * time.Second).WithTransportOptions(func(tr *http.Transport) {
		tr.MaxConnsPerHost = 1
		tr.MaxIdleConnsPerHost = 1
	})
}

// transientCodes are the AWS error codes that mean "try again later".
var transientCodes = map[string]bool{
	"ProvisionedThroughputExceededException": true,
	"ThrottlingException":                    true,
	"Throttling":                             true,
	"RequestLimitExceeded":                   true,
	"InternalServerError":                    true,
	"ServiceUnavailable":                     true,
	"TransactionInProgressException":         true,
	"TransactionConflict":                    true,
	"TransactionConflictException":           true,
	"LimitExceededException":                 true,
	"KMSInternalException":                   true,
	"DependencyTimeoutException":             true,
	"KeyUnavailableException":                true,
}

// IsUnavailable reports whether err is a throttle, timeout or outage of an
// AWS service: the client should retry, and the answer is 503.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var api smithy.APIError
	if errors.As(err, &api) && transientCodes[api.ErrorCode()] {
		return true
	}
	var maxAttempts *retry.MaxAttemptsError
	if errors.As(err, &maxAttempts) {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	return errors.Is(err, context.DeadlineExceeded)
}
