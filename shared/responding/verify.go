package responding

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"surveyservice/shared/challenge"
	"surveyservice/shared/links"
	"surveyservice/shared/sending"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Verification limits (contract section 18).
const (
	// CodeLifetime is how long a sent code may be confirmed.
	CodeLifetime = 10 * time.Minute
	// CodeTries is how many confirms a code allows, the right one included.
	CodeTries = 5
	// codeDigits is a code's length.
	codeDigits = 6
	// budgetPurpose keeps the codes' budgets apart from notifications'.
	budgetPurpose = "verify"
)

// Refusals of sending and confirming a code (contract section 18).
var (
	ErrInvalidVerification = survey.FieldError("verification", "Invalid verification.")
	ErrInvalidCode         = survey.FieldError("code", "Invalid code.")
	ErrCodeExpired         = survey.Errorf(survey.EGONE, "This code has expired. Ask for a new one.")
	ErrNumberRefused       = survey.ErrNumberRefused
	ErrInvalidPhone        = survey.FieldError("address", survey.PhoneInvalidMessage)
)

// ChannelUnused refuses a channel the survey does not sign in by.
func ChannelUnused(channel string) error {
	return survey.FieldError("channel", "This survey does not sign in by "+channel+".")
}

// VerifyStore is what sending and confirming codes reads and writes;
// *store.Store implements it.
type VerifyStore interface {
	GuardedSurveyBySlug(ctx context.Context, slug, client string) (store.PublicSurvey, store.CodeGuard, error)
	RecordFailedGuess(ctx context.Context, g store.CodeGuard) error
	SurveyIDBySlug(ctx context.Context, slug string) (int64, error)
	SpendChallenge(ctx context.Context, sid int64, salt string, expiresAt time.Time) error
	PutVerification(ctx context.Context, sid int64, id string, code store.VerificationCode, expiresAt time.Time) error
	TryVerification(ctx context.Context, sid int64, id string, maxTries int, now time.Time) (store.VerificationCode, error)
	SpendVerification(ctx context.Context, sid int64, id string) error
	DropVerification(ctx context.Context, sid int64, id string) error
	PhoneListed(ctx context.Context, sid int64, e164 string) (bool, error)
	SessionResponded(ctx context.Context, sid int64, session string, legacy bool) (bool, error)
}

var _ VerifyStore = (*store.Store)(nil)

// Verifier sends and confirms one-time codes (contract section 18): its
// dependencies, named once.
type Verifier struct {
	Store   VerifyStore
	Sealer  Sealer
	Sender  sending.Sender
	Budgets *sending.Budgets
	// Mobile admits the numbers SMS may go to (mobile.Admits: section 18
	// as amended); injected so that its numbering-plan metadata is linked
	// only into the function that sends codes. Nil admits none.
	Mobile func(e164 string) bool
	Limits sending.Limits
	Now    func() time.Time
}

// SendRequest is a code to send as a request asks for it; the handler has
// checked that each field is present and of its type.
type SendRequest struct {
	// Slug names the survey; Client is the request's source IP.
	Slug, Client string
	// Session is the responder's session token; Channel ChannelEmail or
	// ChannelSMS; Address what the responder typed.
	Session, Channel, Address string
	// Captcha is the request's "captcha" member as decoded JSON: a solved
	// challenge of the survey, which the send spends.
	Captcha any
}

// Sent is a code sent: the sealed verification token and its expiry.
type Sent struct {
	Token     string
	ExpiresAt time.Time
}

// Send sends a one-time code to prove the address of req (contract
// section 18). Refusals, in order, none spending a budget: an unknown
// survey 404, a trashed or closed one 410, a session that does not open
// for the survey 400, a channel the survey does not use 400, a malformed
// or unadmitted address 400, the challenge missing or wrong 400, a
// session whose response is recorded 409 (section 11: it can never
// respond again, so nothing is spent on it, not even the challenge), the
// challenge spent 400 (a good one is spent from here on), on a phone_numbers_limited survey
// the code-guess guard's 429 and an unlisted number 403 (a failed
// guess), an exhausted budget 429 (address, client, survey, account, each
// its fixed window). A failed send answers 503 and gives its budgets
// back.
func (v Verifier) Send(ctx context.Context, req SendRequest) (Sent, error) {
	now := v.Now()
	ps, guard, err := v.Store.GuardedSurveyBySlug(ctx, req.Slug, req.Client)
	if err == nil && (ps.Survey.Deleted || !ps.Survey.Active(now)) {
		err = survey.ErrSurveyClosed
	}
	if err != nil {
		return Sent{}, err
	}
	sv, set := ps.Survey, ps.Settings
	sess, err := openSession(ctx, v.Sealer, sv.ID, req.Session)
	if err != nil {
		return Sent{}, err
	}
	lang, _ := survey.LanguageCode(sv.Language)
	identity, err := v.identity(set, req.Channel, req.Address, lang)
	if err != nil {
		return Sent{}, err
	}
	var solved challenge.Challenge
	sol, err := challenge.Parse(req.Captcha)
	if err == nil {
		solved, err = challenge.Verify(ctx, v.Sealer, sv.ID, sol, now)
	}
	if err != nil {
		return Sent{}, err
	}
	// The responded session's 409 comes after every 400 of the request's
	// own (its fields, its challenge solved: so the GetItem it costs is
	// paid for by a proof of work) and before anything is spent (the
	// challenge, a failed guess, a budget, a message), so that a refused
	// send spends nothing, as every refused send (section 18).
	if err := v.refuseResponded(ctx, sv.ID, req.Session, sess); err != nil {
		return Sent{}, err
	}
	if err := challenge.Spend(ctx, v.Store, sv.ID, solved); err != nil {
		return Sent{}, err
	}
	if err := v.checkListed(ctx, set, sv.ID, guard, req.Channel, identity); err != nil {
		return Sent{}, err
	}
	code, stored, err := newCode()
	if err != nil {
		return Sent{}, err
	}
	ver := Verification{Channel: req.Channel, Identity: identity, Session: sessionSum(req.Session), ExpiresAt: now.Add(CodeLifetime).Unix()}
	if _, err := rand.Read(ver.ID[:]); err != nil {
		return Sent{}, fmt.Errorf("responding: verification id: %w", err)
	}
	token, err := v.Sealer.SealFor(ctx, links.PurposeVerification, sv.ID, ver.Encode())
	if err != nil {
		return Sent{}, err
	}
	id, expires := hex.EncodeToString(ver.ID[:]), time.Unix(ver.ExpiresAt, 0).UTC()
	if err := v.Store.PutVerification(ctx, sv.ID, id, stored, expires); err != nil {
		return Sent{}, err
	}
	// The message speaks the session's language (section 24), naming the
	// survey in it; phone numbers are still read by the survey's own.
	msgLang, name := lang, sv.Name
	if ps.Translations.Has(sess.Language, lang) {
		msgLang = sess.Language
		name, _ = ps.Translations.Name(msgLang, lang, sv.Name)
	}
	msg := CodeMessage(req.Channel, identity, msgLang, name, code)
	l := v.Limits
	// One mailbox's budget, whatever "+tag" each address carries.
	person := identity
	if req.Channel == ChannelEmail {
		person = EmailPerson(identity)
	}
	err = sending.Send(ctx, v.Sender, v.Budgets, msg,
		l.AddressBudget(budgetPurpose, IdentityKey(req.Channel, person)), l.ClientBudget(budgetPurpose, req.Client),
		l.SurveyBudget(budgetPurpose, sv.ID), l.AccountBudget(budgetPurpose, sv.AccountID))
	if err != nil {
		// Never sent: the verification is no code anyone holds.
		if derr := v.Store.DropVerification(context.WithoutCancel(ctx), sv.ID, id); derr != nil {
			return Sent{}, errors.Join(err, derr)
		}
		return Sent{}, err
	}
	return Sent{Token: token, ExpiresAt: expires}, nil
}

// refuseResponded answers survey.ErrSessionResponded (409) for a session
// (token, opened as sess) of survey sid whose response is recorded: a code
// would prove an identity for a session that can never respond again
// (contract section 11). One strongly consistent GetItem of the session's
// own item (store.SessionResponded), where the submission claims it.
func (v Verifier) refuseResponded(ctx context.Context, sid int64, token string, sess Session) error {
	responded, err := v.Store.SessionResponded(ctx, sid, sess.Claim(token), !sess.OwnPartition)
	if err == nil && responded {
		err = survey.ErrSessionResponded
	}
	return err
}

// identity is the identity an address proves by channel on a survey with
// settings set: the channel must be one the survey signs in by, the
// address valid (and an email admitted by service_auth_domains).
func (v Verifier) identity(set survey.Settings, channel, address, lang string) (string, error) {
	if !channelUsed(set, channel) {
		return "", ChannelUnused(channel)
	}
	if channel == ChannelEmail {
		return EmailIdentity(address, set.ServiceAuthDomains)
	}
	phone, ok := survey.NormalizePhone(address, lang)
	if !ok || v.Mobile == nil || !v.Mobile(phone) {
		return "", ErrInvalidPhone
	}
	return phone, nil
}

// checkListed refuses, on a phone_numbers_limited survey, a number that
// is not on the survey's list, as the code-guess guard refuses a wrong
// code: while the client's failures are at their limit 429, otherwise 403
// counted as a failed guess. Nothing has been spent on a message yet.
func (v Verifier) checkListed(ctx context.Context, set survey.Settings, sid int64, guard store.CodeGuard, channel, phone string) error {
	if channel != ChannelSMS || !set.PhoneNumbersLimited {
		return nil
	}
	if err := guard.Check(); err != nil {
		return err
	}
	listed, err := v.Store.PhoneListed(ctx, sid, phone)
	if err != nil || listed {
		return err
	}
	if err := v.Store.RecordFailedGuess(ctx, guard); err != nil {
		return err
	}
	return ErrNumberRefused
}

// ConfirmRequest is a code to confirm as a request asks for it.
type ConfirmRequest struct {
	Slug, Session, Verification, Code string
}

// Confirm checks a code sent by Send and answers a new session token: the
// session's, carrying everything it carried plus the proven identity
// (proofs add up across confirms). Refusals: an unknown survey 404, a
// verification that does not open 400, a session that does not open or is
// not the one the code was sent for 400, a session whose response is
// recorded 409 (as Send's), an expired, spent or tried-out verification
// 410, a wrong code 400 (each try counted, the
// right one too: store.TryVerification).
func (v Verifier) Confirm(ctx context.Context, req ConfirmRequest) (string, error) {
	sid, err := v.Store.SurveyIDBySlug(ctx, req.Slug)
	if err != nil {
		return "", err
	}
	plain, err := v.Sealer.OpenFor(ctx, links.PurposeVerification, sid, req.Verification)
	if errors.Is(err, links.ErrInvalid) {
		return "", ErrInvalidVerification
	}
	if err != nil {
		return "", err
	}
	ver, err := DecodeVerification(plain)
	if err != nil {
		return "", ErrInvalidVerification
	}
	sess, err := openSession(ctx, v.Sealer, sid, req.Session)
	if err != nil {
		return "", err
	}
	if sum := sessionSum(req.Session); !hmac.Equal(sum[:], ver.Session[:]) {
		return "", ErrInvalidSession
	}
	// Before the 410, whose "ask for a new one" a send would refuse, and
	// before the try TryVerification counts.
	if err := v.refuseResponded(ctx, sid, req.Session, sess); err != nil {
		return "", err
	}
	now := v.Now()
	if now.Unix() >= ver.ExpiresAt {
		return "", ErrCodeExpired
	}
	stored, err := v.Store.TryVerification(ctx, sid, hex.EncodeToString(ver.ID[:]), CodeTries, now)
	if errors.Is(err, store.ErrVerificationGone) {
		return "", ErrCodeExpired
	}
	if err != nil {
		return "", err
	}
	if !matches(stored, req.Code) {
		return "", ErrInvalidCode
	}
	if err := v.Store.SpendVerification(ctx, sid, hex.EncodeToString(ver.ID[:])); errors.Is(err, store.ErrVerificationGone) {
		return "", ErrCodeExpired
	} else if err != nil {
		return "", err
	}
	if ver.Channel == ChannelSMS {
		sess.Phone = ver.Identity
	} else {
		sess.Email = ver.Identity
	}
	// The same session, plus a proof: it keeps the first session's claim
	// (as a resumed one does), so that a session records one response
	// however often it confirms (contract section 11).
	if sess.Origin == ([32]byte{}) {
		sum := sha256.Sum256([]byte(req.Session))
		sess.Origin = sum
	}
	return v.Sealer.SealFor(ctx, links.PurposeSession, sid, sess.Encode())
}

// sessionSum is the SHA-256 of a session token, which binds a
// verification to the session it was sent for.
func sessionSum(token string) [32]byte { return sha256.Sum256([]byte(token)) }

// newCode is a fresh code of codeDigits decimal digits and what the table
// keeps of it: a random salt and the HMAC-SHA-256 of the code under it.
func newCode() (string, store.VerificationCode, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", store.VerificationCode{}, fmt.Errorf("responding: code: %w", err)
	}
	code := fmt.Sprintf("%0*d", codeDigits, n.Int64())
	var salt [16]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return "", store.VerificationCode{}, fmt.Errorf("responding: code salt: %w", err)
	}
	return code, store.VerificationCode{Salt: hex.EncodeToString(salt[:]), Hash: codeHash(salt[:], code)}, nil
}

// codeHash is the hex HMAC-SHA-256 of a code under its salt.
func codeHash(salt []byte, code string) string {
	m := hmac.New(sha256.New, salt)
	m.Write([]byte(code))
	return hex.EncodeToString(m.Sum(nil))
}

// matches reports whether code (Persian and Arabic-Indic digits read as
// digits, spaces ignored) is the code stored.
func matches(c store.VerificationCode, code string) bool {
	salt, err := hex.DecodeString(c.Salt)
	if err != nil {
		return false
	}
	digits, ok := CodeDigits(code)
	if !ok {
		return false
	}
	return hmac.Equal([]byte(codeHash(salt, digits)), []byte(c.Hash))
}

// CodeDigits reads a typed code: ASCII, Persian (۰-۹) and Arabic-Indic
// (٠-٩) digits as digits, spaces dropped; false for anything else or a
// length other than a code's.
func CodeDigits(s string) (string, bool) {
	if len(s) > 64 {
		return "", false
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == ' ' || r == '\t' || r == '-':
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r >= '۰' && r <= '۹':
			b.WriteByte(byte('0' + (r - '۰')))
		case r >= '٠' && r <= '٩':
			b.WriteByte(byte('0' + (r - '٠')))
		default:
			return "", false
		}
	}
	if b.Len() != codeDigits {
		return "", false
	}
	return b.String(), true
}
