package store

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// TestCapsReadOutlivesAJoinedRequest (contract section 3: the cause of an
// unexpected error goes to the log, and a request is not failed by
// another's): readCaps shares one read of a survey's allowances among the
// requests of a container that need it at once (singleflight). The read
// ran with the context of the request that started it, so when that
// request's client left (make run cancels a request's context then), every
// request that had joined the read failed with its "context canceled",
// which is no survey error: 500 "A server error occurred.".
//
// Found outside on make run (hostile9): 110 submissions racing a stop, a
// start, a trash and a restore, some of them given up by their clients
// after 0.25 s: one submission, not given up, answered 500 after 130 ms:
// "store: read the allowances of survey 17: operation error DynamoDB:
// BatchGetItem, ... canceled, context canceled".
//
// Here DynamoDB answers the BatchGetItems 300 ms late; A starts the read,
// B joins it, and A is cancelled. Want: B's read succeeds.
func TestCapsReadOutlivesAJoinedRequest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		if r.Header.Get("X-Amz-Target") == "DynamoDB_20120810.BatchGetItem" {
			time.Sleep(300 * time.Millisecond)
			_, _ = w.Write([]byte(`{"Responses":{"t":[]},"UnprocessedKeys":{}}`))
			return
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	cfg := aws.Config{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")}
	s := New(cfg, "t")
	caps := []Cap{{Attr: "l1", Places: 5}}
	actx, cancel := context.WithCancel(context.Background())
	a := make(chan error, 1)
	go func() { a <- s.readCaps(actx, 7, caps) }()
	time.Sleep(100 * time.Millisecond)
	b := make(chan error, 1)
	go func() { b <- s.readCaps(context.Background(), 7, caps) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	<-a
	if err := <-b; err != nil {
		t.Errorf("B, which joined A's read of the allowances, failed when A was cancelled: %v; want its read", err)
	}
}
