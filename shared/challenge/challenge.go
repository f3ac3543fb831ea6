// Package challenge is the proof-of-work challenge of a survey's CAPTCHA
// (contract section 16): the service seals a random salt, a difficulty and
// an expiry, bound to the survey; the responder's browser finds a nonce
// such that SHA-256(salt + ":" + nonce) starts with difficulty zero bits;
// the service checks the answer with one hash and spends the challenge
// once (a conditional put of a spent-marker, Spender).
//
// The same check serves the sessions route of a captcha_needed survey and
// the code-guess guard of a survey under attack (Check).
package challenge

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/bits"
	"strconv"
	"time"

	"surveyservice/shared/datakey"
	"surveyservice/shared/survey"
)

// Difficulty is the number of leading zero bits a solution's hash needs.
// 2^18 hashes on average: about a second in a phone's browser (the page's
// worker hashes in plain JavaScript; `make bench` logs the solve time its
// browser test measured), one hash for the server.
const Difficulty = 18

// Validity is how long a challenge may be answered.
const Validity = 10 * time.Minute

// SaltLen is the salt's length in bytes (hex in the API).
const SaltLen = 16

// MaxNonce bounds a nonce: a decimal string of 1 to 20 digits.
const MaxNonce = 20

// Refusals (contract section 16): a wrong, reused, expired or foreign
// solution is one 400; a captcha_needed session without one another.
var (
	ErrInvalid  = survey.FieldError("captcha", "Invalid challenge.")
	ErrRequired = survey.FieldError("captcha", "This field is required.")
)

// ErrSpent is a Spender's answer for a challenge spent before.
var ErrSpent = errors.New("challenge: spent")

// Challenge is what a sealed challenge carries.
type Challenge struct {
	Salt       [SaltLen]byte
	Difficulty int
	ExpiresAt  time.Time // whole seconds
}

// Issued is a challenge as GET .../challenge/ answers it.
type Issued struct {
	Challenge  string `json:"challenge"`
	Salt       string `json:"salt"`
	Difficulty int    `json:"difficulty"`
	ExpiresAt  string `json:"expires_at"`
}

// Solution is a responder's answer: the sealed challenge and the nonce.
type Solution struct {
	Challenge string
	Nonce     string
}

// Sealer seals and opens challenges; *links.Sealer implements it.
type Sealer interface {
	SealFor(ctx context.Context, purpose datakey.Purpose, surveyID int64, plain []byte) (string, error)
	OpenFor(ctx context.Context, purpose datakey.Purpose, surveyID int64, token string) ([]byte, error)
}

// Spender records a challenge as spent: a conditional put of a marker that
// expires with the challenge; ErrSpent when it exists already (also when
// two requests race: one put wins). *store.Store implements it.
type Spender interface {
	SpendChallenge(ctx context.Context, surveyID int64, salt string, expiresAt time.Time) error
}

// The encoding (version 1): version 1 byte, difficulty 1 byte, the salt,
// expires_at as 8 bytes of Unix seconds, big endian.
const (
	version    = 1
	encodedLen = 2 + SaltLen + 8
)

// Encode writes the challenge.
func (c Challenge) Encode() []byte {
	b := make([]byte, 0, encodedLen)
	b = append(b, version, byte(c.Difficulty))
	b = append(b, c.Salt[:]...)
	return binary.BigEndian.AppendUint64(b, uint64(c.ExpiresAt.Unix()))
}

var errMalformed = errors.New("challenge: malformed")

// Decode reads an encoded challenge; it never panics.
func Decode(b []byte) (Challenge, error) {
	if len(b) != encodedLen || b[0] != version || b[1] == 0 || b[1] > 64 {
		return Challenge{}, errMalformed
	}
	var c Challenge
	c.Difficulty = int(b[1])
	copy(c.Salt[:], b[2:2+SaltLen])
	secs := binary.BigEndian.Uint64(b[2+SaltLen:])
	if secs > 1<<40 {
		return Challenge{}, errMalformed
	}
	c.ExpiresAt = time.Unix(int64(secs), 0).UTC()
	return c, nil
}

// Issue makes a challenge for the survey, valid for Validity from now,
// sealed under the sealer's current data key (no AWS call while it is
// fresh).
func Issue(ctx context.Context, sealer Sealer, surveyID int64, now time.Time) (Issued, error) {
	c := Challenge{Difficulty: Difficulty, ExpiresAt: now.Add(Validity).UTC().Truncate(time.Second)}
	rand.Read(c.Salt[:])
	token, err := sealer.SealFor(ctx, datakey.PurposeChallenge, surveyID, c.Encode())
	if err != nil {
		return Issued{}, err
	}
	return Issued{
		Challenge: token, Salt: hex.EncodeToString(c.Salt[:]), Difficulty: c.Difficulty,
		ExpiresAt: c.ExpiresAt.Format(time.RFC3339),
	}, nil
}

// Solved reports whether nonce solves a challenge of that salt (hex) and
// difficulty: 1 to MaxNonce decimal digits, and SHA-256 of salt + ":" +
// nonce with at least difficulty leading zero bits. It costs one hash.
func Solved(saltHex, nonce string, difficulty int) bool {
	if len(nonce) == 0 || len(nonce) > MaxNonce {
		return false
	}
	for i := 0; i < len(nonce); i++ {
		if nonce[i] < '0' || nonce[i] > '9' {
			return false
		}
	}
	var buf [2*SaltLen + 1 + MaxNonce]byte
	b := append(append(append(buf[:0], saltHex...), ':'), nonce...)
	return LeadingZeros(sha256.Sum256(b)) >= difficulty
}

// LeadingZeros counts the leading zero bits of a hash.
func LeadingZeros(h [sha256.Size]byte) int {
	n := 0
	for _, x := range h {
		if x != 0 {
			return n + bits.LeadingZeros8(x)
		}
		n += 8
	}
	return n
}

// Verify opens a solution's challenge for the survey and checks it at
// now: sealed by the service for this survey, not expired, solved. It
// spends nothing (Check does); every refusal is ErrInvalid, and the
// sealer's store or KMS errors pass through.
func Verify(ctx context.Context, opener Sealer, surveyID int64, sol Solution, now time.Time) (Challenge, error) {
	plain, err := opener.OpenFor(ctx, datakey.PurposeChallenge, surveyID, sol.Challenge)
	if errors.Is(err, datakey.ErrInvalid) {
		return Challenge{}, ErrInvalid
	}
	if err != nil {
		return Challenge{}, err
	}
	c, err := Decode(plain)
	if err != nil || !now.Before(c.ExpiresAt) || !Solved(hex.EncodeToString(c.Salt[:]), sol.Nonce, c.Difficulty) {
		return Challenge{}, ErrInvalid
	}
	return c, nil
}

// Check verifies a solution (Verify) and spends its challenge, exactly
// once also under racing requests: ErrInvalid for a wrong, expired,
// foreign or spent one. It is the whole CAPTCHA check: the sessions route
// of a captcha_needed survey calls it, and so may the code-guess guard of a
// survey under attack. Cost: one hash, one conditional put.
func Check(ctx context.Context, opener Sealer, spender Spender, surveyID int64, sol Solution, now time.Time) error {
	c, err := Verify(ctx, opener, surveyID, sol, now)
	if err != nil {
		return err
	}
	return Spend(ctx, spender, surveyID, c)
}

// Spend spends a verified challenge (Verify), exactly once also under
// racing requests: ErrInvalid when it was spent already. Check is Verify
// then Spend; a route that has a refusal of its own to decide between
// the two (one that must spend nothing) calls them apart.
func Spend(ctx context.Context, spender Spender, surveyID int64, c Challenge) error {
	err := spender.SpendChallenge(ctx, surveyID, hex.EncodeToString(c.Salt[:]), c.ExpiresAt)
	if errors.Is(err, ErrSpent) {
		return ErrInvalid
	}
	return err
}

// Parse reads the session request's "captcha" member, already decoded as
// JSON: an object {"challenge", "nonce"} of strings. Anything else is
// ErrInvalid; absent (nil) is ErrRequired.
func Parse(v any) (Solution, error) {
	if v == nil {
		return Solution{}, ErrRequired
	}
	m, ok := v.(map[string]any)
	if !ok {
		return Solution{}, ErrInvalid
	}
	ch, ok1 := m["challenge"].(string)
	nonce, ok2 := m["nonce"].(string)
	if !ok1 || !ok2 || ch == "" {
		return Solution{}, ErrInvalid
	}
	return Solution{Challenge: ch, Nonce: nonce}, nil
}

// Solve finds the smallest nonce that solves a challenge, as the page's
// worker does; for Go clients and tests.
func Solve(saltHex string, difficulty int) string {
	var buf [2*SaltLen + 1 + MaxNonce]byte
	prefix := append(append(buf[:0], saltHex...), ':')
	for n := uint64(0); ; n++ {
		b := strconv.AppendUint(prefix, n, 10)
		if LeadingZeros(sha256.Sum256(b)) >= difficulty {
			return string(b[len(prefix):])
		}
	}
}
