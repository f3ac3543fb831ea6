// Command lambda is the dispatch function: run by the table's stream
// (filtered to new responses), it records and queues their deliveries.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"surveyservice/functions/dispatch"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/webhook"
)

func main() {
	api.JSONLogging(os.Stdout)
	d, err := dispatcher(context.Background(), os.Getenv)
	if err != nil {
		slog.Error("start", "error", err.Error())
		os.Exit(1)
	}
	lambda.Start(d.Handle)
}

// dispatcher is the function's whole init path: configuration and clients.
func dispatcher(ctx context.Context, getenv func(string) string) (*dispatch.Dispatcher, error) {
	cfg, err := awsenv.Load(ctx, awsenv.FromEnv(getenv))
	if err != nil {
		return nil, err
	}
	return &dispatch.Dispatcher{
		Store: store.New(cfg, store.TableNameFrom(getenv)),
		Queue: webhook.Queue{Client: sqs.NewFromConfig(cfg), URL: webhook.QueueURLFrom(getenv)},
	}, nil
}
