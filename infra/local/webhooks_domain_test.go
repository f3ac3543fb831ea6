package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/miekg/dns"

	"surveyservice/functions/sweeper"
	"surveyservice/internal/dnstest"
	"surveyservice/shared/dnscheck"
	"surveyservice/shared/store"
	"surveyservice/shared/webhook"
)

// TestWebhookDomainSuspended: a webhook made through the API with
// `"events": ["domain.suspended"]` is sent, by the deliver function on
// make run's queue, the contract's body `{"type": "domain.suspended",
// "timestamp", "data": {"domain_id", "domain"}}`, signed with its secret,
// once, when the daily check suspends one of the account's domains
// (contract section 23); a webhook of the default events is sent nothing;
// the check run again sends nothing more.
func TestWebhookDomainSuspended(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t, hookOptions{guard: webhook.Guard{AllowLoopback: true}})
	ctx := context.Background()
	rc, other := newReceiver(t, nil), newReceiver(t, nil)
	wid, secret := e.createHook(t, fmt.Sprintf("/api/surveys/%d/webhooks/", e.sid), `{"url": "`+rc.srv.URL+`/in", "events": ["domain.suspended"]}`)
	e.createHook(t, fmt.Sprintf("/api/surveys/%d/webhooks/", e.newSurvey(t, "other")), `{"url": "`+other.srv.URL+`/in"}`)

	srv := dnstest.Start(t)
	dc := store.DomainsConfig{TargetSuffix: "domains.survey.example"}
	name := fmt.Sprintf("hooked-%d.acme.example", rand.Int64N(1e9))
	d, err := e.st.ClaimDomain(ctx, e.aid, name, dc)
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.st.ClaimForVerify(ctx, e.aid, d.ID, dc)
	if err != nil {
		t.Fatal(err)
	}
	srv.SetTXT("_survey-verification."+name, c.TXT)
	if err := e.st.ActivateDomain(ctx, e.aid, c, time.Now()); err != nil {
		t.Fatal(err)
	}
	n := &sweeper.Notifier{Store: e.st, Queue: e.hooks.queue}
	check := func(want int) {
		t.Helper()
		res, err := sweeper.CheckDomains(ctx, e.st, dnscheck.New(srv.Addr), nil, time.Now(), n.Notify)
		if err != nil || res.Suspended != want {
			t.Fatalf("check: %+v, %v; want %d suspended", res, err, want)
		}
	}
	srv.Remove(name, dns.TypeCNAME) // never published: the check suspends it
	check(1)
	waitFor(t, settle, "the domain.suspended delivery", func() bool { return len(rc.snapshot()) >= 1 })
	check(0)
	waitFor(t, settle, "the queues idle", func() bool { return e.lanesIdle(t) })
	got := rc.snapshot()
	if len(got) != 1 || len(other.snapshot()) != 0 {
		t.Fatalf("%d deliveries to the domain.suspended webhook, %d to the other; want 1 and 0", len(got), len(other.snapshot()))
	}
	if err := webhook.Verify(secret, got[0].header, got[0].body, time.Now()); err != nil {
		t.Errorf("signature: %v", err)
	}
	var ev struct {
		Type      string
		Timestamp string
		Data      map[string]any
	}
	if err := json.Unmarshal(got[0].body, &ev); err != nil || ev.Type != "domain.suspended" || ev.Timestamp == "" ||
		ev.Data["domain"] != name || ev.Data["domain_id"] != float64(d.ID) || len(ev.Data) != 2 {
		t.Errorf("body %s (%v)", got[0].body, err)
	}
	if dls := e.deliveries(t, wid); len(dls) != 1 || dls[0].Event != "domain.suspended" || dls[0].Status != "succeeded" {
		t.Errorf("deliveries log %+v, want one succeeded domain.suspended", dls)
	}
}
