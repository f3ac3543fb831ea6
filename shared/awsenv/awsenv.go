// Package awsenv builds the AWS SDK configuration every function and tool
// shares, counts the DynamoDB and KMS calls each request makes, and tells
// transient AWS failures (answered 503) from real ones (answered 500).
package awsenv

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
)

// Retry and timeout choices. A Lambda function has a 10 s timeout (see
// template.yaml); three attempts of at most 3 s each, with jittered backoff
// capped at 500 ms, end well before it, so a slow store becomes a clean 503
// instead of a killed invocation.
const (
	MaxAttempts    = 3
	MaxBackoff     = 500 * time.Millisecond
	AttemptTimeout = 3 * time.Second
)

// Config is what the environment says about AWS.
type Config struct {
	Region   string // AWS_REGION, default us-east-1
	Endpoint string // AWS_ENDPOINT_URL, for moto locally; empty in AWS
	// Credentials defaults to the AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
	// and AWS_SESSION_TOKEN that Lambda sets ("test" for a local endpoint).
	// Tools that want profiles or SSO pass their own provider.
	Credentials aws.CredentialsProvider
}

// FromEnv reads the AWS settings once, from getenv.
func FromEnv(getenv func(string) string) Config {
	c := Config{Region: getenv("AWS_REGION"), Endpoint: getenv("AWS_ENDPOINT_URL")}
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
	case c.Endpoint != "":
		c.Credentials = credentials.NewStaticCredentialsProvider("test", "test", "")
	}
	return c
}

// Load returns the SDK configuration, with the call counter installed on
// every client made from it. It builds aws.Config by hand rather than with
// the SDK's config package: that package's profile, SSO and STS machinery
// doubles every function's binary and slows its cold start, and a Lambda
// function's credentials are in its environment anyway.
func Load(_ context.Context, c Config) (aws.Config, error) {
	if c.Credentials == nil {
		return aws.Config{}, errors.New("awsenv: no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_ENDPOINT_URL for a local emulator)")
	}
	cfg := aws.Config{
		Region:      c.Region,
		Credentials: aws.NewCredentialsCache(c.Credentials),
		Retryer: func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = MaxAttempts
				o.MaxBackoff = MaxBackoff
			})
		},
		HTTPClient: awshttp.NewBuildableClient().WithTimeout(AttemptTimeout),
		APIOptions: []func(*middleware.Stack) error{counterOptions},
	}
	if c.Endpoint != "" {
		cfg.BaseEndpoint = aws.String(c.Endpoint)
		cfg.HTTPClient = emulatorClient()
	}
	return cfg, nil
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
