// Command lambda is the webhooks function on Lambda: a survey's webhooks
// (in both shapes), their delivery logs and manual retries.
package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"surveyservice/functions/webhooks"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/webhook"
)

func main() {
	api.JSONLogging(os.Stdout)
	h, err := handler(context.Background(), os.Getenv)
	if err != nil {
		slog.Error("start", "error", err.Error())
		os.Exit(1)
	}
	gateway.Start(h)
}

// handler is the function's whole init path: configuration, clients, routes.
func handler(ctx context.Context, getenv func(string) string) (http.Handler, error) {
	cfg, err := awsenv.Load(ctx, awsenv.FromEnv(getenv))
	if err != nil {
		return nil, err
	}
	st := store.New(cfg, store.TableNameFrom(getenv))
	return webhooks.New(api.NewAuthenticator(st), webhooks.Deps{
		Store:  st,
		Sealer: links.NewSealer(kms.NewFromConfig(cfg), links.KeyFromEnv(getenv), st),
		Queue:  webhook.Queue{Client: sqs.NewFromConfig(cfg), URL: webhook.QueueURLFrom(getenv)},
		Guard:  webhook.Guard{AllowLoopback: getenv("WEBHOOK_ALLOW_LOOPBACK") == "true"},
	}), nil
}
