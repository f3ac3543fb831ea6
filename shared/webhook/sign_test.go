package webhook_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"surveyservice/shared/webhook"
)

// The specification's published example (standard-webhooks, spec and
// reference libraries).
const (
	specSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	specID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	specTimestamp = 1614265330
	specBody      = `{"test": 2432232314}`
	specSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func TestSignSpecExample(t *testing.T) {
	key, err := webhook.SecretKey(specSecret)
	if err != nil {
		t.Fatal(err)
	}
	if got := webhook.Sign(key, specID, time.Unix(specTimestamp, 0), []byte(specBody)); got != specSignature {
		t.Fatalf("Sign = %s, want %s", got, specSignature)
	}
	// The prefix is optional, as in the reference libraries.
	bare, err := webhook.SecretKey(strings.TrimPrefix(specSecret, webhook.SecretPrefix))
	if err != nil || string(bare) != string(key) {
		t.Fatalf("SecretKey without prefix = %x, %v", bare, err)
	}
}

func TestVerify(t *testing.T) {
	now := time.Unix(specTimestamp, 0)
	good := func() http.Header {
		h := http.Header{}
		h.Set(webhook.HeaderID, specID)
		h.Set(webhook.HeaderTimestamp, "1614265330")
		h.Set(webhook.HeaderSignature, specSignature)
		return h
	}
	cases := []struct {
		name   string
		change func(h http.Header)
		body   string
		now    time.Time
		ok     bool
	}{
		{"valid", nil, specBody, now, true},
		{"several signatures, one valid", func(h http.Header) {
			h.Set(webhook.HeaderSignature, "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,x "+specSignature)
		}, specBody, now, true},
		{"body changed", nil, `{"test": 2432232315}`, now, false},
		{"id changed", func(h http.Header) { h.Set(webhook.HeaderID, "msg_other") }, specBody, now, false},
		{"no id", func(h http.Header) { h.Del(webhook.HeaderID) }, specBody, now, false},
		{"no timestamp", func(h http.Header) { h.Del(webhook.HeaderTimestamp) }, specBody, now, false},
		{"no signature", func(h http.Header) { h.Del(webhook.HeaderSignature) }, specBody, now, false},
		{"bad signature", func(h http.Header) {
			h.Set(webhook.HeaderSignature, "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=")
		}, specBody, now, false},
		{"too old", nil, specBody, now.Add(webhook.Tolerance + time.Second), false},
		{"too new", nil, specBody, now.Add(-webhook.Tolerance - time.Second), false},
		{"timestamp not a number", func(h http.Header) { h.Set(webhook.HeaderTimestamp, "soon") }, specBody, now, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := good()
			if c.change != nil {
				c.change(h)
			}
			err := webhook.Verify(specSecret, h, []byte(c.body), c.now)
			if (err == nil) != c.ok {
				t.Fatalf("Verify = %v, want ok=%v", err, c.ok)
			}
		})
	}
}

func TestNewSecret(t *testing.T) {
	a, b := webhook.NewSecret(), webhook.NewSecret()
	if a == b || !strings.HasPrefix(a, "whsec_") {
		t.Fatalf("secrets %q %q", a, b)
	}
	key, err := webhook.SecretKey(a)
	if err != nil || len(key) != 32 {
		t.Fatalf("key of a new secret: %d bytes, %v", len(key), err)
	}
	h := http.Header{}
	now := time.Now()
	webhook.SetHeaders(h, key, "msg_1", now, []byte("{}"))
	if err := webhook.Verify(a, h, []byte("{}"), now); err != nil {
		t.Fatalf("a signed delivery does not verify: %v", err)
	}
	if _, err := webhook.SecretKey("whsec_!!"); err == nil {
		t.Error("a secret that is not base64 has a key")
	}
}
