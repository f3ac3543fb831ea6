package elements

import (
	"context"
	"net/http"
	"slices"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
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
		dup, derr := duplicateParam(r)
		if derr != nil {
			return derr
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
		if dup {
			return h.duplicate(w, r, aid, sid, eid, edit, p)
		}
		ch, err := h.st.UpdateElement(r.Context(), aid, sid, eid, edit, p)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, ch.Element.View(ch.Layout))
		return nil
	})
}

// duplicateParam reads ?duplicate= as DRF reads a boolean.
func duplicateParam(r *http.Request) (bool, error) {
	vals, ok := r.URL.Query()["duplicate"]
	if !ok {
		return false, nil
	}
	switch vals[0] {
	case "true", "True", "1":
		return true, nil
	case "false", "False", "0", "":
		return false, nil
	}
	return false, survey.FieldError("duplicate", api.MsgNotBool)
}

// duplicate is PATCH ?duplicate=true (contract section 21 amended): the
// element is copied, with its choices, rows and columns under new ids (a
// quiz's correct_choice following its choice), right after the original
// and in its group; the body's fields (and placement, when given) apply
// to the copy; the original is unchanged. 201 with the copy.
func (h handlers) duplicate(w http.ResponseWriter, r *http.Request, aid, sid, eid int64, edit func(*survey.Element) error, p survey.Placement) error {
	ctx := r.Context()
	cur, err := h.st.Element(ctx, aid, sid, eid)
	if err != nil {
		return err
	}
	e := cur.Element
	e.ID = 0
	e.Choices, e.Rows, e.Columns = slices.Clone(e.Choices), slices.Clone(e.Rows), slices.Clone(e.Columns)
	n := len(e.Choices) + len(e.Rows) + len(e.Columns)
	if n > 0 {
		ids, err := h.st.NewIDs(ctx, store.KindChoice, n)
		if err != nil {
			return err
		}
		for i := range e.Choices {
			if e.CorrectChoice != nil && *e.CorrectChoice == e.Choices[i].ID {
				id := ids[0]
				e.CorrectChoice = &id
			}
			e.Choices[i].ID, ids = ids[0], ids[1:]
		}
		for _, items := range [][]survey.NamedItem{e.Rows, e.Columns} {
			for i := range items {
				items[i].ID, ids = ids[0], ids[1:]
			}
		}
	}
	if err := edit(&e); err != nil {
		return err
	}
	if p.Prior == nil && p.Group == nil && !p.Ungroup {
		p.Prior = &eid
		if g, ok := cur.Layout.Members[eid]; ok {
			p.Group = &g
		}
	}
	ch, err := h.st.CreateElement(ctx, aid, sid, e, p)
	if err != nil {
		return err
	}
	api.Respond(w, r, http.StatusCreated, ch.Element.View(ch.Layout))
	return nil
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
