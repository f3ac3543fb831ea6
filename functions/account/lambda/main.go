// Command lambda is the account function: who the caller is, and the DRF
// 404 for every path no other function serves.
package main

import (
	"context"
	"log/slog"
	"os"

	"surveyservice/functions/account"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/store"
)

func main() {
	api.JSONLogging(os.Stdout)
	st, err := store.OpenEnv(context.Background(), os.Getenv)
	if err != nil {
		slog.Error("start", "error", err.Error())
		os.Exit(1)
	}
	gateway.Start(account.New(api.NewAuthenticator(st)))
}
