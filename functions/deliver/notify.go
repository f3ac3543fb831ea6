package deliver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"surveyservice/shared/sending"
	"surveyservice/shared/survey"
)

// NotifyPurpose names the budgets of notifications: their own counters,
// apart from the sign-in codes' (contract section 18's figures, per survey
// and per account).
const NotifyPurpose = "notify"

// Words of an email or SMS notification's log.
const (
	msgNotConfigured = "Not sent: email and SMS are not configured."
	msgSurveyGone    = "The survey no longer exists."
)

// notify sends an email or SMS notification of a new response to each of
// the notification's recipients, each message spent from the survey's and
// the account's notification budgets (shared/sending), on the attempt's
// claim. A send that fails is the attempt's failure, tried again on the
// webhooks' schedule (a retry sends to every recipient again: at least
// once). A budget that is spent drops the delivery for good: it is counted
// (the budget's refusal is one conditional write) and failed with the
// reason, so a viral survey costs at most its budget in messages, and the
// owner sees what was dropped in the deliveries.
func (d *Deliverer) notify(ctx context.Context, a claim, wh survey.Webhook, r survey.Response) outcome {
	if d.Sender == nil || d.Budgets == nil {
		return d.fail(ctx, a, msgNotConfigured)
	}
	sv, err := d.Store.NoticeSurvey(ctx, wh.SurveyID)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return d.fail(ctx, a, msgSurveyGone)
	}
	if err != nil {
		slog.ErrorContext(ctx, "deliver: read the notified survey", "survey_id", wh.SurveyID, "error", err.Error())
		if err := d.Store.ReleaseClaim(ctx, a.dl, a.token); err != nil {
			slog.ErrorContext(ctx, "deliver: release a claim", "error", err.Error())
		}
		return retry
	}
	channel := sending.ChannelEmail
	if wh.SendingMethod() == survey.SendingSMS {
		channel = sending.ChannelSMS
	}
	link := fmt.Sprintf("%s/api/surveys/%d/responses/%d/", d.BaseURL, sv.ID, r.ID)
	subject, body := survey.NotificationText(sv.Language, sv.Name, link, channel == sending.ChannelSMS)
	limits := d.Limits
	if limits == (sending.Limits{}) {
		limits = sending.DefaultLimits
	}
	budgets := []sending.Budget{limits.SurveyBudget(NotifyPurpose, sv.ID), limits.AccountBudget(NotifyPurpose, sv.AccountID)}
	sent := 0
	for _, to := range wh.Recipients {
		err := sending.Send(ctx, d.Sender, d.Budgets, sending.Message{Channel: channel, To: to, Subject: subject, Body: body}, budgets...)
		switch {
		case err == nil:
			sent++
			continue
		case sending.IsThrottled(err):
			slog.WarnContext(ctx, "deliver: notification dropped: its budget is spent", "webhook_id", wh.ID, "survey_id", sv.ID, "sent", sent)
			a.dl.Attempts++
			a.dl.LastAttempt = a.now
			return d.fail(ctx, a, fmt.Sprintf("Dropped: the notifications' sending budget is spent (%s a survey, %s an account); sent to %d of %d.",
				limits.Survey, limits.Account, sent, len(wh.Recipients)))
		case ctx.Err() != nil:
			return retry // killed mid-way: the claim lapses and the message comes back
		}
		if !errors.Is(err, sending.ErrNotSent) {
			slog.ErrorContext(ctx, "deliver: spend a notification's budget", "webhook_id", wh.ID, "error", err.Error())
		} else {
			slog.ErrorContext(ctx, "deliver: send a notification", "webhook_id", wh.ID, "channel", channel, "error", err.Error())
		}
		return d.failed(ctx, a, 0, fmt.Sprintf("The message could not be sent (sent to %d of %d).", sent, len(wh.Recipients)))
	}
	a.dl.Attempts++
	a.dl.LastAttempt, a.dl.LastStatusCode, a.dl.LastError = a.now, 0, ""
	a.dl.Status, a.dl.NextAttempt = survey.DeliverySucceeded, time.Time{}
	return d.record(ctx, a, time.Time{}, "a notification")
}
