// Command lambda is the templates function: the public catalog on Lambda.
package main

import (
	"context"
	"log/slog"
	"os"

	"surveyservice/functions/templates"
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
	gateway.Start(templates.New(st, templates.Config{MediaURL: os.Getenv("MEDIA_URL"), TemplatesURL: os.Getenv("TEMPLATES_URL")}))
}
