package folders

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// handleSharedWithGet answers the members the folder is shared with, by
// sub_user (the owner only: the route's access).
func handleSharedWithGet(st Store) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, fid, err := api.AccountAndID(r, "folder_id")
		if err != nil {
			return err
		}
		f, err := st.Folder(r.Context(), acct.ID, fid)
		if err != nil {
			return err
		}
		shared := f.SharedWith
		if shared == nil {
			shared = []survey.Share{}
		}
		api.Respond(w, r, http.StatusOK, shared)
		return nil
	})
}

// handleSharedWithPut replaces the folder's shares with the body's list
// [{"sub_user", "role"}] and answers the new list. Item errors are keyed
// by the item's index.
func handleSharedWithPut(st Store) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, fid, err := api.AccountAndID(r, "folder_id")
		if err != nil {
			return err
		}
		raw, err := api.ReadJSON(r, api.MaxBody)
		if err != nil {
			return err
		}
		list, err := shareRequests(raw)
		if err != nil {
			return err
		}
		out, err := st.SetFolderShares(r.Context(), acct.ID, fid, list)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, out)
		return nil
	})
}

// shareRequests validates the body of PUT shared-with: a list of
// objects, each a sub_user (a pk, listed once) and a role.
func shareRequests(raw json.RawMessage) ([]store.ShareRequest, error) {
	var items []json.RawMessage
	if api.JSONKind(raw) != "list" || json.Unmarshal(raw, &items) != nil {
		return nil, &survey.Error{Code: survey.EINVALID, Fields: map[string]any{
			"non_field_errors": []string{survey.MsgNotAList(api.JSONKind(raw))}}}
	}
	bad := map[string]any{}
	seen := map[int64]bool{}
	out := make([]store.ShareRequest, 0, len(items))
	for i, item := range items {
		obj, err := api.ParseObject(item)
		if err != nil {
			bad[strconv.Itoa(i)] = map[string]any{"non_field_errors": []string{survey.MsgNotADict(api.JSONKind(item))}}
			continue
		}
		form := api.NewForm(obj)
		sub, subOK := form.PK("sub_user", true)
		role, roleOK := form.String("role", api.Str{Required: true, Max: 20})
		if roleOK && role != string(survey.RoleEditor) && role != string(survey.RoleViewer) {
			form.Fail("role", fmt.Sprintf("%q is not a valid choice.", role))
			roleOK = false
		}
		if subOK && seen[sub] {
			form.Fail("sub_user", "Listed twice.")
			subOK = false
		}
		if err := form.Err(); err != nil {
			bad[strconv.Itoa(i)] = form.Fields()
			continue
		}
		if subOK && roleOK {
			seen[sub] = true
			out = append(out, store.ShareRequest{SubUser: sub, Role: survey.Role(role)})
		}
	}
	if len(bad) > 0 {
		return nil, &survey.Error{Code: survey.EINVALID, Fields: bad}
	}
	return out, nil
}
