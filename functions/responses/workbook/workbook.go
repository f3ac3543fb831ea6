// Package workbook writes an export file as an Excel workbook (contract
// section 21: export_format=1). It is the only package of the module that
// imports the xlsx library (excelize, about 13 MB of bootstrap), and only
// the export function (functions/exports/lambda) and `make run` link it:
// the responses function hands its synchronous workbook exports to the
// export function through the export queue (functions/responses, export).
package workbook

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"surveyservice/shared/exports"
)

// Sheet names the workbook's one sheet.
const Sheet = "Responses"

// Rows writes a workbook of one sheet with excelize's StreamWriter: the
// sheet's rows go to a buffer that spills to a temporary file past 16 MiB
// (Lambda's /tmp), so memory holds the zipped workbook at most, which
// Close writes to S3 in parts. Cells are text as in the CSV (the CSV's
// formula guard is not needed: an xlsx string cell is never run), but for
// the response's id and duration (numbers).
type Rows struct {
	w    *exports.Writer
	f    *excelize.File
	sw   *excelize.StreamWriter
	n    int
	vals []any
}

// New starts a workbook written to w; a Persian or Arabic survey's sheet
// reads right to left (rtl).
func New(w *exports.Writer, rtl bool) (*Rows, error) {
	f := excelize.NewFile()
	x := &Rows{w: w, f: f}
	if err := f.SetSheetName("Sheet1", Sheet); err != nil {
		return nil, fmt.Errorf("workbook: name the export's sheet: %w", err)
	}
	if rtl {
		if err := f.SetSheetView(Sheet, 0, &excelize.ViewOptions{RightToLeft: &rtl}); err != nil {
			return nil, fmt.Errorf("workbook: set the export's sheet right to left: %w", err)
		}
	}
	sw, err := f.NewStreamWriter(Sheet)
	if err != nil {
		return nil, fmt.Errorf("workbook: start the export's sheet: %w", err)
	}
	x.sw = sw
	return x, nil
}

// Row writes the next row; the first is the header.
func (x *Rows) Row(cells []string) error {
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
		return fmt.Errorf("workbook: export row %d: %w", x.n, err)
	}
	if err := x.sw.SetRow(cell, x.vals); err != nil {
		return fmt.Errorf("workbook: export row %d: %w", x.n, err)
	}
	return nil
}

// Close finishes the workbook and writes it.
func (x *Rows) Close() error {
	defer x.f.Close() // removes the sheet's temporary file
	if err := x.sw.Flush(); err != nil {
		x.w.Abort()
		return fmt.Errorf("workbook: finish the export's sheet: %w", err)
	}
	if _, err := x.f.WriteTo(x.w); err != nil {
		x.w.Abort()
		return fmt.Errorf("workbook: write the export's workbook: %w", err)
	}
	return x.w.Close()
}

// Abort drops the workbook.
func (x *Rows) Abort() {
	_ = x.f.Close()
	x.w.Abort()
}
