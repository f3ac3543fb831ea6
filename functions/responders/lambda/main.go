// Command lambda is the responders function (public: no API key) on Lambda.
package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"

	"surveyservice/functions/responders"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
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
	st, err := store.OpenEnv(ctx, getenv)
	if err != nil {
		return nil, err
	}
	return responders.New(st), nil
}
