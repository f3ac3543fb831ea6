// Package outbox is `make run`'s local outbox: every message the service
// sends is also kept here (newest first) and printed, so that a person
// trying the service locally can read a sign-in code or a notification
// without a mailbox or a phone. GET /local/outbox/ serves it (make run
// only; never in template.yaml, never in a Lambda: lambdas_test.go).
package outbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"surveyservice/shared/sending"
)

// Keep is how many messages the outbox keeps; older ones are dropped.
const Keep = 1000

// Entry is one message as GET /local/outbox/ lists it.
type Entry struct {
	To      string    `json:"to"`
	Channel string    `json:"channel"`
	Subject string    `json:"subject"`
	Body    string    `json:"body"`
	SentAt  time.Time `json:"sent_at"`
}

// Outbox keeps the messages its senders sent.
type Outbox struct {
	mu      sync.Mutex
	entries []Entry // oldest first
	print   io.Writer
	now     func() time.Time
}

// New is an empty outbox that prints each message to print (nil: prints
// nothing).
func New(print io.Writer) *Outbox { return &Outbox{print: print, now: time.Now} }

// Wrap is s with every message it sends kept in the outbox (a failed send
// is not kept).
func (o *Outbox) Wrap(s sending.Sender) sending.Sender { return keeping{o: o, s: s} }

type keeping struct {
	o *Outbox
	s sending.Sender
}

func (k keeping) Send(ctx context.Context, m sending.Message) error {
	if err := k.s.Send(ctx, m); err != nil {
		return err
	}
	k.o.add(m)
	return nil
}

func (o *Outbox) add(m sending.Message) {
	e := Entry{To: m.To, Channel: m.Channel, Subject: m.Subject, Body: m.Body, SentAt: o.now().UTC()}
	o.mu.Lock()
	o.entries = append(o.entries, e)
	if len(o.entries) > Keep {
		o.entries = append([]Entry(nil), o.entries[len(o.entries)-Keep:]...)
	}
	o.mu.Unlock()
	if o.print != nil {
		subject := ""
		if e.Subject != "" {
			subject = " «" + e.Subject + "»"
		}
		fmt.Fprintf(o.print, "outbox: %s to %s%s\n%s\n", e.Channel, e.To, subject, e.Body)
	}
}

// Messages answers the kept messages, newest first.
func (o *Outbox) Messages() []Entry {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]Entry, len(o.entries))
	for i, e := range o.entries {
		out[len(out)-1-i] = e
	}
	return out
}

// ServeHTTP answers GET (and HEAD) with the messages, newest first, as a
// JSON list of {"to", "channel", "subject", "body", "sent_at"}.
func (o *Outbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusMethodNotAllowed)
		fmt.Fprintf(w, `{"detail": "Method \"%s\" not allowed."}`, r.Method)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(o.Messages())
}

// sendingMessage is a recorded call as an outbox message.
func sendingMessage(channel, to, subject, body string) sending.Message {
	return sending.Message{Channel: channel, To: to, Subject: subject, Body: body}
}
