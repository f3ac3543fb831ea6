package responses

import (
	"net/http"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// responseIDs reads the account and the survey and response ids of the
// path; an id that cannot exist is answered 404 here (ok false).
func responseIDs(w http.ResponseWriter, r *http.Request) (acct survey.Account, sid, rid int64, ok bool) {
	acct, sid, ok = api.AccountAndID(w, r, "survey_id")
	if !ok {
		return acct, 0, 0, false
	}
	if rid, ok = api.PathID(r, "response_id"); !ok {
		api.Error(w, r, survey.ErrNotFound)
	}
	return acct, sid, rid, ok
}

// get answers one response: one BatchGetItem of it and its survey.
func (h handlers) get() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		acct, sid, rid, ok := responseIDs(w, r)
		if !ok {
			return
		}
		resp, err := h.st.Response(r.Context(), acct.ID, sid, rid)
		if err != nil {
			api.Error(w, r, err)
			return
		}
		api.Respond(w, r, http.StatusOK, resp.View())
	})
}

// delete deletes one response and lowers the survey's count by exactly
// one (one transaction); a response already gone answers 404. 204.
func (h handlers) delete() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		acct, sid, rid, ok := responseIDs(w, r)
		if !ok {
			return
		}
		if err := h.st.DeleteResponse(r.Context(), acct.ID, sid, rid); err != nil {
			api.Error(w, r, err)
			return
		}
		api.NoContent(w, r)
	})
}
