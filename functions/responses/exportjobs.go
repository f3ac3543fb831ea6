package responses

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/exports"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// JobQueue queues export jobs; exports.Queue implements it.
//
// An export job is the way to export a survey of any size: POST
// .../responses/exports/ records a pending job and queues it (SQS), and
// answers 202 at once; the export function (functions/exports, a 15
// minute timeout) writes the file to S3 in parts (writeExport); GET
// .../responses/exports/{export_id}/ answers the job's state and, once it
// succeeded, a link to the file (the same sealed link as the synchronous
// export's, good for an hour from that GET).
type JobQueue interface {
	Send(ctx context.Context, j exports.Job) error
}

var _ JobQueue = exports.Queue{}

// errQueue is the answer when the job could not be queued.
var errQueue = survey.Errorf(survey.EUNAVAILABLE, "The service is busy; try again shortly.")

// jobView is a job as the API shows it.
type jobView struct {
	ID         string  `json:"id"`
	Status     string  `json:"status"`
	CreatedAt  string  `json:"created_at"`
	FinishedAt *string `json:"finished_at"`
	Rows       *int64  `json:"rows"`
	Export     *string `json:"export"`
}

func exportFileKey(sid int64, id string, f exportFormat) string {
	return fmt.Sprintf("exports/%d/%s.%s", sid, id, f.ext())
}

// startExport records and queues a job: 202 with the job (pending).
func (h handlers) startExport() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		spec, err := readExportSpec(r.URL.Query())
		if err != nil {
			return err
		}
		ctx := r.Context()
		if hasLang(r.URL.Query()) {
			// The languages are the collection's: read it to check ?lang=.
			c, err := h.st.SurveyCollection(ctx, acct.ID, sid)
			if err != nil {
				return err
			}
			if err := spec.checkLang(r.URL.Query(), c); err != nil {
				return err
			}
		} else if _, err := h.st.Survey(ctx, acct.ID, sid); err != nil {
			return err
		}
		survey.AnswerStatus(ctx, http.StatusAccepted) // the entry commits with the job as answered
		id, err := h.queueJob(ctx, h.jobs, acct.ID, sid, spec)
		if err != nil {
			return err
		}
		job, err := h.st.ExportJobOf(ctx, acct.ID, sid, id)
		if err != nil {
			return err
		}
		view, err := h.jobView(r, job)
		if err != nil {
			return err
		}
		jobURL := r.Clone(ctx)
		jobURL.URL.Path = strings.TrimSuffix(r.URL.Path, "/") + "/" + id + "/"
		jobURL.URL.RawPath = ""
		w.Header().Set("Location", api.AbsoluteURL(jobURL, nil))
		api.Respond(w, r, http.StatusAccepted, view)
		return nil
	})
}

// queueJob records a pending job and queues it on q; a job that could not
// be queued is marked failed, and the answer is a 503 when the queue was
// unavailable.
func (h handlers) queueJob(ctx context.Context, q JobQueue, acct, sid int64, spec exportSpec) (string, error) {
	id := store.NewExportJobID()
	job := store.ExportJob{ID: id, SurveyID: sid, AccountID: acct, Key: exportFileKey(sid, id, spec.format)}
	if err := h.st.CreateExportJob(ctx, job); err != nil {
		return "", err
	}
	if err := q.Send(ctx, spec.job(exports.Job{SurveyID: sid, AccountID: acct, JobID: id})); err != nil {
		// Nothing will run it: say so in the job, and 503 now.
		slog.ErrorContext(ctx, "queue an export job", "survey", sid, "job", id, "error", err.Error())
		if ferr := h.st.FinishExportJob(context.WithoutCancel(ctx), sid, id, store.ExportFailed, 0); ferr != nil {
			return "", ferr
		}
		if awsenv.IsUnavailable(err) {
			return "", errQueue
		}
		return "", err
	}
	return id, nil
}

// exportJob answers a job's state, and its link once it succeeded.
func (h handlers) exportJob() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		id := r.PathValue("export_id")
		if len(id) != 32 || strings.Trim(id, "0123456789abcdef") != "" {
			return survey.ErrNotFound
		}
		job, err := h.st.ExportJobOf(r.Context(), acct.ID, sid, id)
		if err != nil {
			return err
		}
		view, err := h.jobView(r, job)
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		api.Respond(w, r, http.StatusOK, view)
		return nil
	})
}

func (h handlers) jobView(r *http.Request, j store.ExportJob) (jobView, error) {
	v := jobView{ID: j.ID, Status: j.Status, CreatedAt: j.Created}
	if j.Finished != "" {
		v.FinishedAt = &j.Finished
	}
	if j.Status != store.ExportSucceeded {
		return v, nil
	}
	v.Rows = &j.Rows
	link, err := h.exportURL(r, j.SurveyID, j.Key)
	if err != nil {
		return jobView{}, err
	}
	v.Export = &link
	return v, nil
}

// exportURL is the service's own link to an export file, good for
// exportLinkValidity from now: .../responses/export/<token>/.
func (h handlers) exportURL(r *http.Request, sid int64, key string) (string, error) {
	ctx := r.Context()
	token, err := h.sealer.SealFor(ctx, exportPurpose, sid, encodeExportLink(exportLink{
		expires: h.now().UTC().Add(exportLinkValidity).Truncate(time.Second), key: key,
	}))
	if err != nil {
		return "", err
	}
	link := r.Clone(ctx)
	link.URL.Path = fmt.Sprintf("/api/v2/surveys/%d/responses/export/%s/", sid, token)
	link.URL.RawPath, link.URL.RawQuery = "", ""
	return api.AbsoluteURL(link, nil), nil
}

// ExportStore is what the export function reads and writes;
// *store.Store implements it.
type ExportStore interface {
	Store
	StartExportJob(ctx context.Context, sid int64, id string) (store.ExportJob, bool, error)
	FinishExportJob(ctx context.Context, sid int64, id, status string, rows int64) error
}

var _ ExportStore = (*store.Store)(nil)

// ExporterDeps are the export function's dependencies (the group's
// second entry point, functions/exports).
type ExporterDeps struct {
	Store   ExportStore
	Exports Exports
	// Workbook writes export_format=1 files (workbook.New through
	// Workbooks); nil: a job for a workbook fails.
	Workbook WorkbookFunc
	// MaxAttempts is how many runs a job gets before it is marked failed
	// (the queue's redrive policy allows one more receive, to record it).
	MaxAttempts int
}

// Exporter is the export function: it runs the jobs of the export queue.
type Exporter struct{ ExporterDeps }

// NewExporter returns the export function's handler.
func NewExporter(d ExporterDeps) *Exporter { return &Exporter{ExporterDeps: d} }

// Handle runs each job of the batch; a job whose run fails for a reason
// that passes is reported back (the message returns after its visibility
// timeout), one that cannot succeed (its survey gone, a malformed message)
// is marked failed and not retried.
func (e *Exporter) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	var out events.SQSEventResponse
	for _, m := range ev.Records {
		if err := e.run(ctx, m.Body); err != nil {
			slog.ErrorContext(ctx, "export job", "message", m.MessageId, "error", err.Error())
			out.BatchItemFailures = append(out.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
		}
	}
	return out, nil
}

func (e *Exporter) run(ctx context.Context, body string) error {
	j, err := exports.DecodeJob(body)
	if err != nil {
		slog.ErrorContext(ctx, "export job: dropped", "error", err.Error())
		return nil // never becomes valid
	}
	job, ok, err := e.Store.StartExportJob(ctx, j.SurveyID, j.JobID)
	if errors.Is(err, survey.ErrNotFound) || (err == nil && !ok) {
		return nil // expired, or already done by an earlier delivery
	}
	if err != nil {
		return err
	}
	if job.AccountID != j.AccountID {
		return nil
	}
	coll, err := e.Store.SurveyCollection(ctx, job.AccountID, job.SurveyID)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return e.Store.FinishExportJob(ctx, job.SurveyID, job.ID, store.ExportFailed, 0)
	}
	if err != nil {
		return e.failed(ctx, job, err)
	}
	rows, err := writeExport(ctx, e.Store, e.Exports, e.Workbook, coll, job.Key, specOfJob(j))
	if err != nil {
		return e.failed(ctx, job, err)
	}
	return e.Store.FinishExportJob(ctx, job.SurveyID, job.ID, store.ExportSucceeded, rows)
}

// failed records the job failed on its last attempt, and otherwise hands
// the error back so that the queue tries again.
func (e *Exporter) failed(ctx context.Context, job store.ExportJob, err error) error {
	if job.Attempts < max(e.MaxAttempts, 1) {
		return err
	}
	slog.ErrorContext(ctx, "export job failed", "survey", job.SurveyID, "job", job.ID, "error", err.Error())
	return e.Store.FinishExportJob(ctx, job.SurveyID, job.ID, store.ExportFailed, 0)
}
