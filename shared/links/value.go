package links

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
)

// Sealing values other than links.
//
// Other secrets are sealed the same way as links (the token format of
// token.go, the same cached data keys, so at most one KMS call and none
// while the keys are fresh), but under associated data of their own: a
// domain string and an owner id instead of "survey-links/v1/survey:" and a
// survey id. A link never opens as another domain's value, a value never
// as a link, and one owner's value never as another's.

// Domain names what sealed values are for; it must end in ":" and never
// equal the links' own prefix.
type Domain string

// WebhookSecrets seals the signing secrets of webhooks, bound to the
// webhook's id.
const WebhookSecrets Domain = "webhook-secrets/v1/webhook:"

func valueAAD(header []byte, domain Domain, owner int64) []byte {
	b := make([]byte, 0, len(header)+len(domain)+8)
	b = append(b, header...)
	b = append(b, domain...)
	return binary.BigEndian.AppendUint64(b, uint64(owner))
}

// SealValue seals plaintext for owner in domain, under the current data key.
func (s *Sealer) SealValue(ctx context.Context, domain Domain, owner int64, plaintext []byte) (string, error) {
	if domain == aadSurvey {
		panic("links: SealValue in the links' own domain")
	}
	k, err := s.currentKey(ctx)
	if err != nil {
		return "", err
	}
	buf := make([]byte, headerLen+nonceLen, headerLen+nonceLen+len(plaintext)+16)
	buf[0] = version1
	copy(buf[1:headerLen], k.id[:])
	_, _ = rand.Read(buf[headerLen:]) // never fails (crypto/rand panics instead)
	buf = k.aead.Seal(buf, buf[headerLen:], plaintext, valueAAD(buf[:headerLen], domain, owner))
	return base64.RawURLEncoding.EncodeToString(buf), nil
}

// OpenValue opens a value sealed for owner in domain; ErrInvalid when it
// does not open (errors of the key store or KMS pass through).
func (s *Sealer) OpenValue(ctx context.Context, domain Domain, owner int64, token string) ([]byte, error) {
	p, err := parse(token)
	if err != nil {
		return nil, err
	}
	aead, err := s.keyFor(ctx, p.kid)
	if err != nil {
		return nil, err
	}
	plain, err := aead.Open(nil, p.nonce, p.sealed, valueAAD(p.header, domain, owner))
	if err != nil {
		return nil, ErrInvalid
	}
	return plain, nil
}
