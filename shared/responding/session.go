// Package responding is the core of responding to a survey (contract
// section 11), shared by the public JSON API (functions/responders) and the
// hosted page's plain form (functions/pages): sessions, their start, and
// the checking and recording of a submission.
package responding

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"time"
	"unicode/utf8"

	"surveyservice/shared/links"
)

// Session is what a responder's session token seals (contract section
// 11): when the response started, the code it was admitted with, and the
// personalised link it was started from. The token is sealed like a link,
// under the same data key, with the session purpose in its associated data
// (links.PurposeSession), so a link never opens as a session.
type Session struct {
	StartedAt time.Time // microseconds
	// Code is the authentication code that admitted the responder, or "".
	Code string
	// Link is the personalised link, or nil.
	Link *SessionLink
	// Responder is the hash of the responder cookie the session was
	// started with (ResponderHash), or zero (contract section 16).
	Responder [16]byte
	// Origin is the claim hash of the session this one resumes on
	// another device (contract section 20), or zero: the resumed session
	// is the same session (one partial, one response), bound to another
	// responder cookie.
	Origin [32]byte
	// Email and Phone are the identities the responder proved with a
	// one-time code (contract section 18: EmailIdentity, E.164), or "".
	// A confirm seals a new session carrying everything the first did
	// plus its proof, so proofs add up.
	Email, Phone string
	// Language is the language the session was started in (contract
	// section 24: one of the survey's languages), or "" for the survey's
	// own: sessions sealed before languages decode with "".
	Language string
	// OwnPartition marks a session whose items (its claim on its
	// response, its partial) are on a partition key of its own
	// (store.SessionPK): every session started since issue 42. A session
	// sealed before decodes without it and keeps its items where it wrote
	// them, in its survey's responses' partitions (store.SessionLegacyPK),
	// so no item of a session is ever looked for in two places. A session
	// resumed or signed in is sealed again with everything it had, this
	// mark included.
	OwnPartition bool
}

// Claim names the session's own item (store.SessionSK): the hex SHA-256
// of its token, or of the token of the session it resumes.
func (s Session) Claim(token string) string {
	if s.Origin != ([32]byte{}) {
		return hex.EncodeToString(s.Origin[:])
	}
	return sessionHash(token)
}

// SessionLink is the personalised link a session was started from: its
// token id (a one-use link is spent by the response) and its values.
type SessionLink struct {
	ID     [12]byte
	Values links.Payload
}

// TokenID is the link's token id as links.TokenID names it.
func (l SessionLink) TokenID() string { return hex.EncodeToString(l.ID[:]) }

// The session encoding (version 1):
//
//	version     1 byte   0x01
//	flags       1 byte   1: a code follows, 2: a link follows
//	started_at  varint   Unix microseconds (zigzag), positive
//	responder   16 bytes, the responder cookie's hash, if flagged (4)
//	origin      32 bytes, the resumed session's claim hash, if flagged (8)
//	code        uvarint length (1-400) and UTF-8 bytes, if flagged
//	email       uvarint length (1-254) and bytes, if flagged (16)
//	phone       uvarint length (1-16) and bytes, if flagged (32)
//	language    uvarint length (1-8) and bytes, if flagged (64)
//	link        12 bytes token id, then the link's payload to the end, if flagged
//
// Flag 128 carries no bytes: the session's items are on its own
// partition key (OwnPartition).
//
// Every session has one encoding (minimal varints, a canonical payload), so
// a decoder's answer re-encodes to exactly its input.
const (
	sessionVersion = 1
	flagCode       = 1
	flagLink       = 2
	flagResponder  = 4
	flagOrigin     = 8
	flagEmail      = 16
	flagPhone      = 32
	flagLanguage   = 64
	flagOwn        = 128
	flagsKnown     = flagCode | flagLink | flagResponder | flagOrigin | flagEmail | flagPhone | flagLanguage | flagOwn
	// maxLanguage bounds a session's language code (fa, ar, tr, en).
	maxLanguage = 8
	// maxPhone bounds a session's phone number: E.164 is at most 15
	// digits after its "+".
	maxPhone = 16
	// MaxCode bounds a session's code in bytes: a code is at most 100
	// characters (section 7).
	MaxCode = 400
)

var errSession = errors.New("responding: malformed session")

// Encode writes the session.
func (s Session) Encode() []byte {
	b := make([]byte, 0, 16+len(s.Code)+32)
	var flags byte
	if s.Code != "" {
		flags |= flagCode
	}
	if s.Link != nil {
		flags |= flagLink
	}
	if s.Responder != ([16]byte{}) {
		flags |= flagResponder
	}
	if s.Origin != ([32]byte{}) {
		flags |= flagOrigin
	}
	if s.Email != "" {
		flags |= flagEmail
	}
	if s.Phone != "" {
		flags |= flagPhone
	}
	if s.Language != "" {
		flags |= flagLanguage
	}
	if s.OwnPartition {
		flags |= flagOwn
	}
	b = append(b, sessionVersion, flags)
	b = binary.AppendVarint(b, s.StartedAt.UnixMicro())
	if flags&flagResponder != 0 {
		b = append(b, s.Responder[:]...)
	}
	if flags&flagOrigin != 0 {
		b = append(b, s.Origin[:]...)
	}
	for _, f := range []string{s.Code, s.Email, s.Phone, s.Language} {
		if f != "" {
			b = binary.AppendUvarint(b, uint64(len(f)))
			b = append(b, f...)
		}
	}
	if s.Link != nil {
		b = append(b, s.Link.ID[:]...)
		b = s.Link.Values.AppendEncode(b)
	}
	return b
}

// DecodeSession reads an encoded session. It never panics and allocates at
// most in proportion to its input.
func DecodeSession(b []byte) (Session, error) {
	if len(b) < 3 || b[0] != sessionVersion || b[1]&^flagsKnown != 0 {
		return Session{}, errSession
	}
	flags := b[1]
	b = b[2:]
	micros, k := binary.Varint(b)
	if k <= 0 || k != len(binary.AppendVarint(nil, micros)) || micros <= 0 {
		return Session{}, errSession
	}
	b = b[k:]
	s := Session{StartedAt: time.UnixMicro(micros).UTC(), OwnPartition: flags&flagOwn != 0}
	if flags&flagResponder != 0 {
		if len(b) < len(s.Responder) {
			return Session{}, errSession
		}
		copy(s.Responder[:], b)
		if s.Responder == ([16]byte{}) {
			return Session{}, errSession
		}
		b = b[len(s.Responder):]
	}
	if flags&flagOrigin != 0 {
		if len(b) < len(s.Origin) {
			return Session{}, errSession
		}
		copy(s.Origin[:], b)
		if s.Origin == ([32]byte{}) {
			return Session{}, errSession
		}
		b = b[len(s.Origin):]
	}
	for _, f := range []struct {
		flag byte
		max  uint64
		to   *string
	}{{flagCode, MaxCode, &s.Code}, {flagEmail, MaxEmail, &s.Email}, {flagPhone, maxPhone, &s.Phone}, {flagLanguage, maxLanguage, &s.Language}} {
		if flags&f.flag == 0 {
			continue
		}
		n, k := binary.Uvarint(b)
		if k <= 0 || k != len(binary.AppendUvarint(nil, n)) || n == 0 || n > f.max || n > uint64(len(b)-k) {
			return Session{}, errSession
		}
		*f.to = string(b[k : k+int(n)])
		if !utf8.ValidString(*f.to) {
			return Session{}, errSession
		}
		b = b[k+int(n):]
	}
	if flags&flagLink == 0 {
		if len(b) != 0 {
			return Session{}, errSession
		}
		return s, nil
	}
	if len(b) < len(SessionLink{}.ID) {
		return Session{}, errSession
	}
	l := &SessionLink{}
	copy(l.ID[:], b)
	p, err := links.DecodePayload(b[len(l.ID):])
	if err != nil {
		return Session{}, errSession
	}
	l.Values = p
	s.Link = l
	return s, nil
}

// openSession opens a session token of survey sid: ErrInvalidSession for
// anything that does not open (another survey's, tampered, not a session).
func openSession(ctx context.Context, sealer Sealer, sid int64, token string) (Session, error) {
	plain, err := sealer.OpenFor(ctx, links.PurposeSession, sid, token)
	if errors.Is(err, links.ErrInvalid) {
		return Session{}, ErrInvalidSession
	}
	if err != nil {
		return Session{}, err
	}
	sess, err := DecodeSession(plain)
	if err != nil {
		return Session{}, ErrInvalidSession
	}
	return sess, nil
}
