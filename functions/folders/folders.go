package folders

import (
	"net/http"
	"sort"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// summaries renders a folder's surveys, by id, each with the account's
// subdomain (contract section 23).
func summaries(surveys []survey.Survey, now time.Time, sd *survey.Subdomain) []survey.SurveySummary {
	sort.Slice(surveys, func(i, j int) bool { return surveys[i].ID < surveys[j].ID })
	out := make([]survey.SurveySummary, len(surveys))
	for i, sv := range surveys {
		out[i] = sv.Summary(now)
		out[i].Subdomain = sd
	}
	return out
}

// handleList answers every live folder of the account, sorted by (order,
// id), each with its live surveys: one Query however many there are.
func handleList(st Store, now func() time.Time) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, _ := api.AccountFrom(r.Context())
		tree, err := st.Folders(r.Context(), acct.ID)
		if err != nil {
			return err
		}
		sd, err := st.AccountSubdomain(r.Context(), acct.ID)
		if err != nil {
			return err
		}
		sort.Slice(tree.Folders, func(i, j int) bool {
			a, b := tree.Folders[i], tree.Folders[j]
			return a.Order < b.Order || a.Order == b.Order && a.ID < b.ID
		})
		t := now()
		out := make([]survey.FolderView, 0, len(tree.Folders))
		for _, f := range tree.Folders {
			if api.Reaches(r.Context(), f.ID) { // a member: the folders shared with them
				out = append(out, f.View(acct.Profile(), summaries(tree.Surveys[f.ID], t, sd)))
			}
		}
		api.Respond(w, r, http.StatusOK, out)
		return nil
	})
}

// folderFields reads name and order. On create and PUT the name is
// required; order is an integer from 0.
func folderFields(f *api.Form, nameRequired bool) (name *string, order *int64) {
	if v, ok := f.String("name", api.Str{Required: nameRequired, Max: survey.MaxFolderName}); ok {
		name = &v
	}
	if v, ok := f.Int("order", api.Int{Min: api.Bound(0)}); ok {
		order = &v
	}
	return name, order
}

// handleCreate answers 201 with the whole folder; without an order it goes
// last.
func handleCreate(st Store) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, _ := api.AccountFrom(r.Context())
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		name, order := folderFields(form, true)
		if err := form.Err(); err != nil {
			return err
		}
		f, err := st.CreateFolder(r.Context(), acct.ID, *name, order)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusCreated, f.View(acct.Profile(), nil))
		return nil
	})
}

func handleGet(st Store, now func() time.Time) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, fid, err := api.AccountAndID(r, "folder_id")
		if err != nil {
			return err
		}
		f, surveys, err := st.FolderWithSurveys(r.Context(), acct.ID, fid)
		if err != nil {
			return err
		}
		sd, err := st.AccountSubdomain(r.Context(), acct.ID)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, f.View(acct.Profile(), summaries(surveys, now(), sd)))
		return nil
	})
}

// handleUpdate is PUT (replace: name required, an omitted order puts the
// folder last) and PATCH (only the fields given). Both answer id, order and
// name.
func handleUpdate(st Store, replace bool) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, fid, err := api.AccountAndID(r, "folder_id")
		if err != nil {
			return err
		}
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		name, order := folderFields(form, replace)
		if err := form.Err(); err != nil {
			return err
		}
		u := store.FolderUpdate{Name: name, Order: order, OrderLast: replace && order == nil}
		f, err := st.UpdateFolder(r.Context(), acct.ID, fid, u)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, f.Ref())
		return nil
	})
}

func handleDelete(st Store) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, fid, err := api.AccountAndID(r, "folder_id")
		if err != nil {
			return err
		}
		if err := st.DeleteFolder(r.Context(), acct.ID, fid); err != nil {
			return err
		}
		api.NoContent(w, r)
		return nil
	})
}
