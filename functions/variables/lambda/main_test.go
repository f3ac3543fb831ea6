package main

import (
	"context"
	"testing"
)

var lambdaEnv = map[string]string{
	"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret",
	"AWS_SESSION_TOKEN": "token", "TABLE_NAME": "surveys", "MEDIA_URL": "https://media.example.com",
	"TEMPLATES_URL": "https://templates.example.com",
}

// TestHandlerNeedsNoNetwork: the init path makes no AWS call (clients are
// lazy), so a cold start costs only this process's own work.
func TestHandlerNeedsNoNetwork(t *testing.T) {
	h, err := handler(context.Background(), func(k string) string { return lambdaEnv[k] })
	if err != nil || h == nil {
		t.Fatalf("handler() = %v, %v", h, err)
	}
}

func TestHandlerWithoutCredentialsFails(t *testing.T) {
	if _, err := handler(context.Background(), func(string) string { return "" }); err == nil {
		t.Fatal("handler() without credentials and endpoint succeeded")
	}
}

// BenchmarkInit is the function's init path, from configuration to a ready
// handler (what a cold start does before the first invocation).
func BenchmarkInit(b *testing.B) {
	getenv := func(k string) string { return lambdaEnv[k] }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := handler(context.Background(), getenv); err != nil {
			b.Fatal(err)
		}
	}
}
