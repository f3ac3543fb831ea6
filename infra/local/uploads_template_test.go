package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestUploadsBucket: the bucket of responders' files is private and
// encrypted, takes POSTs from the service's own origin only, and removes
// uploads that no response kept (still tagged pending) after a day; the
// functions that use it are told its name.
func TestUploadsBucket(t *testing.T) {
	t.Parallel()
	tpl := loadTemplate(t)
	b, ok := tpl.Resources["UploadsBucket"]
	if !ok || b.Type != "AWS::S3::Bucket" {
		t.Fatalf("UploadsBucket: %+v", b)
	}
	js, _ := json.Marshal(b.Properties)
	got := string(js)
	for _, want := range []string{
		`"SSEAlgorithm":"AES256"`, `"BlockPublicAcls":true`, `"BlockPublicPolicy":true`, `"IgnorePublicAcls":true`, `"RestrictPublicBuckets":true`,
		`"AllowedMethods":["POST"]`, `"AllowedOrigins":["PublicSurveyUrl"]`,
		`"ExpirationInDays":1`, `"Prefix":"uploads/"`, `"TagFilters":[{"Key":"upload","Value":"pending"}]`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("UploadsBucket lacks %s in %s", want, got)
		}
	}
	if _, ok := tpl.Resources["UploadsBucketPolicy"]; !ok {
		t.Errorf("no UploadsBucketPolicy (TLS only)")
	}
	for _, fn := range []string{"RespondersFunction", "ResponsesFunction"} {
		env, _ := json.Marshal(tpl.Resources[fn].Properties["Environment"])
		if !strings.Contains(string(env), `"UPLOADS_BUCKET":"UploadsBucket"`) {
			t.Errorf("%s environment %s lacks UPLOADS_BUCKET", fn, env)
		}
	}
}
