// Package sending is the service's one way to send a message to a person:
// an email through Amazon SES, an SMS through Amazon SNS, each spent from
// fixed-window budgets kept in the table, so that a script (or a viral
// survey) cannot run up a bill. Responders' sign-in codes (contract
// section 18) and owners' notifications of new responses (section 21) both
// send through it.
//
// The flow is Budgets.Spend, then Sender.Send, then Spent.Refund when the
// send failed; Send does the three.
package sending

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"surveyservice/shared/survey"
)

// The channels a message goes by.
const (
	ChannelEmail = "email"
	ChannelSMS   = "sms"
)

// Message is one message to one person. Subject is the email's (an SMS
// has none); Body is plain text.
type Message struct {
	Channel string // ChannelEmail or ChannelSMS
	To      string // an email address, or a phone number in E.164
	Subject string
	Body    string
}

// Sender sends one message. An error means the message was not sent (as
// far as the sender knows): the caller gives back what it spent and
// answers 503.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// ErrNotSent is what every failed send wraps, besides its cause: a caller
// that must tell a failed send from other failures tests errors.Is.
var ErrNotSent = errors.New("sending: message not sent")

// errUnavailable is the client's answer to a failed send: 503, spending
// nothing.
var errUnavailable = survey.Errorf(survey.EUNAVAILABLE, "The message could not be sent; try again shortly.")

// notSent wraps a sender's failure: the client sees errUnavailable (503),
// the log the cause.
type notSent struct {
	m   Message
	err error
}

func (e *notSent) Error() string {
	return fmt.Sprintf("sending: %s to %s: %v", e.m.Channel, redact(e.m.To), e.err)
}

// Unwrap exposes the public error (errors.As), ErrNotSent and the cause.
func (e *notSent) Unwrap() []error { return []error{errUnavailable, ErrNotSent, e.err} }

// NotSent wraps a sender's failure to send m as the error Send answers:
// a 503 for the client, ErrNotSent and the cause for errors.Is. Senders
// return it; callers test errors.Is(err, ErrNotSent).
func NotSent(m Message, err error) error { return &notSent{m: m, err: err} }

// redact keeps an address out of the logs but for its first characters
// and domain, enough to tell two apart.
func redact(to string) string {
	if len(to) <= 4 {
		return "…"
	}
	for i := len(to) - 1; i >= 0; i-- {
		if to[i] == '@' {
			return to[:min(2, i)] + "…" + to[i:]
		}
	}
	return to[:4] + "…"
}

// Send spends budgets (all or none: Budgets.Spend), sends m, and gives the
// budgets back when the send fails. It answers nil, an ETOOMANY error
// (429, Retry-After the seconds left in the exhausted window), or a
// failure that answers 503 and wraps ErrNotSent.
//
// Every SMS also spends from the whole service's day (SMS_DAILY_LIMIT,
// contract section 18 as amended), last, after the narrower budgets.
func Send(ctx context.Context, s Sender, b *Budgets, m Message, budgets ...Budget) error {
	spent, err := b.Spend(ctx, budgets...)
	if err != nil {
		return err
	}
	if m.Channel == ChannelSMS {
		w, err := b.spendServiceSMS(ctx, b.now())
		if err != nil {
			if rerr := spent.Refund(context.WithoutCancel(ctx)); rerr != nil {
				err = errors.Join(err, rerr)
			}
			return err
		}
		spent.windows = append(spent.windows, w)
	}
	if err := s.Send(ctx, m); err != nil {
		if !errors.Is(err, ErrNotSent) {
			err = NotSent(m, err)
		}
		if rerr := spent.Refund(context.WithoutCancel(ctx)); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	return nil
}

// SubjectLine is a subject as one line: every control character (CR, LF,
// tab, NEL) and line or paragraph separator a text may carry (a survey's
// name can hold a line break) splits it like a space, and the parts are
// joined by one space. A header line never breaks, whatever the name, and
// SES is never asked to send one that does.
func SubjectLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
}
