package settings

import (
	"encoding/json"
	"fmt"
	"net/http"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// Quotas (contract section 25): GET, POST .../quotas/ and GET, PATCH,
// DELETE .../quotas/{quota_id}/. Their places are kept exact by the
// store (store/places.go); this is their shape, validation and plan.

// quotaBody is a validated POST or PATCH body: the fields given.
type quotaBody struct {
	name       *string
	limit      *int64
	conditions []survey.QuotaCondition
	hasConds   bool
}

// readQuota validates a quota body's shape (every field required on
// POST), before anything is read.
func readQuota(body map[string]json.RawMessage, create bool) (quotaBody, error) {
	f := api.NewForm(body)
	var q quotaBody
	if v, ok := f.String("name", api.Str{Required: create, Max: survey.MaxQuotaName}); ok {
		q.name = &v
	}
	if v, ok := f.Int("limit", api.Int{Required: create, Min: api.Bound(1), Max: api.Bound(survey.MaxResponseLimit)}); ok {
		q.limit = &v
	}
	q.conditions, q.hasConds = readConditions(f, create)
	return q, f.Err()
}

// readConditions reads conditions: a list of 1-10 objects, each a
// question id and a non-empty list of choice ids; errors are a list
// aligned with the items ({} for a valid one), as DRF's list serializers
// answer.
func readConditions(f *api.Form, required bool) ([]survey.QuotaCondition, bool) {
	const name = "conditions"
	raw, present := f.Raw(name)
	switch {
	case !present:
		if required {
			f.Fail(name, api.MsgRequired)
		}
		return nil, false
	case f.IsNull(name):
		f.Fail(name, api.MsgNull)
		return nil, false
	case api.JSONKind(raw) != "list":
		f.Fail(name, survey.MsgNotAList(api.JSONKind(raw)))
		return nil, false
	}
	var items []json.RawMessage
	_ = json.Unmarshal(raw, &items)
	switch {
	case len(items) == 0:
		f.Fail(name, "This list may not be empty.")
		return nil, false
	case len(items) > survey.MaxQuotaConditions:
		f.Fail(name, fmt.Sprintf("Ensure this field has no more than %d elements.", survey.MaxQuotaConditions))
		return nil, false
	}
	out := make([]survey.QuotaCondition, len(items))
	errs := make([]any, len(items))
	bad := false
	for i, it := range items {
		errs[i] = map[string]any{}
		if kind := api.JSONKind(it); kind != "dict" {
			errs[i], bad = map[string]any{"non_field_errors": []string{survey.MsgNotADict(kind)}}, true
			continue
		}
		var obj map[string]json.RawMessage
		_ = json.Unmarshal(it, &obj)
		inner := api.NewForm(obj)
		out[i].Question, _ = inner.PK("question", true)
		out[i].Choices = readChoiceIDs(inner)
		if inner.Err() != nil {
			errs[i], bad = map[string]any(inner.Fields()), true
		}
	}
	if bad {
		f.FailList(name, errs)
		return nil, false
	}
	return out, true
}

// readChoiceIDs reads a condition's choices: a non-empty list of ids,
// each listed once (survey.MsgChoiceListedTwice; a repeated id would say
// nothing more, as a sub_user listed twice in a share does not). This is
// the request's own shape, so it is checked here, on the conditions a
// request gives, and not again by survey.CheckQuotaConditions on the
// conditions a quota keeps: a quota stored with a repeated id before this
// check is still renamed.
//
// Two conditions may name one question: conditions are ANDed (Matches),
// so on a question that takes several choices they say "one of these and
// one of those", which no single condition says; on one that takes one
// choice they ask for a choice in both lists. Refusing the second case
// would turn on allow_multiple_select, which an element PATCH may change
// under a quota that PATCHes re-check.
func readChoiceIDs(f *api.Form) []int64 {
	const name = "choices"
	raw, present := f.Raw(name)
	switch {
	case !present:
		f.Fail(name, api.MsgRequired)
		return nil
	case f.IsNull(name):
		f.Fail(name, api.MsgNull)
		return nil
	case api.JSONKind(raw) != "list":
		f.Fail(name, survey.MsgNotAList(api.JSONKind(raw)))
		return nil
	}
	var items []json.RawMessage
	_ = json.Unmarshal(raw, &items)
	if len(items) == 0 {
		f.Fail(name, "This list may not be empty.")
		return nil
	}
	ids := make([]int64, 0, len(items))
	seen := make(map[int64]bool, len(items)) // a set: a body may list many ids
	for _, it := range items {
		var id int64
		if json.Unmarshal(it, &id) != nil || id < 1 {
			f.Fail(name, "A valid list of choice ids is required.")
			return nil
		}
		if seen[id] {
			f.Fail(name, fmt.Sprintf(survey.MsgChoiceListedTwice, id))
			return nil
		}
		seen[id] = true
		ids = append(ids, id)
	}
	return ids
}

// quotaPlan refuses quotas on a plan without them (403), after the body
// was found valid.
func quotaPlan(plan survey.Plan) error {
	if plan.Includes(survey.PlanEnterprise) {
		return nil
	}
	return survey.Errorf(survey.EFORBIDDEN, "Your %s plan does not include quotas (needs the %s plan).", plan, survey.PlanEnterprise)
}

func (h handlers) quotaList() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		c, err := h.st.SurveyCollection(r.Context(), acct.ID, sid)
		if err != nil {
			return err
		}
		qs, err := h.st.WithQuotaCounts(r.Context(), sid, c.Quotas)
		if err != nil {
			return err
		}
		if qs == nil {
			qs = []survey.Quota{}
		}
		api.Respond(w, r, http.StatusOK, qs)
		return nil
	})
}

func (h handlers) quotaCreate() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		in, err := readQuota(body, true)
		if err != nil {
			return err
		}
		c, err := h.st.SurveyCollection(r.Context(), acct.ID, sid)
		if err != nil {
			return err
		}
		if err := survey.CheckQuotaConditions(in.conditions, c.Elements); err != nil {
			return err
		}
		if err := quotaPlan(acct.Plan); err != nil {
			return err
		}
		q, err := h.st.CreateQuota(r.Context(), acct.ID, sid, survey.Quota{Name: *in.name, Limit: *in.limit, Conditions: in.conditions})
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusCreated, q)
		return nil
	})
}

// quotaOf reads a survey of the account and one of its quotas, with its
// count.
func (h handlers) quotaOf(r *http.Request) (survey.Account, int64, survey.Quota, map[int64]survey.Element, error) {
	acct, sid, err := api.AccountAndID(r, "survey_id")
	if err != nil {
		return acct, 0, survey.Quota{}, nil, err
	}
	qid, ok := api.PathID(r, "quota_id")
	if !ok {
		return acct, 0, survey.Quota{}, nil, survey.ErrNotFound
	}
	c, err := h.st.SurveyCollection(r.Context(), acct.ID, sid)
	if err != nil {
		return acct, 0, survey.Quota{}, nil, err
	}
	for _, q := range c.Quotas {
		if q.ID == qid {
			qs, err := h.st.WithQuotaCounts(r.Context(), sid, []survey.Quota{q})
			if err != nil {
				return acct, 0, survey.Quota{}, nil, err
			}
			return acct, sid, qs[0], c.Elements, nil
		}
	}
	return acct, 0, survey.Quota{}, nil, survey.ErrNotFound
}

func (h handlers) quotaGet() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		_, _, q, _, err := h.quotaOf(r)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, q)
		return nil
	})
}

// quotaUpdate changes the fields given; new conditions apply to later
// submissions only, and the places taken stay taken. It answers the quota
// with its count read after the change.
func (h handlers) quotaUpdate() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		in, err := readQuota(body, false)
		if err != nil {
			return err
		}
		acct, sid, q, elements, err := h.quotaOf(r)
		if err != nil {
			return err
		}
		if in.hasConds {
			if err := survey.CheckQuotaConditions(in.conditions, elements); err != nil {
				return err
			}
			q.Conditions = in.conditions
		}
		if in.name != nil {
			q.Name = *in.name
		}
		if in.limit != nil {
			q.Limit = *in.limit
		}
		if err := quotaPlan(acct.Plan); err != nil {
			return err
		}
		if err := h.st.UpdateQuota(r.Context(), acct.ID, sid, q); err != nil {
			return err
		}
		// The count as of the answer: a change of a busy survey's quota
		// takes seconds (store/rebase.go), and responses recorded
		// meanwhile are in it.
		qs, err := h.st.WithQuotaCounts(r.Context(), sid, []survey.Quota{q})
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, qs[0])
		return nil
	})
}

func (h handlers) quotaDelete() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		qid, ok := api.PathID(r, "quota_id")
		if !ok {
			return survey.ErrNotFound
		}
		if err := h.st.DeleteQuota(r.Context(), acct.ID, sid, qid); err != nil {
			return err
		}
		api.NoContent(w, r)
		return nil
	})
}
