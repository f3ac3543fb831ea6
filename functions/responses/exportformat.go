package responses

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"surveyservice/shared/exports"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// exportFormat is what an export file is: the real service's
// export_format values (contract section 21; mindcloud-inc's reference,
// get-survey-responses-export.md: "1: xlsx, 2: csv").
type exportFormat int

const (
	formatXLSX exportFormat = 1
	formatCSV  exportFormat = 2
)

const xlsxContentType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// ext is the file name's extension.
func (f exportFormat) ext() string {
	if f == formatXLSX {
		return "xlsx"
	}
	return "csv"
}

func (f exportFormat) contentType() string {
	if f == formatXLSX {
		return xlsxContentType
	}
	return csvContentType
}

// exportSpec is what an export holds: its format and the submission times
// it covers (since and until, both included; zero leaves a side open).
type exportSpec struct {
	format       exportFormat
	since, until time.Time
	// lang is the language of the file's titles and labels (?lang=,
	// checked against the survey's languages by checkLang); "" the
	// survey's own.
	lang string
}

// readExportSpec reads export_format (1 or 2, the default CSV), since and
// until from the query string.
func readExportSpec(q url.Values) (exportSpec, error) {
	errs := survey.Fields{}
	spec := exportSpec{format: formatCSV}
	if vals, ok := q["export_format"]; ok {
		switch vals[0] {
		case "1":
			spec.format = formatXLSX
		case "2":
		default:
			errs.Add("export_format", `"`+vals[0]+`" is not a valid choice.`)
		}
	}
	spec.since, spec.until = timeParam(q, errs, "since"), timeParam(q, errs, "until")
	return spec, errs.Err()
}

// job is the spec as the export job's message carries it.
func (s exportSpec) job(j exports.Job) exports.Job {
	j.Format, j.Lang = int(s.format), s.lang
	if !s.since.IsZero() {
		j.Since = s.since.Format(time.RFC3339Nano)
	}
	if !s.until.IsZero() {
		j.Until = s.until.Format(time.RFC3339Nano)
	}
	return j
}

// specOfJob reads a job message's spec (exports.DecodeJob checked it).
func specOfJob(j exports.Job) exportSpec {
	spec := exportSpec{format: formatCSV, lang: j.Lang}
	if j.Format == int(formatXLSX) {
		spec.format = formatXLSX
	}
	spec.since, _ = time.Parse(time.RFC3339Nano, j.Since)
	spec.until, _ = time.Parse(time.RFC3339Nano, j.Until)
	return spec
}

// checkLang checks the request's ?lang= against the survey's languages
// and keeps it in the spec.
func (s *exportSpec) checkLang(q url.Values, c store.SurveyCollection) error {
	lang, err := langParam(q, c)
	s.lang = lang
	return err
}

// disposition is the file's Content-Disposition.
func (s exportSpec) disposition(sid int64) string {
	return fmt.Sprintf(`attachment; filename="survey-%d-responses.%s"`, sid, s.format.ext())
}

// RowWriter writes an export file a row at a time.
type RowWriter interface {
	Row(cells []string) error
	// Close finishes the file; Abort drops it.
	Close() error
	Abort()
}

// WorkbookFunc starts a workbook (export_format=1) written to w, right to
// left when rtl. Only the export function has one (functions/responses/
// workbook, the module's one importer of the xlsx library): the responses
// function hands its synchronous workbook exports to the export queue
// (export), so its bootstrap carries no xlsx library.
type WorkbookFunc func(w *exports.Writer, rtl bool) (RowWriter, error)

// Workbooks adapts a workbook package's constructor to a WorkbookFunc.
func Workbooks[R RowWriter](start func(w *exports.Writer, rtl bool) (R, error)) WorkbookFunc {
	return func(w *exports.Writer, rtl bool) (RowWriter, error) {
		r, err := start(w, rtl)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
}

// errNoWorkbooks is a job of export_format=1 run where no WorkbookFunc
// was given: a wiring mistake, never the caller's.
var errNoWorkbooks = errors.New("responses: this function writes no workbooks (ExporterDeps.Workbook is nil)")

// rightToLeft reports whether an export reads right to left: its
// language's direction (?lang=, else the survey's).
func rightToLeft(language int64, lang string) bool {
	if lang == "" {
		lang, _ = survey.LanguageCode(language)
	}
	return survey.RTL(lang)
}

// csvRows writes CSV: the BOM first, each row as it comes.
type csvRows struct {
	w  *exports.Writer
	cw *csvWriter
}

func newCSVRows(w *exports.Writer) (*csvRows, error) {
	c := &csvRows{w: w, cw: newCSVWriter()}
	_, err := w.Write([]byte(bom))
	return c, err
}

func (c *csvRows) Row(cells []string) error { _, err := c.w.Write(c.cw.encode(cells)); return err }
func (c *csvRows) Close() error             { return c.w.Close() }
func (c *csvRows) Abort()                   { c.w.Abort() }
