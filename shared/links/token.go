package links

import (
	"surveyservice/shared/datakey"

	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"strings"
)

// The token format (version 1), before URL-safe base64 without padding:
//
//	version  1 byte   0x01
//	key id   4 bytes  names the data key (KMS-wrapped, in the table)
//	nonce   12 bytes  fresh from crypto/rand for every token
//	sealed   n bytes  AES-256-GCM of the encoded Payload, 16-byte tag included
//
// The associated data is the header (version and key id), the purpose of
// the token and the survey id, so a token opens only for the survey and the
// purpose it was made for (a link never opens as a session, nor a session
// as a link), and changing any byte, the header included, makes it invalid.
// The nonce doubles as the token's identity, for spending a one-use link.
const (
	version1  = 1
	keyIDLen  = 4
	nonceLen  = 12
	headerLen = 1 + keyIDLen
	overhead  = headerLen + nonceLen + 16
	maxToken  = 1 << 20 // base64 characters a token may have
)

// Purpose is what a token is for (datakey.Purpose, where the purposes are
// listed, so that packages that only name a purpose do not link the KMS
// client).
type Purpose = datakey.Purpose

// The purposes of tokens (datakey's).
const (
	PurposeLink          = datakey.PurposeLink
	PurposeSession       = datakey.PurposeSession
	PurposeSheet         = datakey.PurposeSheet
	PurposeWebhookSecret = datakey.PurposeWebhookSecret
	PurposeVerification  = datakey.PurposeVerification
	PurposeChallenge     = datakey.PurposeChallenge
	PurposeEdit          = datakey.PurposeEdit
	PurposeUpload        = datakey.PurposeUpload
	PurposeServed        = datakey.PurposeServed
	PurposeSteps         = datakey.PurposeSteps
	PurposeResume        = datakey.PurposeResume
)

// ErrInvalid is every reason a token does not open (datakey.ErrInvalid).
var ErrInvalid = datakey.ErrInvalid

// KeyID names a data key.
type KeyID = datakey.ID

func aad(header []byte, purpose Purpose, surveyID int64) []byte {
	b := make([]byte, 0, len(header)+len(purpose)+8)
	b = append(b, header...)
	b = append(b, purpose...)
	return binary.BigEndian.AppendUint64(b, uint64(surveyID))
}

// sealer makes the tokens of one request: the header and the associated
// data are the same for all of them, and one buffer serves each in turn,
// so that a token costs its own string and nothing else.
type batchSealer struct {
	aead    cipher.AEAD
	aad     []byte
	buf     []byte
	payload []byte
	token   []byte // sealAppend's token, reused
	nonces  []byte // read from crypto/rand in blocks, not a call a token
}

func newBatchSealer(aead cipher.AEAD, kid KeyID, purpose Purpose, surveyID int64) *batchSealer {
	header := make([]byte, headerLen)
	header[0] = version1
	copy(header[1:], kid[:])
	b := &batchSealer{aead: aead, aad: aad(header, purpose, surveyID), buf: make([]byte, headerLen+nonceLen, 512)}
	copy(b.buf, header)
	return b
}

// seal makes a token of p.
func (b *batchSealer) seal(p Payload) string {
	b.payload = p.AppendEncode(b.payload[:0])
	return b.sealBytes(b.payload)
}

// sealAppend makes a token of p in the sealer's own buffer, valid until
// the next token.
func (b *batchSealer) sealAppend(p Payload) []byte {
	b.payload = p.AppendEncode(b.payload[:0])
	sealed := b.sealRaw(b.payload)
	b.token = base64.RawURLEncoding.AppendEncode(b.token[:0], sealed)
	return b.token
}

// sealBytes makes a token of a plaintext.
func (b *batchSealer) sealBytes(plain []byte) string {
	return base64.RawURLEncoding.EncodeToString(b.sealRaw(plain))
}

// sealRaw seals a plaintext into the sealer's buffer: the token's bytes
// before base64.
func (b *batchSealer) sealRaw(plain []byte) []byte {
	buf := b.buf[:headerLen+nonceLen]
	nonce := buf[headerLen:]
	if len(b.nonces) < nonceLen {
		b.nonces = make([]byte, nonceLen*256)
		_, _ = rand.Read(b.nonces)
	}
	copy(nonce, b.nonces[:nonceLen])
	b.nonces = b.nonces[nonceLen:]
	buf = b.aead.Seal(buf, nonce, plain, b.aad)
	b.buf = buf
	return buf
}

// TokenLen is the length of every token of p, known before sealing (the
// format has no variable part but the payload): so that a request whose
// links would be too large is refused before any key is fetched.
func TokenLen(p Payload) int {
	return base64.RawURLEncoding.EncodedLen(overhead + p.EncodedLen())
}

// strictBase64 refuses the encodings whose unused trailing bits are not
// zero, so that no two strings decode to the same token: one changed
// character always makes a token invalid.
var strictBase64 = base64.RawURLEncoding.Strict()

// parsed is a token split into its parts, not yet opened.
type parsed struct {
	kid    KeyID
	header []byte
	nonce  []byte
	sealed []byte
}

// parse splits a token without any key: ErrInvalid for anything that is not
// a version 1 token of plausible size.
func parse(token string) (parsed, error) {
	if len(token) < 4 || len(token) > maxToken || strings.ContainsFunc(token, notBase64URL) {
		return parsed{}, ErrInvalid
	}
	raw, err := strictBase64.DecodeString(token)
	if err != nil || len(raw) < overhead+2 || raw[0] != version1 {
		return parsed{}, ErrInvalid
	}
	var p parsed
	copy(p.kid[:], raw[1:headerLen])
	p.header = raw[:headerLen]
	p.nonce = raw[headerLen : headerLen+nonceLen]
	p.sealed = raw[headerLen+nonceLen:]
	return p, nil
}

// TokenID is a token's identity (its nonce, in hex), or "" for a token that
// does not parse.
func TokenID(token string) string {
	p, err := parse(token)
	if err != nil {
		return ""
	}
	const hexdigits = "0123456789abcdef"
	b := make([]byte, 0, 2*nonceLen)
	for _, c := range p.nonce {
		b = append(b, hexdigits[c>>4], hexdigits[c&15])
	}
	return string(b)
}

// notBase64URL is true for a character outside the URL-safe alphabet: the
// decoder would skip line breaks, so they are refused before it runs.
func notBase64URL(r rune) bool {
	return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_')
}
