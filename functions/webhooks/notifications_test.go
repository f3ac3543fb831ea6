package webhooks_test

import (
	"fmt"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

type notification = survey.NotificationView

// n8nBody is the body asedmammad/n8n-nodes-porsline's trigger posts to
// /api/surveys/{id}/webhooks/ when a workflow is activated (create) and
// deactivated (enabled false, endpoint empty), key for key
// (nodes/PorslineTrigger/PorslineTrigger.node.ts).
func n8nBody(sid int64, endpoint string, enabled bool) string {
	return fmt.Sprintf(`{"recipient_type": 5, "enabled": %t, "webhook_headers": {"Content-Type": "application/json"},
		"webhook_endpoint": %q, "webhook_method": "POST", "survey_id": "%d", "sending_method": 3}`, enabled, endpoint, sid)
}

// TestN8NBodyOnTheWebhooksRoute: the node's activation creates a webhook
// (its Content-Type header kept), activating again is the same webhook
// (200, not a second one), and its deactivation disables it.
func TestN8NBodyOnTheWebhooksRoute(t *testing.T) {
	f := newFixture(t, false)
	r := f.do(t, "POST", f.list(), n8nBody(f.sid, "https://hooks.example.com/webhook/abc/webhook", true))
	if r.code != 201 {
		t.Fatalf("activation = %d %s", r.code, r.body)
	}
	n := decode[notification](t, r)
	if n.RecipientType != 5 || n.SendingMethod != 3 || !n.Enabled || n.WebhookHeaders["Content-Type"] != "application/json" ||
		n.Secret == nil || !strings.HasPrefix(*n.Secret, "whsec_") || n.WebhookEndpoint != "https://hooks.example.com/webhook/abc/webhook" {
		t.Fatalf("created %s", r.body)
	}
	// Also a webhook in the native shape.
	if v := decode[view](t, f.do(t, "GET", f.detail(n.ID), "")); v.URL != n.WebhookEndpoint || v.Headers["Content-Type"] != "application/json" {
		t.Errorf("seen as a webhook: %+v", v)
	}
	other := decode[view](t, f.do(t, "POST", f.list(), `{"url": "https://other.example.com/"}`))

	r = f.do(t, "POST", f.list(), n8nBody(f.sid, "", false))
	if r.code != 200 || !strings.Contains(r.body, `"enabled":false`) || strings.Contains(r.body, `"enabled":true`) {
		t.Fatalf("deactivation = %d %s", r.code, r.body)
	}
	if v := decode[view](t, f.do(t, "GET", f.detail(n.ID), "")); v.Active {
		t.Errorf("after the deactivation: %+v", v)
	}
	if v := decode[view](t, f.do(t, "GET", f.detail(other.ID), "")); v.Active {
		t.Errorf("the survey's other webhook after the deactivation: %+v", v)
	}

	r = f.do(t, "POST", f.list(), n8nBody(f.sid, "https://hooks.example.com/webhook/abc/webhook", true))
	if again := decode[notification](t, r); r.code != 200 || again.ID != n.ID || !again.Enabled || again.Secret != nil {
		t.Fatalf("activation again = %d %s, want 200 with webhook %d enabled", r.code, r.body, n.ID)
	}
	if r := f.do(t, "GET", f.list(), ""); strings.Count(r.body, `"id":`) != 2 {
		t.Errorf("webhooks after two activations: %s", r.body)
	}
}

// TestEmailAndSMSNotifications: sending_method 1 and 2 keep their
// recipients (addresses lower-cased and de-duplicated, numbers in E.164),
// have no endpoint nor secret, show in the notifications shape only, and
// keep their method.
func TestEmailAndSMSNotifications(t *testing.T) {
	f := newFixture(t, false)
	nlist := fmt.Sprintf("/api/v2/surveys/%d/notifications/", f.sid)
	r := f.do(t, "POST", nlist, `{"recipient_type": 2, "sending_method": 1, "recipients": ["Owner@Example.com", "team@example.org", "owner@example.com"],
		"webhook_headers": {"Content-Type": "application/json"}, "webhook_method": "POST", "webhook_endpoint": "", "enabled": true}`)
	if r.code != 201 {
		t.Fatalf("email = %d %s", r.code, r.body)
	}
	email := decode[notification](t, r)
	if email.SendingMethod != 1 || email.RecipientType != 2 || fmt.Sprint(email.Recipients) != "[owner@example.com team@example.org]" ||
		email.Secret != nil || email.WebhookEndpoint != "" || len(email.WebhookHeaders) != 0 || !email.Enabled {
		t.Fatalf("email notification %s", r.body)
	}
	r = f.do(t, "POST", nlist, `{"sending_method": 2, "recipients": ["+989121234567", "00447911123456"]}`)
	sms := decode[notification](t, r)
	if r.code != 201 || sms.SendingMethod != 2 || sms.RecipientType != 1 || fmt.Sprint(sms.Recipients) != "[+989121234567 +447911123456]" {
		t.Fatalf("sms = %d %s", r.code, r.body)
	}
	hook := decode[view](t, f.do(t, "POST", f.list(), `{"url": "https://hooks.example.com/"}`))

	// The webhooks routes show webhooks only.
	if r := f.do(t, "GET", f.list(), ""); strings.Count(r.body, `"id":`) != 1 || !strings.Contains(r.body, fmt.Sprint(hook.ID)) {
		t.Errorf("webhooks list %s", r.body)
	}
	if r := f.do(t, "GET", f.detail(email.ID), ""); r.code != 404 {
		t.Errorf("an email notification as a webhook = %d %s", r.code, r.body)
	}
	if r := f.do(t, "PATCH", f.detail(email.ID), `{"active": false}`); r.code != 404 {
		t.Errorf("PATCH of an email notification as a webhook = %d %s", r.code, r.body)
	}
	if r := f.do(t, "GET", nlist, ""); strings.Count(r.body, `"id":`) != 3 {
		t.Errorf("notifications list %s", r.body)
	}
	// Its deliveries are listed as a webhook's.
	if r := f.do(t, "GET", fmt.Sprintf("/api/surveys/%d/webhooks/%d/deliveries/", f.sid, email.ID), ""); r.code != 200 {
		t.Errorf("deliveries of an email notification = %d %s", r.code, r.body)
	}

	ndetail := fmt.Sprintf("%s%d/", nlist, email.ID)
	r = f.do(t, "PATCH", ndetail, `{"recipients": ["new@example.com"], "recipient_type": 3, "enabled": false}`)
	if p := decode[notification](t, r); r.code != 200 || fmt.Sprint(p.Recipients) != "[new@example.com]" || p.RecipientType != 3 || p.Enabled || p.SendingMethod != 1 {
		t.Errorf("PATCH = %d %s", r.code, r.body)
	}
	for body, want := range map[string]string{
		`{"sending_method": 2}`:                              `{"sending_method": ["The sending method of a notification cannot be changed; create another."]}`,
		`{"recipients": ["+15551234567"]}`:                   `{"recipients": {"0": ["Enter a valid email address."]}}`,
		`{"webhook_endpoint": "https://hooks.example.com/"}`: `{"webhook_endpoint": ["Only webhook notifications (sending_method 3) have an endpoint."]}`,
	} {
		if r := f.do(t, "PATCH", ndetail, body); r.code != 400 || !jsonEq(r.body, want) {
			t.Errorf("PATCH %s = %d %s, want %s", body, r.code, r.body, want)
		}
	}
	if r := f.do(t, "PATCH", fmt.Sprintf("%s%d/", nlist, hook.ID), `{"sending_method": 1}`); r.code != 400 {
		t.Errorf("a webhook made an email = %d %s", r.code, r.body)
	}
	if r := f.do(t, "DELETE", ndetail, ""); r.code != 204 {
		t.Errorf("DELETE = %d %s", r.code, r.body)
	}
}

// TestNotificationRefusals: bad email and SMS notifications are 400s in
// DRF's shape, every field's problems at once.
func TestNotificationRefusals(t *testing.T) {
	f := newFixture(t, false)
	nlist := fmt.Sprintf("/api/v2/surveys/%d/notifications/", f.sid)
	eleven := `"a0@example.com"`
	for i := 1; i < 11; i++ {
		eleven += fmt.Sprintf(`, "a%d@example.com"`, i)
	}
	mobile := `["Enter a valid mobile number."]`
	for body, want := range map[string]string{
		`{"sending_method": 1}`:                                 `{"recipients": ["This field is required."]}`,
		`{"sending_method": 1, "recipients": []}`:               `{"recipients": ["This list may not be empty."]}`,
		`{"sending_method": 1, "recipients": "a@example.com"}`:  `{"recipients": ["Expected a list of items but got type \"str\"."]}`,
		`{"sending_method": 1, "recipients": null}`:             `{"recipients": ["This field may not be null."]}`,
		`{"sending_method": 1, "recipients": [` + eleven + `]}`: `{"recipients": ["Ensure this field has no more than 10 elements."]}`,
		`{"sending_method": 1, "recipients": ["a@b", "Name <a@example.com>", 5, "ok@example.com"]}`: `{"recipients": ` +
			`{"0": ["Enter a valid email address."], "1": ["Enter a valid email address."], "2": ["Not a valid string."]}}`,
		`{"sending_method": 2, "recipients": ["09121234567", "+0123456789", "+1234", "+98 912 123 4567"]}`: `{"recipients": ` +
			`{"0": ` + mobile + `, "1": ` + mobile + `, "2": ` + mobile + `, "3": ` + mobile + `}}`,
		// Premium-rate, satellite, unassigned, toll-free and fixed numbers
		// (issue 38; contract section 18 as amended): SMS to mobiles only.
		`{"sending_method": 2, "recipients": ["+8821234567890", "+881612345678", "+979123456789", "+19005550123", "+449091234567", "+80012345678", ` +
			`"+442079460123"]}`: `{"recipients": {"0": ` + mobile + `, "1": ` + mobile + `, "2": ` + mobile + `, "3": ` + mobile +
			`, "4": ` + mobile + `, "5": ` + mobile + `, "6": ` + mobile + `}}`,
		// Section 3 as amended: a NUL in a string field, a recipient too.
		`{"sending_method": 1, "recipients": ["a\u0000@example.com"]}`:               `{"recipients": {"0": ["Null characters are not allowed."]}}`,
		`{"sending_method": 2, "recipients": ["+1202\u00005550173"]}`:                `{"recipients": {"0": ["Null characters are not allowed."]}}`,
		`{"sending_method": 2, "recipient_type": 5, "recipients": ["+12025550173"]}`: `{"recipient_type": ["\"5\" is not a valid choice."]}`,
		`{"sending_method": 1, "recipients": ["a@example.com"], "webhook_endpoint": "https://hooks.example.com/"}`: `{"webhook_endpoint": ` +
			`["Only webhook notifications (sending_method 3) have an endpoint."]}`,
		`{"sending_method": 4, "recipients": ["a@example.com"]}`: `{"sending_method": ["\"4\" is not a valid choice."]}`,
		`{"sending_method": 3, "webhook_endpoint": "https://hooks.example.com/", "recipients": ["a@example.com"]}`: `{"recipients": ` +
			`["Only email and SMS notifications (sending_method 1 or 2) have recipients."]}`,
		`{"webhook_endpoint": "https://hooks.example.com/", "webhook_headers": {"webhook-id": "x"}}`: `{"webhook_headers": {"webhook-id": ["This header is set by the delivery itself."]}}`,
	} {
		if r := f.do(t, "POST", nlist, body); r.code != 400 || !jsonEq(r.body, want) {
			t.Errorf("POST %s = %d %s, want %s", body, r.code, r.body, want)
		}
	}
	// Content-Type is the webhook's to choose.
	if r := f.do(t, "POST", nlist, `{"webhook_endpoint": "https://hooks.example.com/", "webhook_headers": {"Content-Type": "application/vnd.n8n+json"}}`); r.code != 201 {
		t.Errorf("a Content-Type header = %d %s", r.code, r.body)
	}
}
