// Command lambda is the pages function on Lambda: the hosted responder's
// page and the public report.
package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/kms"

	"surveyservice/functions/pages"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
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
	sealer := links.NewSealer(kms.NewFromConfig(cfg), links.KeyFromEnv(getenv), st)
	return pages.New(st, sealer, time.Now), nil
}
