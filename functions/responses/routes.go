// Package responses is the owner's view of a survey's responses (contract
// section 12): the list (JSON pages behind an opaque cursor, or CSV pages),
// one response, its deletion, and the real service's shapes its clients
// read: the results table and the export of every response.
package responses

import (
	"context"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/exports"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Store is what the group reads and writes; *store.Store implements it.
type Store interface {
	Survey(ctx context.Context, aid, sid int64) (survey.Survey, error)
	SurveyCollection(ctx context.Context, aid, sid int64) (store.SurveyCollection, error)
	ResponsesPage(ctx context.Context, sid int64, q store.ResponseQuery) (store.ResponsePage, error)
	PartialsPage(ctx context.Context, sid int64, q store.PartialQuery) (store.PartialPage, error)
	SkipResponses(ctx context.Context, sid int64, q store.ResponseQuery, n int) (*store.ResponsePosition, int, error)
	Response(ctx context.Context, aid, sid, rid int64) (survey.Response, error)
	DeleteResponse(ctx context.Context, aid, sid, rid int64) error
	CreateExportJob(ctx context.Context, j store.ExportJob) error
	ExportJobOf(ctx context.Context, aid, sid int64, id string) (store.ExportJob, error)
	FinishExportJob(ctx context.Context, sid int64, id, status string, rows int64) error
}

var _ Store = (*store.Store)(nil)

// Sealer seals and opens the group's tokens (cursors, export links) under
// the links' data keys; *links.Sealer implements it.
type Sealer interface {
	SealFor(ctx context.Context, purpose links.Purpose, surveyID int64, plain []byte) (string, error)
	OpenFor(ctx context.Context, purpose links.Purpose, surveyID int64, token string) ([]byte, error)
}

var _ Sealer = (*links.Sealer)(nil)

// Exports stores export files and lends short-lived links to them;
// *exports.Bucket implements it.
type Exports interface {
	Create(ctx context.Context, key, contentType, disposition string) *exports.Writer
	URL(ctx context.Context, key string) (string, error)
}

var _ Exports = (*exports.Bucket)(nil)

// csvFormat is the list's own representation (?format=csv).
var csvFormat = api.Format{Name: "csv", MediaType: "text/csv"}

// Deps are the group's dependencies.
type Deps struct {
	// Auth checks every request's API key.
	Auth    *api.Authenticator
	Store   Store
	Sealer  Sealer
	Exports Exports
	// Jobs queues export jobs.
	Jobs JobQueue
	// Workbooks queues the synchronous workbook exports' jobs (the export
	// function writes workbooks); nil: Jobs.
	Workbooks JobQueue
	// Now is the clock of export links; nil means time.Now.
	Now func() time.Time
	// Uploads is the bucket of the responders' files: the owner sees each
	// file answer with a download link, and deleting a response deletes
	// its files (contract section 16). nil: a deployment without files.
	Uploads Uploads
}

// New returns the group's routes.
func New(d Deps) *api.Router {
	if d.Now == nil {
		d.Now = time.Now
	}
	rt := api.NewRouter(d.Auth)
	h := handlers{st: d.Store, sealer: d.Sealer, exports: d.Exports, jobs: d.Jobs, workbooks: d.Workbooks, now: d.Now, pages: newPageStarts(d.Now), uploads: d.Uploads}
	list := api.Route{Path: "/api/surveys/{survey_id}/responses/", Name: "Response List", Formats: []api.Format{csvFormat}}
	detail := api.Route{Path: "/api/surveys/{survey_id}/responses/{response_id}/", Name: "Response Detail"}
	table := api.Route{Path: "/api/v2/surveys/{survey_id}/responses/results-table/", Name: "Results Table"}
	export := api.Route{Path: "/api/v2/surveys/{survey_id}/responses/export/", Name: "Response Export"}
	exportJobs := api.Route{Path: "/api/v2/surveys/{survey_id}/responses/exports/", Name: "Response Export Jobs"}
	exportJob := api.Route{Path: "/api/v2/surveys/{survey_id}/responses/exports/{export_id}/", Name: "Response Export Job"}
	download := api.Route{Path: "/api/v2/surveys/{survey_id}/responses/export/{token}/", Name: "Response Export File", Public: true}
	rt.Handle(list.With("GET"), h.list())
	rt.Handle(detail.With("GET"), h.get())
	rt.Handle(detail.With("DELETE"), h.delete())
	rt.Handle(table.With("GET"), h.resultsTable())
	rt.Handle(export.With("GET"), h.export())
	rt.Handle(download.With("GET"), h.download())
	rt.Handle(exportJobs.With("POST"), h.startExport())
	rt.Handle(exportJob.With("GET"), h.exportJob())
	return rt
}

type handlers struct {
	st      Store
	sealer  Sealer
	exports Exports
	jobs    JobQueue
	// workbooks: nil means jobs.
	workbooks JobQueue
	now       func() time.Time
	pages     *pageStarts
	uploads   Uploads // nil: no files
}
