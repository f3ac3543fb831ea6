// Package folders is the owner's folders: list with their surveys, create,
// read, replace, update and delete (which moves the surveys to the trash),
// and share them with the account's members (a member lists the folders
// shared with them).
package folders

import (
	"context"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Store is what the group reads and writes; *store.Store implements it.
type Store interface {
	CreateFolder(ctx context.Context, aid int64, name string, order *int64) (survey.Folder, error)
	FolderWithSurveys(ctx context.Context, aid, fid int64) (survey.Folder, []survey.Survey, error)
	Folders(ctx context.Context, aid int64) (store.FolderTree, error)
	UpdateFolder(ctx context.Context, aid, fid int64, u store.FolderUpdate) (survey.Folder, error)
	DeleteFolder(ctx context.Context, aid, fid int64) error
	Folder(ctx context.Context, aid, fid int64) (survey.Folder, error)
	SetFolderShares(ctx context.Context, aid, fid int64, list []store.ShareRequest) ([]survey.Share, error)
	// AccountSubdomain is the account's subdomain every survey shows.
	AccountSubdomain(ctx context.Context, aid int64) (*survey.Subdomain, error)
}

var _ Store = (*store.Store)(nil)

// Deps are the group's dependencies.
type Deps struct {
	// Auth checks every request's API key.
	Auth  *api.Authenticator
	Store Store
	// Now is the clock that decides whether a survey with an expiration
	// date is closed; nil means time.Now.
	Now func() time.Time
}

// New returns the group's routes.
func New(d Deps) *api.Router {
	if d.Now == nil {
		d.Now = time.Now
	}
	st, now := d.Store, d.Now
	rt := api.NewRouter(d.Auth)
	list := api.Route{Path: "/api/folders/", Name: "Folder List"}
	detail := api.Route{Path: "/api/folders/{folder_id}/", Name: "Folder Detail"}
	rt.Handle(list.With("GET"), handleList(st, now))
	rt.Handle(list.With("POST"), handleCreate(st))
	rt.Handle(detail.With("GET"), handleGet(st, now))
	rt.Handle(detail.With("PUT"), handleUpdate(st, true))
	rt.Handle(detail.With("PATCH"), handleUpdate(st, false))
	rt.Handle(detail.With("DELETE"), handleDelete(st))
	shared := api.Route{Path: "/api/folders/{folder_id}/shared-with/", Name: "Folder Shared With", Access: api.AccessOwner}
	rt.Handle(shared.With("GET"), handleSharedWithGet(st))
	rt.Handle(shared.With("PUT"), handleSharedWithPut(st))
	return rt
}
