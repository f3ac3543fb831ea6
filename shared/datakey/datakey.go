// Package datakey names the data keys of personalised links, as the table
// stores them, and the purposes of the tokens sealed with them. It is apart
// from shared/links so that the store (which every function links), and
// the packages that only name a purpose (challenge, uploads), do not pull
// in the KMS client: only the functions that seal or open links need that
// (its package init alone is about 0.3 MB of every bootstrap).
package datakey

import (
	"errors"
	"time"
)

// IDLen is the length of a data key id.
const IDLen = 4

// ID names a data key.
type ID [IDLen]byte

// String is the id in hex, as the table stores it.
func (k ID) String() string {
	const hexdigits = "0123456789abcdef"
	b := make([]byte, 0, 2*IDLen)
	for _, c := range k {
		b = append(b, hexdigits[c>>4], hexdigits[c&15])
	}
	return string(b)
}

// Key is a data key as stored: its id, its KMS-wrapped bytes and when it
// was made. The plaintext is never stored.
type Key struct {
	ID      ID
	Wrapped []byte
	Created time.Time
}

// ErrNoKey is a key store's answer for a key (or a current key) it lacks.
var ErrNoKey = errors.New("datakey: no such data key")

// Purpose is what a token is for: it is part of the associated data, so a
// token of one purpose never opens as another's. Each purpose ends in ':'
// and the survey id that follows has a fixed width, so no purpose and id
// can read as another's.
type Purpose string

// The purposes of tokens.
const (
	// PurposeLink is a personalised link (Seal, Open).
	PurposeLink Purpose = "survey-links/v1/survey:"
	// PurposeSession is a responder's session (contract section 11).
	PurposeSession Purpose = "survey-sessions/v1/survey:"
	// PurposeSheet is a responder's answer sheet, bound to their response
	// (contract section 15).
	PurposeSheet Purpose = "survey-sheets/v1/survey:"
	// PurposeWebhookSecret is a webhook's signing secret, sealed for the
	// table; the webhook's id stands in the survey id's place.
	PurposeWebhookSecret Purpose = "webhook-secrets/v1/webhook:"
	// PurposeVerification is a one-time code's verification, bound to the
	// session it was sent for (contract section 18).
	PurposeVerification Purpose = "survey-verifications/v1/survey:"
	// PurposeChallenge is a proof-of-work challenge (contract section 16).
	PurposeChallenge Purpose = "survey-challenges/v1/survey:"
	// PurposeEdit is a response's edit token (contract section 16).
	PurposeEdit Purpose = "survey-edits/v1/survey:"
	// PurposeUpload is a file upload's id (contract section 16).
	PurposeUpload Purpose = "survey-uploads/v1/survey:"
	// PurposeServed is the time the responder's page was served, sealed
	// into its plain form: the session of a form sent without the page's
	// script starts then, so the time to respond holds without it.
	PurposeServed Purpose = "survey-pages-served/v1/survey:"
	// PurposeSteps is what a plain form carries from page to page of a
	// survey with display rules (contract section 15): the page it shows
	// and the answers given before it.
	PurposeSteps Purpose = "survey-pages-steps/v1/survey:"
	// PurposeResume is a partial response's resume token, "Continue
	// later" on another device (contract section 20).
	PurposeResume Purpose = "survey-resumes/v1/survey:"
)

// ErrInvalid is every reason a token does not open: malformed, truncated,
// tampered, another survey's, an unknown key. Callers answer all alike.
var ErrInvalid = errors.New("links: invalid token")
