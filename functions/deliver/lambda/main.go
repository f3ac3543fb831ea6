// Command lambda is the deliver function: run by the delivery queue and
// its slow lane, it signs and sends webhook deliveries and schedules their
// retries.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"surveyservice/functions/deliver"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/webhook"
)

func main() {
	api.JSONLogging(os.Stdout)
	d, err := deliverer(context.Background(), os.Getenv)
	if err != nil {
		slog.Error("start", "error", err.Error())
		os.Exit(1)
	}
	lambda.Start(d.Handle)
}

// deliverer is the function's whole init path: configuration and clients.
func deliverer(ctx context.Context, getenv func(string) string) (*deliver.Deliverer, error) {
	cfg, err := awsenv.Load(ctx, awsenv.FromEnv(getenv))
	if err != nil {
		return nil, err
	}
	delays, err := webhook.ParseDelays(getenv("WEBHOOK_RETRY_DELAYS"))
	if err != nil {
		return nil, err
	}
	st := store.New(cfg, store.TableNameFrom(getenv))
	guard := webhook.Guard{AllowLoopback: getenv("WEBHOOK_ALLOW_LOOPBACK") == "true"}
	client := sqs.NewFromConfig(cfg)
	d := &deliver.Deliverer{
		Store:  st,
		Opener: links.NewSealer(kms.NewFromConfig(cfg), links.KeyFromEnv(getenv), st),
		Queue:  webhook.Queue{Client: client, URL: webhook.QueueURLFrom(getenv)},
		Client: guard.Client(webhook.Timeout),
		Delays: delays,
	}
	if url, arn := webhook.SlowLaneFrom(getenv); url != "" {
		d.Slow, d.SlowARN = webhook.Queue{Client: client, URL: url}, arn
	}
	return d, nil
}
