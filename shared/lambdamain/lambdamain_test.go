package lambdamain_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/shared/lambdamain"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// TestHandler: build gets the environment and the store of the table
// TABLE_NAME names, its handler goes to lambda.Start as it is, and a missing
// credential or a failing build stops the start.
func TestHandler(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	getenv := env(map[string]string{"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b", "TABLE_NAME": "surveys-x", "X": "y"})

	var seen lambdamain.Env
	handle := func(context.Context, events.SQSEvent) error { return nil }
	h, err := lambdamain.Handler(ctx, getenv, func(e lambdamain.Env) (any, error) {
		seen = e
		return handle, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen.Store.TableName() != "surveys-x" || seen.Getenv("X") != "y" || seen.AWS.Region != "us-east-1" {
		t.Errorf("env: table %q, X=%q, region %q", seen.Store.TableName(), seen.Getenv("X"), seen.AWS.Region)
	}
	if _, ok := h.(func(context.Context, events.SQSEvent) error); !ok {
		t.Errorf("the handler became %T", h)
	}

	if _, err := lambdamain.Handler(ctx, env(nil), func(lambdamain.Env) (any, error) {
		t.Error("build called without credentials")
		return nil, nil
	}); err == nil {
		t.Error("no credentials: no error")
	}
	boom := errors.New("boom")
	if _, err := lambdamain.Handler(ctx, getenv, func(lambdamain.Env) (any, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("build failed: err %v, want %v", err, boom)
	}
}
