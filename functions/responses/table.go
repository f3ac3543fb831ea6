package responses

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// table is a survey's responses as rows of text, as the CSV pages, the
// export and the results table show them: id, submitted_at,
// duration_seconds, spam, score (when the survey is scored), email and
// phone (when responders sign in: signInColumns), language (contract
// section 24: the last meta column, so the others keep their places), one
// column per answerable element in survey order (titled by its title),
// then one per variable (titled by its name).
type table struct {
	header    []string
	scored    bool // a score column follows spam (contract section 15)
	signIn    bool // email and phone columns follow (contract section 18)
	language  bool // a language column follows (responses, not partials)
	elements  []survey.Element
	variables []string
}

// fixedColumns come first in every row.
var fixedColumns = []string{"id", "submitted_at", "duration_seconds", "spam"}

func newTable(c store.SurveyCollection) table { return tableOf(c, true) }

// tableOf is the table of c's responses, or without the language column
// (a partial records none).
func tableOf(c store.SurveyCollection, language bool) table {
	t := table{header: append([]string(nil), fixedColumns...), scored: c.Settings.ShowAnswerSheetEnabled, language: language}
	if t.scored {
		t.header = append(t.header, "score")
	}
	if t.signIn = signInColumns(c); t.signIn {
		t.header = append(t.header, "email", "phone")
	}
	if t.language {
		t.header = append(t.header, "language")
	}
	for _, id := range c.Layout.Questions {
		e, ok := c.Elements[id]
		if !ok || !e.Type.Answerable() {
			continue
		}
		t.elements = append(t.elements, e)
		t.header = append(t.header, e.Title)
	}
	for _, v := range c.Variables {
		t.variables = append(t.variables, v.Name)
		t.header = append(t.header, v.Name)
	}
	return t
}

// signInColumns reports whether a survey's tables carry the email and
// phone columns (contract section 18): while a sign-in method is on, and
// once any response recorded who signed in.
func signInColumns(c store.SurveyCollection) bool {
	return c.Settings.ServiceAuth || c.Settings.PhoneNumberAuth || c.Survey.HasRespondents
}

// scoreCell is a scored response's score cell, "correct/total" (contract
// section 15), and "" for a response without a score.
func scoreCell(r survey.Response) string {
	if r.Score == nil {
		return ""
	}
	return r.Score.String()
}

// respondentCells are a response's email and phone cells: its
// respondent's, "" for what it did not prove.
func respondentCells(r survey.Response) (email, phone string) {
	if r.Respondent == nil {
		return "", ""
	}
	return r.Respondent.Email, r.Respondent.Phone
}

// row renders a response's cells into dst (reused between rows).
func (t table) row(r survey.Response, dst []string) []string {
	v := r.View()
	dst = append(dst[:0], strconv.FormatInt(r.ID, 10), v.SubmittedAt, strconv.FormatInt(v.DurationSeconds, 10), strconv.FormatBool(r.Spam))
	if t.scored {
		dst = append(dst, scoreCell(r))
	}
	if t.signIn {
		email, phone := respondentCells(r)
		dst = append(dst, email, phone)
	}
	if t.language {
		dst = append(dst, r.Language) // "" on a response from before languages
	}
	for _, e := range t.elements {
		cell := ""
		if a, ok := r.Answers[e.ID]; ok {
			cell = e.AnswerText(a)
		}
		dst = append(dst, cell)
	}
	for _, name := range t.variables {
		dst = append(dst, variableText(r.Variables[name]))
	}
	return dst
}

// variableText is a variable's value as a cell: strings as they are,
// numbers as written, booleans as true/false, nothing as "".
func variableText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// bom starts every CSV file: spreadsheet programs then read it as UTF-8
// (Persian and Arabic answers included) rather than in a local code page.
const bom = "\uFEFF"

// csvWriter writes CSV files (RFC 4180, CRLF) a row at a time, each cell
// valid UTF-8 and guarded against formula injection.
type csvWriter struct {
	scratch bytes.Buffer
	w       *csv.Writer
	cells   []string
}

func newCSVWriter() *csvWriter {
	c := &csvWriter{}
	c.w = csv.NewWriter(&c.scratch)
	c.w.UseCRLF = true
	return c
}

// encode renders one row and returns its bytes, valid until the next call.
func (c *csvWriter) encode(cells []string) []byte {
	c.scratch.Reset()
	c.cells = c.cells[:0]
	for _, cell := range cells {
		c.cells = append(c.cells, spreadsheetSafe(strings.ToValidUTF8(cell, "\uFFFD")))
	}
	_ = c.w.Write(c.cells) // writes to a bytes.Buffer: no error
	c.w.Flush()
	return c.scratch.Bytes()
}

// spreadsheetSafe guards a cell against formula injection: a spreadsheet
// program runs a cell that starts with =, +, -, @, tab or carriage return
// as a formula, and answers and variables come from anyone who can reach
// the survey. Such a cell gets a leading apostrophe, which spreadsheets
// hide; numbers (a negative variable) are left as they are.
func spreadsheetSafe(cell string) string {
	if cell == "" {
		return cell
	}
	switch cell[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if _, err := strconv.ParseFloat(cell, 64); err == nil {
			return cell
		}
		return "'" + cell
	}
	return cell
}
