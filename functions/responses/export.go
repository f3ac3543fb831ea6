package responses

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"surveyservice/shared/api"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// An export is a CSV file of every response (the CSV pages' columns,
// oldest first) in the exports bucket. Its link is the service's own:
// .../responses/export/<token>/, the token sealed for the survey with the
// file's key and the link's expiry. Following it answers a redirect to a
// presigned S3 link made at that moment. So the link stays good for
// exportLinkValidity whatever the lifetime of the function's temporary
// credentials (a presigned link dies with the credentials that signed
// it, which may be sooner than its own expiry), the file never passes
// through Lambda's 6 MB response, and the bucket stays private.
const (
	exportPurpose      links.Purpose = "survey-responses-export/v1/survey:"
	exportTokenVersion               = 1
	// exportLinkValidity is how long an export link works (the contract
	// asks for at least 10 minutes); the bucket keeps files a day.
	exportLinkValidity = time.Hour
	// exportQueryLimit is the most responses one Query of an export asks
	// for; DynamoDB also stops at 1 MB.
	exportQueryLimit = 10000
	maxExportKey     = 512
)

var errExportExpired = survey.Errorf(survey.EGONE, "This export link has expired.")

// exportLink is what an export link seals.
type exportLink struct {
	expires time.Time // whole seconds
	key     string
}

func encodeExportLink(l exportLink) []byte {
	b := []byte{exportTokenVersion}
	b = binary.AppendVarint(b, l.expires.Unix())
	return append(b, l.key...)
}

var errBadExportLink = errors.New("responses: malformed export link")

// decodeExportLink reads an export link's plaintext; only the canonical
// encoding of a plausible link is accepted.
func decodeExportLink(b []byte) (exportLink, error) {
	if len(b) < 3 || b[0] != exportTokenVersion {
		return exportLink{}, errBadExportLink
	}
	secs, n := binary.Varint(b[1:])
	if n <= 0 || n != len(binary.AppendVarint(nil, secs)) {
		return exportLink{}, errBadExportLink
	}
	key := string(b[1+n:])
	if key == "" || len(key) > maxExportKey || !utf8.ValidString(key) || !strings.HasPrefix(key, "exports/") {
		return exportLink{}, errBadExportLink
	}
	return exportLink{expires: time.Unix(secs, 0).UTC(), key: key}, nil
}

// export writes every response of the survey to a new file of the exports
// bucket and answers {"export": "<link>"}. The file is written as the
// responses are read (a Query per MB of them), in parts, so memory stays
// bounded however many there are.
func (h handlers) export() http.Handler {
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
		coll, err := h.st.SurveyCollection(ctx, acct.ID, sid)
		if err != nil {
			return err
		}
		if err := spec.checkLang(r.URL.Query(), coll); err != nil {
			return err
		}
		if spec.format == formatXLSX {
			return h.exportWorkbook(w, r, acct.ID, sid, spec)
		}
		now := h.now().UTC()
		var nonce [12]byte
		_, _ = rand.Read(nonce[:])
		key := fmt.Sprintf("exports/%d/%s-%s.%s", sid, now.Format("20060102T150405Z"), hex.EncodeToString(nonce[:]), spec.format.ext())
		if _, err := writeExport(ctx, h.st, h.exports, nil, coll, key, spec); err != nil {
			return err
		}
		token, err := h.sealer.SealFor(ctx, exportPurpose, sid, encodeExportLink(exportLink{
			expires: now.Add(exportLinkValidity).Truncate(time.Second), key: key,
		}))
		if err != nil {
			return err
		}
		link := r.Clone(ctx)
		link.URL.Path = strings.TrimSuffix(r.URL.Path, "/") + "/" + token + "/"
		link.URL.RawPath = ""
		api.Respond(w, r, http.StatusOK, map[string]string{"export": api.AbsoluteURL(link, nil)})
		return nil
	})
}

// writeExport writes the survey's export file under key: CSV (the BOM,
// the header and a row per response) or a workbook of the same columns,
// oldest first, the responses submitted from spec.since to spec.until; it
// answers the rows written. Rows are written as the responses are read (a
// Query per MB of them) and the file goes to S3 in parts, so memory stays
// bounded however many there are.
func writeExport(ctx context.Context, st Store, ex Exports, workbook WorkbookFunc, coll store.SurveyCollection, key string, spec exportSpec) (int64, error) {
	sid := coll.Survey.ID
	if spec.format == formatXLSX && workbook == nil {
		return 0, errNoWorkbooks
	}
	wr := ex.Create(ctx, key, spec.format.contentType(), spec.disposition(sid))
	var (
		out RowWriter
		err error
	)
	if spec.format == formatXLSX {
		out, err = workbook(wr, rightToLeft(coll.Survey.Language, spec.lang))
	} else {
		out, err = newCSVRows(wr)
	}
	if err != nil {
		wr.Abort()
		return 0, err
	}
	if spec.lang != "" {
		coll = inLanguage(coll, spec.lang)
	}
	t := newTable(coll)
	if err := out.Row(t.header); err != nil {
		out.Abort()
		return 0, err
	}
	q := store.ResponseQuery{Ascending: true, Limit: exportQueryLimit}
	q.After, q.Before = storeBounds(spec.since, spec.until)
	var (
		cells []string
		rows  int64
	)
	for {
		page, err := st.ResponsesPage(ctx, sid, q)
		if err != nil {
			out.Abort()
			return 0, err
		}
		for _, resp := range page.Responses {
			cells = t.row(resp, cells)
			if err := out.Row(cells); err != nil {
				out.Abort()
				return 0, err
			}
			rows++
		}
		if !page.More || len(page.Responses) == 0 {
			break
		}
		q.From = page.Last()
	}
	return rows, out.Close()
}

// The synchronous workbook export (export_format=1) is an export job the
// export function runs: only that function links the xlsx library (about
// 13 MB, which doubled the responses function's bootstrap and its cold
// start). The handler records and queues the job as POST .../exports/
// does, on the same queue, then reads the job's item until it has
// succeeded and answers the same {"export": link} as the CSV. API Gateway
// ends a request at 30 s; past workbookWait the answer is a 503 that names
// the job route, and the job still finishes. An idle queue's message
// reaches the export function within about a second (its event source
// mapping long-polls), so the wait is the workbook's writing plus that.
const (
	workbookWait = 25 * time.Second
	// workbookPoll is the first pause between reads of the job (each one
	// strongly consistent read, 0.5-1 RCU); it grows by half to
	// workbookPollMax, so a 25 s wait reads the job at most about 35 times.
	workbookPoll    = 100 * time.Millisecond
	workbookPollMax = time.Second
)

var errWorkbookSlow = survey.Errorf(survey.EUNAVAILABLE,
	"The workbook is taking long to write; try again shortly, or start an export job (POST .../responses/exports/?export_format=1).")

// exportWorkbook queues the workbook's job and waits for it.
func (h handlers) exportWorkbook(w http.ResponseWriter, r *http.Request, acct, sid int64, spec exportSpec) error {
	ctx := r.Context()
	q := h.workbooks
	if q == nil {
		q = h.jobs
	}
	id, err := h.queueJob(ctx, q, acct, sid, spec)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(workbookWait)
	if d, ok := ctx.Deadline(); ok && d.Add(-2*time.Second).Before(deadline) {
		deadline = d.Add(-2 * time.Second)
	}
	pause := workbookPoll
	for {
		job, err := h.st.ExportJobOf(ctx, acct, sid, id)
		if err != nil {
			return err
		}
		switch job.Status {
		case store.ExportSucceeded:
			link, err := h.exportURL(r, sid, job.Key)
			if err != nil {
				return err
			}
			api.Respond(w, r, http.StatusOK, map[string]string{"export": link})
			return nil
		case store.ExportFailed:
			return fmt.Errorf("responses: the workbook export job %s of survey %d failed", id, sid)
		}
		if !time.Now().Add(pause).Before(deadline) {
			slog.WarnContext(ctx, "workbook export: still running at the wait's end", "survey", sid, "job", id, "status", job.Status)
			return errWorkbookSlow
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		pause = min(pause*3/2, workbookPollMax)
	}
}

// download follows an export link: a redirect (302) to a presigned link of
// the file, made now and good for a few minutes. No API key: the link is
// the capability, as a presigned link would be. A link that does not open
// for this survey answers 404; an expired one 410.
func (h handlers) download() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		sid, ok := api.PathID(r, "survey_id")
		if !ok {
			return survey.ErrNotFound
		}
		ctx := r.Context()
		plain, err := h.sealer.OpenFor(ctx, exportPurpose, sid, r.PathValue("token"))
		if errors.Is(err, links.ErrInvalid) {
			err = survey.ErrNotFound
		}
		if err != nil {
			return err
		}
		l, err := decodeExportLink(plain)
		if err != nil {
			return survey.ErrNotFound
		}
		if !h.now().Before(l.expires) {
			return errExportExpired
		}
		url, err := h.exports.URL(ctx, l.key)
		if err != nil {
			return err
		}
		w.Header().Set("Location", url)
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusFound)
		return nil
	})
}
