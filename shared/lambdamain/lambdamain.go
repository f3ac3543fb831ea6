// Package lambdamain is every Lambda function's main: JSON logs on stdout,
// the configuration read from the environment once, the AWS configuration
// and the table's store made from it, and the runtime loop for the
// function's handler.
//
// It imports no client a function might not need: a function that seals
// links makes its KMS client (links.SealerFromEnv), one that queues
// deliveries its SQS client (webhook.QueueFromEnv), from Env.AWS. So each
// function builds, links and initialises only the clients its code calls,
// as its policy in template.yaml allows.
package lambdamain

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"

	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
)

// Env is what a function builds its handler from, read once at start-up.
type Env struct {
	// Getenv reads the function's own settings (os.Getenv on Lambda).
	Getenv func(string) string
	// AWS is the SDK configuration, with the call counter installed; the
	// function makes any other client it needs from it.
	AWS aws.Config
	// Store is the table TABLE_NAME names.
	Store *store.Store
}

// Main is an HTTP function's whole main: it logs JSON to stdout, builds
// the function's handler with build from the environment (its AWS calls
// under awsenv.HTTP), and runs it as the Lambda function of this process;
// it never returns. A failure to start is
// logged and exits with status 1, which Lambda reports as an init error.
func Main(build func(Env) (any, error)) { run(awsenv.HTTP, build) }

// MainEvents is Main for a function that runs on a queue, a stream or a
// schedule: its AWS calls try harder (awsenv.Events), as no client waits.
func MainEvents(build func(Env) (any, error)) { run(awsenv.Events, build) }

func run(p awsenv.Policy, build func(Env) (any, error)) {
	api.JSONLogging(os.Stdout)
	h, err := HandlerWith(context.Background(), os.Getenv, p, build)
	if err != nil {
		slog.Error("start", "error", err.Error())
		os.Exit(1)
	}
	lambda.Start(h)
}

// Handler is the function's whole init path: the configuration from
// getenv, the clients, then build's handler, as lambda.Start takes it (an
// HTTP function's is gateway.New of its router; this package leaves the
// API Gateway adapter out of the functions that run on other events).
func Handler(ctx context.Context, getenv func(string) string, build func(Env) (any, error)) (any, error) {
	return HandlerWith(ctx, getenv, awsenv.HTTP, build)
}

// HandlerWith is Handler with the AWS calls' retry and timeout policy p.
func HandlerWith(ctx context.Context, getenv func(string) string, p awsenv.Policy, build func(Env) (any, error)) (any, error) {
	c := awsenv.FromEnv(getenv)
	c.Policy = p
	cfg, err := awsenv.Load(ctx, c)
	if err != nil {
		return nil, err
	}
	st := store.New(cfg, store.TableNameFrom(getenv))
	st.MediaURL = getenv("MEDIA_URL")
	return build(Env{Getenv: getenv, AWS: cfg, Store: st})
}
