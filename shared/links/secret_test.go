package links_test

import (
	"context"
	"errors"
	"testing"

	"surveyservice/internal/testenv"
	"surveyservice/shared/links"
)

// TestSealValue: a webhook secret opens for its webhook only, never as a
// link, and a link never opens as a secret.
func TestSealValue(t *testing.T) {
	ctx := context.Background()
	s := testenv.Sealer(t)
	secret := []byte("whsec_c2VjcmV0")
	token, err := s.SealFor(ctx, links.PurposeWebhookSecret, 7, secret)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.OpenFor(ctx, links.PurposeWebhookSecret, 7, token)
	if err != nil || string(got) != string(secret) {
		t.Fatalf("OpenFor = %q, %v", got, err)
	}
	if _, err := s.OpenFor(ctx, links.PurposeWebhookSecret, 8, token); !errors.Is(err, links.ErrInvalid) {
		t.Errorf("another webhook's secret opened: %v", err)
	}
	if _, err := s.OpenFor(ctx, links.PurposeSession, 7, token); !errors.Is(err, links.ErrInvalid) {
		t.Errorf("opened for another purpose: %v", err)
	}
	if _, err := s.Open(ctx, 7, token); !errors.Is(err, links.ErrInvalid) {
		t.Errorf("a secret opened as a link: %v", err)
	}
	tokens, err := s.Seal(ctx, 7, []links.Payload{{Values: []links.Value{{Name: "a", Str: "b"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenFor(ctx, links.PurposeWebhookSecret, 7, tokens[0]); !errors.Is(err, links.ErrInvalid) {
		t.Errorf("a link opened as a secret: %v", err)
	}
	tampered := []byte(token)
	tampered[len(tampered)-3] ^= 1
	if _, err := s.OpenFor(ctx, links.PurposeWebhookSecret, 7, string(tampered)); err == nil {
		t.Error("a tampered secret opened")
	}
}
