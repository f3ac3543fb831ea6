package elements

import (
	"context"
	"net/http"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

type handlers struct{ st Store }

// ids reads the survey id and, when wanted, the question id of the path;
// ids that cannot exist are survey.ErrNotFound at once.
func ids(r *http.Request, withQuestion bool) (aid, sid, eid int64, err error) {
	acct, _ := api.AccountFrom(r.Context())
	sid, ok := api.PathID(r, "survey_id")
	if ok && withQuestion {
		eid, ok = api.PathID(r, "question_id")
	}
	if !ok {
		return 0, 0, 0, survey.ErrNotFound
	}
	return acct.ID, sid, eid, nil
}

// list answers every element of the survey, welcome pages, then questions
// (groups and members in display order), then appreciation pages, each
// with its order in its list: one Query of the survey's item collection.
func (h handlers) list() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		aid, sid, _, err := ids(r, false)
		if err != nil {
			return err
		}
		c, err := h.st.SurveyCollection(r.Context(), aid, sid)
		if err != nil {
			return err
		}
		l := c.Layout
		out := make([]survey.ElementView, 0, l.Len())
		for _, list := range [][]int64{l.Welcome, l.Questions, l.Appreciations} {
			for _, id := range list {
				if e, ok := c.Elements[id]; ok {
					out = append(out, e.View(l))
				}
			}
		}
		api.Respond(w, r, http.StatusOK, out)
		return nil
	})
}

// create validates every field (title and type required), fills the
// defaults and places the element: 201 with the element and its order.
func (h handlers) create() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		aid, sid, _, err := ids(r, false)
		if err != nil {
			return err
		}
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		t, _ := readType(form, true)
		e := survey.NewElement(t)
		readFields(form, &e, true)
		answers := readAnswerFields(form, true)
		p := readPlacement(form)
		if p.Ungroup {
			p.Ungroup = false // a new element is in no group: null is as if absent
		}
		answers.apply(form, &e)
		if rules, ok := readConditions(form); ok {
			e.Conditions = rules
		}
		if err := form.Err(); err != nil {
			return err
		}
		if err := h.checkLink(r.Context(), aid, sid, form); err != nil {
			return err
		}
		e.LinkSetBy = linkSetter(r.Context(), form, nil)
		ch, err := h.st.CreateElement(r.Context(), aid, sid, e, p)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusCreated, ch.Element.View(ch.Layout))
		return nil
	})
}

func (h handlers) get() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		aid, sid, eid, err := ids(r, true)
		if err != nil {
			return err
		}
		ch, err := h.st.Element(r.Context(), aid, sid, eid)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, ch.Element.View(ch.Layout))
		return nil
	})
}

// update takes any create field, the response-only booleans and counts, and
// prior_question (a move) or related_group (a new group, or null for none).
// A new type resets the answer fields it does not take; `choices`, `rows`
// and `columns` replace the lists, keeping the ids their items carry.
// Every format error is answered before the store is read; the rules that
// depend on the element (its type, its choices) after.
func (h handlers) update() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		aid, sid, eid, err := ids(r, true)
		if err != nil {
			return err
		}
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		t, hasType := readType(form, false)
		var scratch survey.Element
		readFields(form, &scratch, false) // validate everything before any read
		answers := readAnswerFields(form, false)
		p := readPlacement(form)
		rules, hasRules := readConditions(form)
		if err := form.Err(); err != nil {
			return err
		}
		if err := h.checkLink(r.Context(), aid, sid, form); err != nil {
			return err
		}
		edit := func(e *survey.Element) error {
			if hasRules {
				e.Conditions = rules
			}
			if hasType && t != e.Type {
				e.Type = t
				e.ClearForeign()
			}
			readFields(api.NewForm(body), e, false)
			e.LinkSetBy = linkSetter(r.Context(), form, e.LinkSetBy)
			errs := api.NewForm(nil)
			answers.apply(errs, e)
			return errs.Err()
		}
		ch, err := h.st.UpdateElement(r.Context(), aid, sid, eid, edit, p)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, ch.Element.View(ch.Layout))
		return nil
	})
}

// delete removes the element and closes the gap in its list; a group's
// questions stay, ungrouped.
func (h handlers) delete() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		aid, sid, eid, err := ids(r, true)
		if err != nil {
			return err
		}
		if err := h.st.DeleteElement(r.Context(), aid, sid, eid); err != nil {
			return err
		}
		api.NoContent(w, r)
		return nil
	})
}

// linkSetter is who the element's link is set by after a write whose body
// is form: the request's principal (0 the owner, else the member's
// sub_user) when the body names a link, else kept as it was (contract
// section 19 as amended; survey.Element.LinkShown reads it).
func linkSetter(ctx context.Context, form *api.Form, kept *int64) *int64 {
	if _, named := form.Raw("link"); !named || form.IsNull("link") {
		return kept
	}
	p, _ := api.PrincipalFrom(ctx)
	by := int64(0)
	if sub := p.SubUser(); sub != nil {
		by = *sub
	}
	return &by
}

// checkLink checks an appreciation page's link sent in the body (contract
// section 16): the id of another live survey of the same account, whose
// page the button opens, and, for a member, one they reach (contract
// section 19 as amended): an unreached survey answers the same 400 as a
// missing one, so nothing tells which exist. One read, only when the body
// names one.
func (h handlers) checkLink(ctx context.Context, aid, sid int64, form *api.Form) error {
	if form.IsNull("link") {
		return nil
	}
	link, ok := form.Int("link", api.Int{})
	if !ok {
		return nil
	}
	if link == sid {
		return survey.FieldError("link", survey.InvalidPK(link))
	}
	sv, err := h.st.Survey(ctx, aid, link)
	if survey.ErrorCode(err) == survey.ENOTFOUND || err == nil && (sv.Deleted || !api.Reaches(ctx, sv.FolderID)) {
		return survey.FieldError("link", survey.InvalidPK(link))
	}
	return err
}
