package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"surveyservice/internal/conflict"
	"surveyservice/internal/ddblocal"
	"surveyservice/internal/moto"
)

// emulators are what `make run` starts when no endpoint is configured:
// DynamoDB Local for DynamoDB and its streams, behind the conflict model,
// and moto for KMS, SQS and S3.
type emulators struct {
	moto  *moto.Server
	ddb   *ddblocal.Server
	proxy *http.Server
}

// startEmulators starts DynamoDB Local and moto at once and answers the
// variables that point at them, to be laid over the environment:
// AWS_ENDPOINT_URL at moto, AWS_ENDPOINT_URL_DYNAMODB at the conflict
// model in front of DynamoDB Local (holding each transaction's items for
// DYNAMODB_CONFLICT_HOLD, default 20ms, 0 for none),
// AWS_ENDPOINT_URL_DYNAMODB_STREAMS at DynamoDB Local, and the emulators'
// credentials. Without Java,
// DynamoDB Local (`make emulators`) or moto_server it fails.
//
// With kept, DynamoDB Local keeps its database in kept's directory.
func startEmulators(ctx context.Context, getenv func(string) string, stdout io.Writer, kept *keptData) (*emulators, map[string]string, error) {
	hold := conflict.DefaultHold
	if v := getenv("DYNAMODB_CONFLICT_HOLD"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, nil, fmt.Errorf("DYNAMODB_CONFLICT_HOLD=%q: want a duration such as 20ms, or 0 for no conflict model", v)
		}
		hold = d
	}
	in, err := ddblocal.Find(getenv("DYNAMODB_LOCAL_DIR"))
	if err != nil {
		return nil, nil, err
	}
	bin, err := moto.Find(getenv("HOME"))
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(stdout, "Starting the local AWS emulators (DynamoDB Local %s, moto_server)...\n", ddblocal.Version)
	e := &emulators{}
	ddbErr := make(chan error, 1)
	go func() {
		var err error
		if kept != nil {
			e.ddb, err = ddblocal.StartIn(ctx, in, getenv("DYNAMODB_LOCAL_HEAP"), kept.dynamoDir())
		} else {
			e.ddb, err = ddblocal.Start(ctx, in, getenv("DYNAMODB_LOCAL_HEAP"))
		}
		ddbErr <- err
	}()
	e.moto, err = moto.Start(ctx, bin)
	if err = errors.Join(err, <-ddbErr); err != nil {
		e.stop()
		return nil, nil, err
	}
	dynamoURL := e.ddb.URL
	if hold > 0 {
		p, err := conflict.New(e.ddb.URL, hold)
		if err != nil {
			e.stop()
			return nil, nil, err
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			e.stop()
			return nil, nil, fmt.Errorf("conflict model: %w", err)
		}
		e.proxy = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = e.proxy.Serve(ln) }()
		dynamoURL = "http://" + ln.Addr().String()
	}
	over := map[string]string{
		"AWS_ENDPOINT_URL":                  e.moto.URL,
		"AWS_ENDPOINT_URL_DYNAMODB":         dynamoURL,
		"AWS_ENDPOINT_URL_DYNAMODB_STREAMS": e.ddb.URL,
		"AWS_ACCESS_KEY_ID":                 "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_SESSION_TOKEN": "",
	}
	fmt.Fprintf(stdout, "DynamoDB Local on %s (conflict model: hold %s, on %s); moto on %s\n", e.ddb.URL, hold, dynamoURL, e.moto.URL)
	return e, over, nil
}

func (e *emulators) stop() {
	if e.proxy != nil {
		_ = e.proxy.Close()
	}
	e.moto.Stop()
	e.ddb.Stop()
}
