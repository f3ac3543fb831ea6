package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

const webhooksSK = "WEBHOOKS"

// HooksPK is the partition of a survey's webhooks.
//
// Webhooks (contract section 13).
//
// A survey's webhooks (at most survey.MaxWebhooks) live in one item,
// HOOKS#<sid> / WEBHOOKS, as one JSON list under a version, as variables
// do: "at most ten" is one conditional write, the dispatch of an event
// reads every webhook of its survey with one GetItem, and a delivery reads
// its webhook the same way (batched with its other reads). The item has a
// partition of its own so that the sealed secrets never weigh on the
// survey detail's Query.
func HooksPK(sid int64) string { return "HOOKS#" + pad(sid) }

type webhooksItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	AccountID int64  `dynamo:"account_id"`
	SurveyID  int64  `dynamo:"survey_id"`
	Doc       string `dynamo:"doc"`
	Version   int64  `dynamo:"version"`
	// The hooked-surveys index (replay.go), while it has webhooks.
	HookedPK string `dynamo:"GSI1PK,omitempty"`
	HookedSK string `dynamo:"GSI1SK,omitempty"`
	// The account's hooks index (GSI2), while one of its webhooks lists an
	// account-wide event (domain.suspended): AccountWebhooks reads every
	// such survey's webhooks in one Query.
	AccountHooksPK string `dynamo:"GSI2PK,omitempty"`
	AccountHooksSK string `dynamo:"GSI2SK,omitempty"`
}

// AccountHooksKey is GSI2PK of the webhooks items of an account's surveys
// that list an account-wide event (contract section 23: domain.suspended
// goes to every webhook of the account's surveys that lists it).
func AccountHooksKey(aid int64) string { return "ACCOUNTHOOKS#" + pad(aid) }

// accountWide reports whether a webhook of hooks lists an event that is
// the account's, not one survey's.
func accountWide(hooks []survey.Webhook) bool {
	for _, w := range hooks {
		if slices.Contains(w.Events, survey.EventDomainSuspended) {
			return true
		}
	}
	return false
}

// AccountWebhooks are the webhooks of the account's surveys that want the
// account-wide event now: one Query of the account's hooks index (page by
// page; a page holds many surveys' items), never a read a survey.
func (s *Store) AccountWebhooks(ctx context.Context, aid int64, event string) ([]survey.Webhook, error) {
	var items []dynamo.Item
	if err := s.table.Get(AttrGSI2PK, AccountHooksKey(aid)).Index(IndexGSI2).All(ctx, &items); err != nil {
		return nil, s.fail(fmt.Sprintf("query the webhooks of account %d", aid), err)
	}
	var out []survey.Webhook
	for _, item := range items {
		hooks, _, err := decodeWebhooks(item)
		if err != nil {
			return nil, err
		}
		for _, w := range hooks {
			if w.Subscribes(event) {
				out = append(out, w)
			}
		}
	}
	return out, nil
}

// webhookDoc is one webhook in the item's list.
type webhookDoc struct {
	ID      int64             `json:"id"`
	URL     string            `json:"url"`
	Events  []string          `json:"events"`
	Active  bool              `json:"active"`
	Headers map[string]string `json:"headers,omitempty"`
	Created string            `json:"created"`
	Secret  string            `json:"secret"`
	// An email or SMS notification's method, kind and people (absent for
	// a webhook).
	Method        int64    `json:"method,omitempty"`
	RecipientType int64    `json:"recipient_type,omitempty"`
	Recipients    []string `json:"recipients,omitempty"`
}

func decodeWebhooks(item dynamo.Item) ([]survey.Webhook, int64, error) {
	var it webhooksItem
	if err := dynamo.UnmarshalItem(item, &it); err != nil {
		return nil, 0, fmt.Errorf("store: decode webhooks: %w", err)
	}
	var docs []webhookDoc
	if err := json.Unmarshal([]byte(it.Doc), &docs); err != nil {
		return nil, 0, fmt.Errorf("store: decode webhooks of %s: %w", it.PK, err)
	}
	out := make([]survey.Webhook, len(docs))
	for i, d := range docs {
		created, err := time.Parse(survey.TimestampLayout, d.Created)
		if err != nil {
			return nil, 0, fmt.Errorf("store: webhook %d: created %q: %w", d.ID, d.Created, err)
		}
		out[i] = survey.Webhook{ID: d.ID, SurveyID: it.SurveyID, URL: d.URL, Events: d.Events, Active: d.Active,
			Headers: d.Headers, Created: created, SealedSecret: d.Secret, Method: d.Method, RecipientType: d.RecipientType, Recipients: d.Recipients}
	}
	return out, it.Version, nil
}

func encodeWebhooks(hooks []survey.Webhook) (string, error) {
	docs := make([]webhookDoc, len(hooks))
	for i, w := range hooks {
		docs[i] = webhookDoc{ID: w.ID, URL: w.URL, Events: w.Events, Active: w.Active, Headers: w.Headers,
			Created: w.Created.UTC().Format(survey.TimestampLayout), Secret: w.SealedSecret,
			Method: w.Method, RecipientType: w.RecipientType, Recipients: w.Recipients}
	}
	b, err := json.Marshal(docs)
	if err != nil {
		return "", fmt.Errorf("store: encode webhooks: %w", err)
	}
	return string(b), nil
}

// SurveyWebhooks reads a survey of the account and its webhooks (with
// their breakers) in one strongly consistent BatchGetItem; a missing or
// foreign survey answers ENOTFOUND.
func (s *Store) SurveyWebhooks(ctx context.Context, aid, sid int64) (survey.Survey, []survey.Webhook, int64, error) {
	var items []dynamo.Item
	err := s.table.Batch(AttrPK, AttrSK).
		Get(dynamo.Keys{SurveyPK(sid), SurveySK}, dynamo.Keys{HooksPK(sid), webhooksSK}, dynamo.Keys{HooksPK(sid), breakersSK}).
		Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return survey.Survey{}, nil, 0, s.fail(fmt.Sprintf("get webhooks of survey %d", sid), err)
	}
	var sv survey.Survey
	hooks := []survey.Webhook{}
	var version int64
	found := false
	var breakers map[int64]survey.Breaker
	for _, item := range items {
		switch skOf(item) {
		case breakersSK:
			breakers = decodeBreakers(item)
		case SurveySK:
			if sv, err = decodeSurvey(item); err != nil {
				return survey.Survey{}, nil, 0, err
			}
			found = true
		case webhooksSK:
			if hooks, version, err = decodeWebhooks(item); err != nil {
				return survey.Survey{}, nil, 0, err
			}
		}
	}
	if !found || sv.AccountID != aid {
		return survey.Survey{}, nil, 0, survey.ErrNotFound
	}
	for i := range hooks {
		hooks[i].Breaker = breakers[hooks[i].ID]
	}
	return sv, hooks, version, nil
}

// WebhooksOf reads a survey's webhooks, whoever owns it: for the dispatch
// of its events. One strongly consistent GetItem.
func (s *Store) WebhooksOf(ctx context.Context, sid int64) ([]survey.Webhook, error) {
	var item dynamo.Item
	err := s.table.Get(AttrPK, HooksPK(sid)).Range(AttrSK, dynamo.Equal, webhooksSK).Consistent(true).One(ctx, &item)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, s.fail(fmt.Sprintf("get webhooks of survey %d", sid), err)
	}
	hooks, _, err := decodeWebhooks(item)
	return hooks, err
}

// ChangeWebhooks applies change to the survey's webhooks and writes the
// result, in one transaction with the survey's liveness (of the account,
// not in the trash) and conditional on the version read; a change that
// lost a race to another (the version, or a transaction holding the
// survey item) is reread and applied again until ownerRetryFor has passed
// (then EUNAVAILABLE), so that many owners' scripts adding webhooks at
// once all land (contract section 3, "Contention"). change sees the
// current list and answers the new one, or an error that is returned as
// is. A missing or foreign survey answers ENOTFOUND, one in the trash
// survey.ErrSurveyDeleted.
func (s *Store) ChangeWebhooks(ctx context.Context, aid, sid int64, change func([]survey.Webhook) ([]survey.Webhook, error)) ([]survey.Webhook, error) {
	started := time.Now()
	for attempt := 1; ; attempt++ {
		sv, hooks, version, err := s.SurveyWebhooks(ctx, aid, sid)
		if err != nil {
			return nil, err
		}
		if sv.Deleted {
			return nil, survey.ErrSurveyDeleted
		}
		next, err := change(hooks)
		if err != nil {
			return nil, err
		}
		doc, err := encodeWebhooks(next)
		if err != nil {
			return nil, err
		}
		item := webhooksItem{PK: HooksPK(sid), SK: webhooksSK, AccountID: aid, SurveyID: sid, Doc: doc, Version: version + 1}
		if len(next) > 0 {
			item.HookedPK, item.HookedSK = HookedKey(sid), pad(sid)
		}
		if accountWide(next) {
			item.AccountHooksPK, item.AccountHooksSK = AccountHooksKey(aid), pad(sid)
		}
		put := s.table.Put(item)
		if version == 0 {
			put = put.If("attribute_not_exists(PK)")
		} else {
			put = put.If("version = ?", version)
		}
		err = s.runTx(ctx, s.db.WriteTx().
			Check(s.table.Check(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).If(surveyWritable, aid, false)).
			Put(put))
		switch {
		case err == nil:
			return next, nil
		case txFailedAt(err, 0):
			return nil, s.whyNotWritable(ctx, aid, sid)
		case (txFailedAt(err, 1) || txConflict(err)) && ownerAgain(ctx, attempt, started):
			continue
		case txFailedAt(err, 1) || txConflict(err):
			return nil, errBusy
		}
		return nil, s.fail(fmt.Sprintf("write webhooks of survey %d", sid), err)
	}
}
