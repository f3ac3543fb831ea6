package sweeper_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/miekg/dns"

	"surveyservice/functions/sweeper"
	"surveyservice/internal/dnstest"
	"surveyservice/internal/localaws"
	"surveyservice/internal/moto"
	"surveyservice/internal/testenv"
	"surveyservice/shared/dnscheck"
	"surveyservice/shared/sending"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

// failingOnce fails its first send (SES refusing), then sends through the
// real sender.
type failingOnce struct {
	sending.Sender
	failed bool
}

func (f *failingOnce) Send(ctx context.Context, m sending.Message) error {
	if !f.failed {
		f.failed = true
		return sending.NotSent(m, errors.New("ses: throttled"))
	}
	return f.Sender.Send(ctx, m)
}

// TestDomainSuspendedNotice: a suspension by the daily check (contract
// section 23) tells the account once: one domain.suspended delivery to
// each webhook of the account's surveys that lists the event (made in the
// table and queued on SQS, the deliver function's path) with the
// contract's data, none to a webhook that does not list it nor to another
// account's, and one email to the owner through SES (moto). A check
// retried on the same records tells nothing more; an email SES refused
// is sent by the next run (and the deliveries are not made twice); a
// domain restored and suspended again is told a second time.
func TestDomainSuspendedNotice(t *testing.T) {
	st := testenv.Store(t)
	ctx := t.Context()
	env := testenv.Env(t)
	cfg := testenv.Config(t)
	srv := dnstest.Start(t)
	checker := dnscheck.New(srv.Addr)
	dc := store.DomainsConfig{TargetSuffix: "domains.survey.example"}

	from := fmt.Sprintf("domains-%d@example.com", rand.Int64())
	if err := localaws.EnsureMailIdentity(ctx, cfg, from); err != nil {
		t.Fatal(err)
	}
	client := sqs.NewFromConfig(cfg)
	url, _, err := webhook.EnsureQueue(ctx, client, fmt.Sprintf("domains-notice-%d", rand.Int64()), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	sender := &failingOnce{Sender: sending.New(cfg, sending.Config{MailFrom: from}), failed: true}
	n := &sweeper.Notifier{Store: st, Queue: webhook.Queue{Client: client, URL: url}, Sender: sender}

	owner, otherOwner := testenv.NewOwner(t, survey.PlanEnterprise, "f"), testenv.NewOwner(t, survey.PlanEnterprise, "f")
	a, other := owner.Account, otherOwner.Account
	folders := map[int64]int64{a.ID: owner.Folder, other.ID: otherOwner.Folder}
	hook := func(aid int64, events ...string) survey.Webhook {
		t.Helper()
		sv := testenv.NewSurvey(t, st, aid, folders[aid], "hooked")
		var w survey.Webhook
		_, err := st.ChangeWebhooks(ctx, aid, sv.ID, func(h []survey.Webhook) ([]survey.Webhook, error) {
			w = survey.Webhook{ID: rand.Int64N(1 << 40), SurveyID: sv.ID, URL: "https://example.com/hook", Events: events, Active: true, Created: time.Now()}
			return append(h, w), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	wants := hook(a.ID, survey.EventResponseSubmitted, survey.EventDomainSuspended)
	wantsToo := hook(a.ID, survey.EventDomainSuspended)
	responsesOnly := hook(a.ID, survey.EventResponseSubmitted)
	foreign := hook(other.ID, survey.EventDomainSuspended)

	name := fmt.Sprintf("notice-%d.acme.example", rand.Int64N(1e9))
	d, err := st.ClaimDomain(ctx, a.ID, name, dc)
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.ClaimForVerify(ctx, a.ID, d.ID, dc)
	if err != nil {
		t.Fatal(err)
	}
	srv.SetTXT("_survey-verification."+name, c.TXT)
	srv.SetCNAME(name, c.Target)
	if err := st.ActivateDomain(ctx, a.ID, c, time.Now()); err != nil {
		t.Fatal(err)
	}

	deliveries := func(w survey.Webhook) []survey.Delivery {
		t.Helper()
		got, _, err := st.Deliveries(ctx, w.ID, "", 30)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	emails := func() int {
		t.Helper()
		sent, _, err := moto.Sent(ctx, env["AWS_ENDPOINT_URL"])
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for _, e := range sent {
			if len(e.Destinations.To) == 1 && e.Destinations.To[0] == a.Email {
				k++
			}
		}
		return k
	}
	queued := func() int {
		t.Helper()
		k := 0
		for {
			out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, VisibilityTimeout: 300})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Messages) == 0 {
				return k
			}
			k += len(out.Messages)
		}
	}

	day0 := time.Now().Truncate(time.Second)
	steps := []struct {
		name       string
		change     func()
		at         time.Time
		failMail   bool
		suspended  int
		deliveries int // to each of the two webhooks that list the event
		queued     int
		emails     int
	}{
		{"records gone: suspended", func() { srv.Remove(name, dns.TypeCNAME) }, day0, false, 1, 1, 2, 1},
		{"the check retried", func() {}, day0.Add(time.Minute), false, 0, 1, 0, 1},
		{"restored", func() { srv.SetCNAME(name, c.Target) }, day0.Add(24 * time.Hour), false, 0, 1, 0, 1},
		{"suspended again, SES refusing", func() { srv.Remove(name, dns.TypeCNAME) }, day0.Add(48 * time.Hour), true, 1, 2, 2, 1},
		{"the next run sends the email", func() {}, day0.Add(72 * time.Hour), false, 0, 2, 2, 2},
		{"and then nothing more", func() {}, day0.Add(96 * time.Hour), false, 0, 2, 0, 2},
	}
	for _, step := range steps {
		step.change()
		sender.failed = !step.failMail
		got, err := sweeper.CheckDomains(ctx, st, checker, nil, step.at, n.Notify)
		if err != nil || got.Suspended != step.suspended {
			t.Fatalf("%s: %+v, %v; want %d suspended", step.name, got, err, step.suspended)
		}
		for _, w := range []survey.Webhook{wants, wantsToo} {
			dls := deliveries(w)
			if len(dls) != step.deliveries {
				t.Fatalf("%s: webhook %d has %d deliveries, want %d", step.name, w.ID, len(dls), step.deliveries)
			}
			for _, dl := range dls {
				var data map[string]any
				if dl.Event != survey.EventDomainSuspended || dl.Status != survey.DeliveryPending || json.Unmarshal(dl.Payload, &data) != nil ||
					data["domain"] != name || data["domain_id"] != float64(d.ID) || len(data) != 2 {
					t.Fatalf("%s: delivery %+v (payload %s)", step.name, dl, dl.Payload)
				}
			}
		}
		for _, w := range []survey.Webhook{responsesOnly, foreign} {
			if dls := deliveries(w); len(dls) != 0 {
				t.Fatalf("%s: webhook %v has deliveries %+v", step.name, w.Events, dls)
			}
		}
		if k := queued(); k != step.queued {
			t.Fatalf("%s: %d jobs queued, want %d", step.name, k, step.queued)
		}
		if k := emails(); k != step.emails {
			t.Fatalf("%s: %d emails to the owner, want %d", step.name, k, step.emails)
		}
	}
}
