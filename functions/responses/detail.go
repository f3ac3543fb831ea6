package responses

import (
	"net/http"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// responseIDs reads the account and the survey and response ids of the
// path; an id that cannot exist is survey.ErrNotFound.
func responseIDs(r *http.Request) (acct survey.Account, sid, rid int64, err error) {
	acct, sid, err = api.AccountAndID(r, "survey_id")
	if err != nil {
		return acct, 0, 0, err
	}
	rid, ok := api.PathID(r, "response_id")
	if !ok {
		return acct, 0, 0, survey.ErrNotFound
	}
	return acct, sid, rid, nil
}

// get answers one response: one BatchGetItem of it and its survey.
func (h handlers) get() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, rid, err := responseIDs(r)
		if err != nil {
			return err
		}
		resp, err := h.st.Response(r.Context(), acct.ID, sid, rid)
		if err != nil {
			return err
		}
		v, err := h.view(r.Context(), sid, resp)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, v)
		return nil
	})
}

// delete deletes one response and lowers the survey's count by exactly
// one (one transaction); a response already gone answers 404. 204. Its
// files go with it (section 16): the response is read first for their
// keys (one BatchGetItem), then deleted from the bucket (one
// DeleteObjects) once the response is gone.
func (h handlers) delete() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, rid, err := responseIDs(r)
		if err != nil {
			return err
		}
		var files []string
		if h.uploads != nil {
			resp, err := h.st.Response(r.Context(), acct.ID, sid, rid)
			switch {
			case err == nil:
				files = fileKeys(sid, resp)
			case survey.ErrorCode(err) != survey.ENOTFOUND:
				return err
			} // not found: the delete answers (404, or 409 in the trash)
		}
		if err := h.st.DeleteResponse(r.Context(), acct.ID, sid, rid); err != nil {
			return err
		}
		if len(files) > 0 {
			if err := h.uploads.Delete(r.Context(), files); err != nil {
				return err
			}
		}
		api.NoContent(w, r)
		return nil
	})
}
