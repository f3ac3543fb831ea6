package responses

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"

	"surveyservice/shared/exports"
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
	j.Format = int(s.format)
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
	spec := exportSpec{format: formatCSV}
	if j.Format == int(formatXLSX) {
		spec.format = formatXLSX
	}
	spec.since, _ = time.Parse(time.RFC3339Nano, j.Since)
	spec.until, _ = time.Parse(time.RFC3339Nano, j.Until)
	return spec
}

// disposition is the file's Content-Disposition.
func (s exportSpec) disposition(sid int64) string {
	return fmt.Sprintf(`attachment; filename="survey-%d-responses.%s"`, sid, s.format.ext())
}

// rowWriter writes an export file a row at a time.
type rowWriter interface {
	row(cells []string) error
	// close finishes the file; abort drops it.
	close() error
	abort()
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

func (c *csvRows) row(cells []string) error { _, err := c.w.Write(c.cw.encode(cells)); return err }
func (c *csvRows) close() error             { return c.w.Close() }
func (c *csvRows) abort()                   { c.w.Abort() }

// xlsxRows writes a workbook of one sheet with excelize's StreamWriter:
// the sheet's rows go to a buffer that spills to a temporary file past
// 16 MiB (Lambda's /tmp), so memory holds the zipped workbook at most,
// which close writes to S3 in parts. Cells are text as in the CSV (the
// CSV's formula guard is not needed: an xlsx string cell is never run),
// but for the response's id and duration (numbers). A Persian or Arabic
// survey's sheet reads right to left.
type xlsxRows struct {
	w    *exports.Writer
	f    *excelize.File
	sw   *excelize.StreamWriter
	n    int
	vals []any
}

// xlsxSheet names the workbook's one sheet.
const xlsxSheet = "Responses"

func newXLSXRows(w *exports.Writer, language int64) (*xlsxRows, error) {
	f := excelize.NewFile()
	x := &xlsxRows{w: w, f: f}
	if err := f.SetSheetName("Sheet1", xlsxSheet); err != nil {
		return nil, fmt.Errorf("responses: name the export's sheet: %w", err)
	}
	if lang, _ := survey.LanguageCode(language); lang == "fa" || lang == "ar" {
		rtl := true
		if err := f.SetSheetView(xlsxSheet, 0, &excelize.ViewOptions{RightToLeft: &rtl}); err != nil {
			return nil, fmt.Errorf("responses: set the export's sheet right to left: %w", err)
		}
	}
	sw, err := f.NewStreamWriter(xlsxSheet)
	if err != nil {
		return nil, fmt.Errorf("responses: start the export's sheet: %w", err)
	}
	x.sw = sw
	return x, nil
}

func (x *xlsxRows) row(cells []string) error {
	x.n++
	x.vals = x.vals[:0]
	for i, c := range cells {
		var v any = strings.ToValidUTF8(c, "\uFFFD")
		if x.n > 1 && (i == 0 || i == 2) { // id, duration_seconds
			if n, err := strconv.ParseInt(c, 10, 64); err == nil {
				v = n
			}
		}
		x.vals = append(x.vals, v)
	}
	cell, err := excelize.CoordinatesToCellName(1, x.n)
	if err != nil {
		return fmt.Errorf("responses: export row %d: %w", x.n, err)
	}
	if err := x.sw.SetRow(cell, x.vals); err != nil {
		return fmt.Errorf("responses: export row %d: %w", x.n, err)
	}
	return nil
}

func (x *xlsxRows) close() error {
	defer x.f.Close() // removes the sheet's temporary file
	if err := x.sw.Flush(); err != nil {
		x.w.Abort()
		return fmt.Errorf("responses: finish the export's sheet: %w", err)
	}
	if _, err := x.f.WriteTo(x.w); err != nil {
		x.w.Abort()
		return fmt.Errorf("responses: write the export's workbook: %w", err)
	}
	return x.w.Close()
}

func (x *xlsxRows) abort() {
	_ = x.f.Close()
	x.w.Abort()
}
