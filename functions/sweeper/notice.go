package sweeper

import (
	"github.com/aws/aws-sdk-go-v2/aws"

	"context"
	"errors"
	"log/slog"
	"time"

	"surveyservice/shared/sending"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

// NoticeStore is what the notice of a suspended domain reads and writes;
// *store.Store implements it.
type NoticeStore interface {
	AccountWebhooks(ctx context.Context, aid int64, event string) ([]survey.Webhook, error)
	CreateDelivery(ctx context.Context, d survey.Delivery, due time.Time) (bool, survey.Delivery, error)
	Account(ctx context.Context, id int64) (survey.Account, error)
	TakeDomainMail(ctx context.Context, o store.DomainOwner) (bool, error)
	ReturnDomainMail(ctx context.Context, o store.DomainOwner) error
}

var _ NoticeStore = (*store.Store)(nil)

// Queue takes delivery jobs; webhook.Queue implements it.
type Queue interface {
	Send(ctx context.Context, jobs []webhook.Job, delay time.Duration) error
}

// Notifier tells an account that one of its domains is suspended
// (contract section 23): a domain.suspended delivery to every webhook of
// the account's surveys that lists the event, through the webhooks'
// delivery path (a delivery item, then a job on the delivery queue: the
// deliver function signs, sends, retries and keeps the breaker), and an
// email to the owner through SES (shared/sending).
type Notifier struct {
	Store  NoticeStore
	Queue  Queue
	Sender sending.Sender
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Notify tells the owner of o's pending notice (o.Notice, the suspension's
// time). Every step may run again: a delivery is named by its webhook, the
// suspension's time and the domain, so a second run finds it made
// (CreateDelivery) and queues it again only if it was never tried; the
// email is claimed on the domain's item before it is sent (given back when
// SES refuses it), so it goes once. An error leaves the notice pending:
// the next check tells again what is missing.
func (n *Notifier) Notify(ctx context.Context, o store.DomainOwner) error {
	now := time.Now
	if n.Now != nil {
		now = n.Now
	}
	at := time.UnixMicro(o.Notice)
	hooks, err := n.Store.AccountWebhooks(ctx, o.AccountID, survey.EventDomainSuspended)
	if err != nil {
		return err
	}
	payload := survey.DomainSuspendedData(o.DomainID, o.Domain)
	var jobs []webhook.Job
	due := now().Add(webhook.RequeueAfter) // the retrier's, should the job be lost
	for _, wh := range hooks {
		if wh.Sends() {
			continue // an email or SMS notification tells of responses; the owner's email is below
		}
		dl := survey.Delivery{WebhookID: wh.ID, SurveyID: wh.SurveyID, ResponseID: o.DomainID, Event: survey.EventDomainSuspended,
			Created: at, Status: survey.DeliveryPending, Payload: payload}
		created, current, err := n.Store.CreateDelivery(ctx, dl, due)
		if err != nil {
			return err
		}
		if created || current.Status == survey.DeliveryPending && current.Step() == 0 {
			jobs = append(jobs, webhook.Job{SurveyID: dl.SurveyID, WebhookID: dl.WebhookID, ResponseID: dl.ResponseID, Delivery: dl.ID()})
		}
	}
	if len(jobs) > 0 && n.Queue != nil {
		if err := n.Queue.Send(ctx, jobs, 0); err != nil {
			// The deliveries are in the due index: the retrier queues
			// them within a minute.
			slog.ErrorContext(ctx, "domain notice: queue deliveries", "domain", o.Domain, "error", err.Error())
		}
	}
	if n.Sender == nil {
		return nil
	}
	acc, err := n.Store.Account(ctx, o.AccountID)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return nil // no owner to write to
	}
	if err != nil {
		return err
	}
	mine, err := n.Store.TakeDomainMail(ctx, o)
	if err != nil || !mine {
		return err
	}
	subject, body := survey.DomainSuspendedText(o.Domain, o.Target)
	if err := n.Sender.Send(ctx, sending.Message{Channel: sending.ChannelEmail, To: acc.Email, Subject: subject, Body: body}); err != nil {
		return errors.Join(err, n.Store.ReturnDomainMail(context.WithoutCancel(ctx), o))
	}
	return nil
}

// NotifierFromEnv is the Notifier of a deployment: deliveries queued on
// WEBHOOK_QUEUE_URL, the owner's email sent through SES from MAIL_FROM
// (required: a check that could not tell would keep its notices pending).
func NotifierFromEnv(cfg aws.Config, st NoticeStore, getenv func(string) string) (*Notifier, error) {
	sender, err := sending.FromEnv(cfg, getenv)
	if err != nil {
		return nil, err
	}
	n := &Notifier{Store: st, Sender: sender}
	if webhook.QueueURLFrom(getenv) != "" {
		n.Queue = webhook.QueueFromEnv(cfg, getenv)
	}
	return n, nil
}
