package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

const deliverySKPrefix = "DELIVERY#"

// DeliveriesPK is the partition of a webhook's deliveries.
func DeliveriesPK(wid int64) string { return "DELIVERIES#" + pad(wid) }

// DeliverySK is a delivery's key: its event's time and response.
func DeliverySK(created time.Time, rid int64) string {
	return deliverySKPrefix + pad(created.UnixMicro()) + "#" + pad(rid)
}

type deliveryItem struct {
	PK             string `dynamo:"PK"`
	SK             string `dynamo:"SK"`
	WebhookID      int64  `dynamo:"webhook_id"`
	SurveyID       int64  `dynamo:"survey_id"`
	ResponseID     int64  `dynamo:"response_id"`
	Event          string `dynamo:"event"`
	Created        string `dynamo:"created_at"`
	Status         string `dynamo:"status"`
	Attempts       int    `dynamo:"attempts"`
	Held           int    `dynamo:"held,omitempty"`
	LastStatusCode int    `dynamo:"last_status_code,omitempty"`
	LastAttempt    string `dynamo:"last_attempt_at,omitempty"`
	NextAttempt    string `dynamo:"next_attempt_at,omitempty"`
	LastError      string `dynamo:"last_error,omitempty"`
	ExpiresAt      int64  `dynamo:"expires_at"`
	// Payload is a response.partial delivery's partial (JSON).
	Payload string `dynamo:"payload,omitempty"`
	// The due index (GSI2, while pending) and the claim of an attempt
	// under way: see deliveries_due.go.
	DuePK      string `dynamo:"GSI2PK,omitempty"`
	DueSK      string `dynamo:"GSI2SK,omitempty"`
	Claim      string `dynamo:"claim,omitempty"`
	ClaimUntil int64  `dynamo:"claim_until,omitempty"`
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(survey.TimestampLayout)
}

func unstamp(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(survey.TimestampLayout, s)
}

// newDeliveryItem is the item of d; due, when set, puts it in the due
// index.
func newDeliveryItem(d survey.Delivery, due time.Time) deliveryItem {
	it := deliveryItem{
		PK: DeliveriesPK(d.WebhookID), SK: DeliverySK(d.Created, d.ResponseID),
		WebhookID: d.WebhookID, SurveyID: d.SurveyID, ResponseID: d.ResponseID, Event: d.Event,
		Created: stamp(d.Created), Status: string(d.Status), Attempts: d.Attempts, Held: d.Held, LastStatusCode: d.LastStatusCode,
		LastAttempt: stamp(d.LastAttempt), NextAttempt: stamp(d.NextAttempt), LastError: d.LastError,
		ExpiresAt: d.Created.Add(survey.DeliveryRetention).Unix(), Payload: string(d.Payload),
	}
	if !due.IsZero() {
		it.DuePK, it.DueSK = DueKey(dueShard(d.WebhookID, d.ResponseID)), DueSK(due, d.WebhookID, it.SK)
	}
	return it
}

func (it deliveryItem) delivery() (survey.Delivery, error) {
	d := survey.Delivery{WebhookID: it.WebhookID, SurveyID: it.SurveyID, ResponseID: it.ResponseID, Event: it.Event,
		Status: survey.DeliveryStatus(it.Status), Attempts: it.Attempts, Held: it.Held, LastStatusCode: it.LastStatusCode, LastError: it.LastError}
	if it.Payload != "" {
		d.Payload = json.RawMessage(it.Payload)
	}
	var err error
	if d.Created, err = unstamp(it.Created); err == nil {
		if d.LastAttempt, err = unstamp(it.LastAttempt); err == nil {
			d.NextAttempt, err = unstamp(it.NextAttempt)
		}
	}
	if err != nil {
		return survey.Delivery{}, fmt.Errorf("store: delivery %s %s: %w", it.PK, it.SK, err)
	}
	return d, nil
}

// CreateDelivery records a new delivery unless its event already made one:
// then created is false and current is the one recorded. A pending
// delivery is put in the due index at due (the retrier queues it then,
// should its job be lost). One conditional PutItem, which answers the
// existing item when its condition fails.
//
// A delivery's key is made from the event alone, so a record seen twice
// makes one delivery: docs/webhooks.md#deliveries-in-the-table.
func (s *Store) CreateDelivery(ctx context.Context, d survey.Delivery, due time.Time) (created bool, current survey.Delivery, err error) {
	var it deliveryItem
	if d.Status != survey.DeliveryPending {
		due = time.Time{}
	}
	wrote, err := s.table.Put(newDeliveryItem(d, due)).If("attribute_not_exists(PK)").CurrentValue(ctx, &it)
	if err != nil {
		return false, survey.Delivery{}, s.fail("create delivery", err)
	}
	if wrote {
		return true, d, nil
	}
	current, err = it.delivery()
	return false, current, err
}

// Delivery reads one delivery of a webhook by its id; ENOTFOUND when there
// is none (or it is past the retention).
func (s *Store) Delivery(ctx context.Context, wid int64, id string) (survey.Delivery, error) {
	created, rid, ok := survey.ParseDeliveryID(id)
	if !ok || s.Now().Sub(created) > survey.DeliveryRetention {
		return survey.Delivery{}, survey.ErrNotFound
	}
	var it deliveryItem
	err := s.table.Get(AttrPK, DeliveriesPK(wid)).Range(AttrSK, dynamo.Equal, DeliverySK(created, rid)).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return survey.Delivery{}, survey.ErrNotFound
	}
	if err != nil {
		return survey.Delivery{}, s.fail("get delivery", err)
	}
	return it.delivery()
}

// Deliveries reads a page of a webhook's deliveries of the retention
// period, newest first: at most limit of them, older than the delivery id
// before when it is set. more tells whether older ones follow. One Query
// (of limit+1 items, the last only to know whether there are more).
func (s *Store) Deliveries(ctx context.Context, wid int64, before string, limit int) (page []survey.Delivery, more bool, err error) {
	lo := DeliverySK(s.Now().Add(-survey.DeliveryRetention), 0)
	hi := deliverySKPrefix + "~"
	if before != "" {
		created, rid, ok := survey.ParseDeliveryID(before)
		if !ok {
			return nil, false, survey.FieldError("cursor", "Invalid cursor.")
		}
		// The key just below before's: BETWEEN is inclusive.
		hi = strings.TrimSuffix(DeliverySK(created, rid), pad(rid)) + pad(rid-1) + "~"
	}
	var items []deliveryItem
	err = s.table.Get(AttrPK, DeliveriesPK(wid)).Range(AttrSK, dynamo.Between, lo, hi).
		Order(dynamo.Descending).SearchLimit(limit+1).RequestLimit(1).Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, false, s.fail("list deliveries", err)
	}
	if len(items) > limit {
		items, more = items[:limit], true
	}
	page = make([]survey.Delivery, len(items))
	for i, it := range items {
		if page[i], err = it.delivery(); err != nil {
			return nil, false, err
		}
	}
	return page, more, nil
}

// DeliveryKey names what one attempt reads: the delivery, its webhook (in
// its survey's webhooks item) and its response.
type DeliveryKey struct {
	SurveyID, WebhookID, ResponseID int64
	Created                         time.Time
}

// DeliveryInputs is what a batch of attempts read.
type DeliveryInputs struct {
	Webhooks   map[int64][]survey.Webhook // by survey id
	Responses  map[int64]survey.Response  // by response id
	Deliveries map[string]survey.Delivery // by webhook id and delivery id, see InputKey
	Breakers   map[int64]survey.Breaker   // by webhook id (absent: closed, no failures)
}

// InputKey is a delivery's key in DeliveryInputs.Deliveries.
func InputKey(wid int64, deliveryID string) string { return fmt.Sprint(wid) + "/" + deliveryID }

// ReadDeliveryInputs reads, for a batch of attempts, every delivery, the
// webhooks of their surveys and their responses, in one strongly
// consistent BatchGetItem (keys de-duplicated; a batch of ten attempts is
// at most 40 keys), with the breakers of their webhooks. What is missing is absent from the maps.
func (s *Store) ReadDeliveryInputs(ctx context.Context, keys []DeliveryKey) (DeliveryInputs, error) {
	in := DeliveryInputs{Webhooks: map[int64][]survey.Webhook{}, Responses: map[int64]survey.Response{}, Deliveries: map[string]survey.Delivery{}, Breakers: map[int64]survey.Breaker{}}
	seen := map[[2]string]bool{}
	var ks []dynamo.Keyed
	add := func(pk, sk string) {
		if k := [2]string{pk, sk}; !seen[k] {
			seen[k] = true
			ks = append(ks, dynamo.Keys{pk, sk})
		}
	}
	for _, k := range keys {
		add(DeliveriesPK(k.WebhookID), DeliverySK(k.Created, k.ResponseID))
		add(HooksPK(k.SurveyID), webhooksSK)
		add(HooksPK(k.SurveyID), breakersSK)
		add(ResponsesShardPK(k.SurveyID, ResponseShard(k.ResponseID)), ResponseSK(k.ResponseID))
	}
	if len(ks) == 0 {
		return in, nil
	}
	var items []dynamo.Item
	err := s.table.Batch(AttrPK, AttrSK).Get(ks...).Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return in, s.fail("read delivery inputs", err)
	}
	for _, item := range items {
		sk := skOf(item)
		switch {
		case sk == webhooksSK:
			hooks, _, err := decodeWebhooks(item)
			if err != nil {
				return in, err
			}
			if len(hooks) > 0 {
				in.Webhooks[hooks[0].SurveyID] = hooks
			}
		case sk == breakersSK:
			for wid, b := range decodeBreakers(item) {
				in.Breakers[wid] = b
			}
		case strings.HasPrefix(sk, responseSKPrefix):
			r, err := decodeResponse(item)
			if err != nil {
				return in, err
			}
			in.Responses[r.ID] = r
		case strings.HasPrefix(sk, deliverySKPrefix):
			var it deliveryItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return in, fmt.Errorf("store: decode delivery: %w", err)
			}
			d, err := it.delivery()
			if err != nil {
				return in, err
			}
			in.Deliveries[InputKey(d.WebhookID, d.ID())] = d
		}
	}
	return in, nil
}
