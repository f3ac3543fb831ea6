package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/deliver"
	"surveyservice/internal/localaws"
	"surveyservice/internal/moto"
	"surveyservice/internal/outbox"
	"surveyservice/internal/testenv"
	"surveyservice/shared/sending"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

// sendingOptions are hookOptions whose deliveries send email and SMS
// through moto's SES and SNS (from a verified identity of the test's),
// each message also kept in the returned outbox.
func sendingOptions(t *testing.T, limits sending.Limits) (hookOptions, *outbox.Outbox, string) {
	t.Helper()
	cfg := testenv.Config(t)
	from := fmt.Sprintf("notify-%d@example.com", time.Now().UnixNano())
	if err := localaws.EnsureMailIdentity(context.Background(), cfg, from); err != nil {
		t.Fatal(err)
	}
	box := outbox.New(nil)
	o := hookOptions{guard: webhook.Guard{AllowLoopback: true}, delays: []time.Duration{time.Second, time.Second},
		sender: box.Wrap(sending.New(cfg, sending.Config{MailFrom: from, SenderID: "Survey"})), limits: limits, baseURL: "https://api.example.com"}
	return o, box, from
}

// sentTo is what the outbox holds for one recipient.
func sentTo(box *outbox.Outbox, to string) []outbox.Entry {
	var out []outbox.Entry
	for _, e := range box.Messages() {
		if e.To == to {
			out = append(out, e)
		}
	}
	return out
}

// TestNotificationsSendEmailAndSMS: a new response is told to an email
// notification's people through SES and to an SMS notification's through
// SNS (moto holds both), in the survey's language, naming it and linking
// to the response; a webhook with a Content-Type of its own gets it, the
// signature unchanged; every delivery is logged as succeeded.
func TestNotificationsSendEmailAndSMS(t *testing.T) {
	o, box, from := sendingOptions(t, sending.DefaultLimits)
	e := newHookEnv(t, o)
	nlist := fmt.Sprintf("/api/v2/surveys/%d/notifications/", e.sid)
	stamp := time.Now().UnixNano()
	owner, team := fmt.Sprintf("owner-%d@example.com", stamp), fmt.Sprintf("team-%d@example.org", stamp)
	phone := fmt.Sprintf("+1202555%04d", stamp%10_000) // a mobile number (SMS goes to mobiles only)
	emailID, _ := e.createHook(t, nlist, fmt.Sprintf(`{"recipient_type": 1, "sending_method": 1, "recipients": [%q, %q], "enabled": true}`, owner, team))
	smsID, _ := e.createHook(t, nlist, fmt.Sprintf(`{"recipient_type": 1, "sending_method": 2, "recipients": ["00%s"]}`, phone[1:]))
	rc := newReceiver(t, nil)
	hookID, secret := e.createHook(t, nlist, `{"webhook_endpoint": "`+rc.srv.URL+`/n8n", "webhook_headers": {"Content-Type": "application/vnd.n8n+json"}}`)

	r := e.respond(t, 1)[0]
	waitFor(t, settle, "the three messages and the webhook", func() bool {
		return len(sentTo(box, owner)) == 1 && len(sentTo(box, team)) == 1 && len(sentTo(box, phone)) == 1 && len(rc.snapshot()) == 1
	})
	link := fmt.Sprintf("https://api.example.com/api/surveys/%d/responses/%d/", e.sid, r.ID)
	mail := sentTo(box, owner)[0]
	if mail.Channel != "email" || mail.Subject != "New response to “Hooked”" || !strings.Contains(mail.Body, "“Hooked”") || !strings.Contains(mail.Body, link) {
		t.Errorf("the email %+v", mail)
	}
	if sms := sentTo(box, phone)[0]; sms.Channel != "sms" || sms.Subject != "" || !strings.Contains(sms.Body, link) || !strings.Contains(sms.Body, "Hooked") {
		t.Errorf("the SMS %+v", sms)
	}
	emails, texts, err := moto.Sent(context.Background(), testenv.Env(t)["AWS_ENDPOINT_URL"])
	if err != nil {
		t.Fatal(err)
	}
	inMoto := 0
	for _, m := range emails {
		if m.Source == from && m.Body == mail.Body && (m.Destinations.To[0] == owner || m.Destinations.To[0] == team) {
			inMoto++
		}
	}
	for _, m := range texts {
		if m.PhoneNumber == phone && strings.Contains(m.Message, link) {
			inMoto++
		}
	}
	if inMoto != 3 {
		t.Errorf("moto holds %d of the 3 messages", inMoto)
	}
	got := rc.snapshot()[0]
	if ct := got.header.Get("Content-Type"); ct != "application/vnd.n8n+json" {
		t.Errorf("the webhook's Content-Type %q", ct)
	}
	if err := webhook.Verify(secret, got.header, got.body, time.Now()); err != nil {
		t.Errorf("the delivery with its own Content-Type does not verify: %v", err)
	}
	// The n8n trigger node keeps the body only when form_response,
	// form_response.definition and form_response.answers are all defined
	// (PorslineTrigger.node.ts:186-197); it hands the workflow the body.
	var n8n struct {
		FormResponse *struct {
			FormID     string          `json:"form_id"`
			Definition *map[string]any `json:"definition"`
			Answers    *[]struct {
				Field struct {
					ID string `json:"id"`
				} `json:"field"`
				Value json.RawMessage `json:"value"`
			} `json:"answers"`
		} `json:"form_response"`
	}
	if err := json.Unmarshal(got.body, &n8n); err != nil || n8n.FormResponse == nil || n8n.FormResponse.Definition == nil || n8n.FormResponse.Answers == nil {
		t.Errorf("the n8n trigger node drops this body (%v): %s", err, got.body)
	} else if as := *n8n.FormResponse.Answers; n8n.FormResponse.FormID != fmt.Sprint(e.sid) || len(as) != 1 || as[0].Field.ID != "1" || string(as[0].Value) != `"Yes"` {
		t.Errorf("form_response %s", got.body)
	}
	for _, wid := range []int64{emailID, smsID, hookID} {
		waitFor(t, settle, "the log shows the success", func() bool {
			ds := e.deliveries(t, wid)
			return len(ds) == 1 && ds[0].Status == survey.DeliverySucceeded
		})
		if d := e.deliveries(t, wid)[0]; d.Attempts != 1 || d.ResponseID == nil || *d.ResponseID != r.ID || d.LastError != nil {
			t.Errorf("notification %d's delivery %+v", wid, d)
		}
	}
}

// TestNotificationBudgetDropsTheExcess: past the survey's budget (2 an
// hour here; 1,000 by default) a response's notification is not sent: it
// is counted, dropped, and its delivery failed with the reason, so that a
// viral survey cannot run up a bill. The message is in the survey's
// language (fa here).
func TestNotificationBudgetDropsTheExcess(t *testing.T) {
	limits, err := sending.ParseLimits("survey=2/h,account=100/d")
	if err != nil {
		t.Fatal(err)
	}
	o, box, _ := sendingOptions(t, limits)
	e := newHookEnv(t, o)
	sv, err := e.st.CreateSurvey(context.Background(), survey.Survey{AccountID: e.aid, FolderID: e.fid, Name: "نظرسنجی", Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	e.sid = sv.ID
	to := fmt.Sprintf("+1202555%04d", time.Now().UnixNano()%10_000)
	wid, _ := e.createHook(t, fmt.Sprintf("/api/v2/surveys/%d/notifications/", e.sid), fmt.Sprintf(`{"sending_method": 2, "recipients": [%q]}`, to))
	e.respond(t, 5)
	var ds []survey.DeliveryView
	waitFor(t, settle, "five settled deliveries", func() bool {
		ds = e.deliveries(t, wid)
		settled := 0
		for _, d := range ds {
			if d.Status != survey.DeliveryPending {
				settled++
			}
		}
		return settled == 5
	})
	var succeeded, dropped int
	for _, d := range ds {
		switch {
		case d.Status == survey.DeliverySucceeded:
			succeeded++
		case d.LastError != nil && strings.HasPrefix(*d.LastError, "Dropped: the notifications' sending budget is spent (2/h a survey, 100/d an account)"):
			dropped++
		default:
			b, _ := json.Marshal(d)
			t.Errorf("a delivery %s", b)
		}
	}
	if sent := sentTo(box, to); succeeded != 2 || dropped != 3 || len(sent) != 2 {
		t.Fatalf("%d sent, %d dropped, %d in the outbox; want 2, 3 and 2", succeeded, dropped, len(sent))
	}
	if body := sentTo(box, to)[0].Body; !strings.Contains(body, "«نظرسنجی»") || !strings.Contains(body, "پاسخ جدیدی") {
		t.Errorf("the message is not in Persian: %q", body)
	}
}

// TestNotificationSendFailureIsRetried: a send SES refuses (here: from an
// identity it has not verified) gives its budgets back and fails the
// attempt, which is tried again on the schedule; after the schedule the
// delivery is failed, and the budgets hold nothing.
func TestNotificationSendFailureIsRetried(t *testing.T) {
	o, box, _ := sendingOptions(t, sending.DefaultLimits)
	o.sender = box.Wrap(sending.New(testenv.Config(t), sending.Config{MailFrom: fmt.Sprintf("unverified-%d@example.net", time.Now().UnixNano())}))
	e := newHookEnv(t, o)
	to := fmt.Sprintf("nobody-%d@example.com", time.Now().UnixNano())
	wid, _ := e.createHook(t, fmt.Sprintf("/api/v2/surveys/%d/notifications/", e.sid), fmt.Sprintf(`{"sending_method": 1, "recipients": [%q]}`, to))
	e.respond(t, 1)
	var d survey.DeliveryView
	waitFor(t, settle, "the delivery failed after its schedule", func() bool {
		ds := e.deliveries(t, wid)
		if len(ds) == 1 {
			d = ds[0]
		}
		return len(ds) == 1 && ds[0].Status == survey.DeliveryFailed
	})
	if d.Attempts != 3 || d.LastError == nil || *d.LastError != "The message could not be sent (sent to 0 of 1)." || len(sentTo(box, to)) != 0 {
		b, _ := json.Marshal(d)
		t.Errorf("the delivery %s; %d in the outbox", b, len(sentTo(box, to)))
	}
	b := sending.NewBudgets(e.st, nil)
	for _, bu := range []sending.Budget{sending.DefaultLimits.SurveyBudget(deliver.NotifyPurpose, e.sid), sending.DefaultLimits.AccountBudget(deliver.NotifyPurpose, e.aid)} {
		if used, err := b.Used(context.Background(), bu); err != nil || used != 0 {
			t.Errorf("budget %s holds %d (%v), want 0: a failed send spends nothing", bu.Scope, used, err)
		}
	}
}
