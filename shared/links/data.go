package links

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
)

// Sealed data other than links: pagination cursors, and whatever else the
// service hands a client to bring back unchanged. It is sealed by the same
// Sealer, under the same data keys (so it costs no KMS call while the
// container's keys are fresh), in the same token format, but its associated
// data names its purpose, a domain: a token of one domain never opens in
// another (a link as a cursor, a cursor as a link), nor for another survey.

// dataAADPrefix starts the associated data of sealed data. It differs from
// the links' "survey-links/v1/survey:" in its second byte, so no domain can
// make a data token's associated data equal a link's.
const dataAADPrefix = "sealed-data:"

func dataAAD(header []byte, domain string, surveyID int64) []byte {
	if domain == "" || strings.IndexByte(domain, 0) >= 0 {
		// A programming error: domains are constants of the callers.
		panic("links: a data domain must be non-empty and free of NUL bytes")
	}
	b := make([]byte, 0, len(header)+len(dataAADPrefix)+len(domain)+9)
	b = append(b, header...)
	b = append(b, dataAADPrefix...)
	b = append(b, domain...)
	b = append(b, 0) // ends the domain: no domain is a prefix of another's data
	return binary.BigEndian.AppendUint64(b, uint64(surveyID))
}

// SealData seals data for the survey under the current data key, for the
// purpose domain (a constant of the caller, unique to its purpose). The
// token is URL-safe base64, about 45 characters longer than data. Data
// shorter than 2 bytes is refused (no token that short is ever opened).
func (s *Sealer) SealData(ctx context.Context, domain string, surveyID int64, data []byte) (string, error) {
	if len(data) < 2 {
		return "", errors.New("links: sealed data must be at least 2 bytes")
	}
	k, err := s.currentKey(ctx)
	if err != nil {
		return "", err
	}
	buf := make([]byte, headerLen+nonceLen, headerLen+nonceLen+len(data)+16)
	buf[0] = version1
	copy(buf[1:headerLen], k.id[:])
	nonce := buf[headerLen:]
	_, _ = rand.Read(nonce)
	buf = k.aead.Seal(buf, nonce, data, dataAAD(buf[:headerLen], domain, surveyID))
	return base64.RawURLEncoding.EncodeToString(buf), nil
}

// OpenData returns the data of a token SealData made for the survey and the
// domain, or ErrInvalid for any token that does not open (errors of the key
// store or KMS pass through).
func (s *Sealer) OpenData(ctx context.Context, domain string, surveyID int64, token string) ([]byte, error) {
	p, err := parse(token)
	if err != nil {
		return nil, err
	}
	aead, err := s.keyFor(ctx, p.kid)
	if err != nil {
		return nil, err
	}
	plain, err := aead.Open(nil, p.nonce, p.sealed, dataAAD(p.header, domain, surveyID))
	if err != nil {
		return nil, ErrInvalid
	}
	return plain, nil
}
