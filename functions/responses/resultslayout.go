package responses

import (
	"encoding/json"
	"strconv"
	"strings"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// The results table's col_type values: what a column holds. A question's
// and a variable's id is its object's; a meta column has no object, and its
// id is its col_type (contract section 21 amended: integers, unique among
// the meta columns, so that a reader typing int Id reads them).
const (
	colQuestion      = 1
	colVariable      = 2
	colResponderID   = 3
	colResponderCode = 4
	colDuration      = 5
	colSubmittedAt   = 6
	// Ours (contract section 18): who signed in to respond.
	colEmail = 7
	colPhone = 8
	// Ours (contract section 20): a partial's last page.
	colLastPage = 9
	// Ours (contract sections 16 and 15): a repeated responder's mark, and
	// a scored survey's correct/total.
	colSpam  = 10
	colScore = 11
	// Ours (contract section 24): the language a response was given in.
	colLanguage = 12
)

// resultsColumn is a results-table header as the real clients read it: the
// Python SDK reads id, title, choices and allow_multiple_select (form.py
// 48-56); the C# reader (ResponseHeader.cs) reads col_type and the sub
// questions' type as integers, and a null type as a meta column.
type resultsColumn struct {
	ID                     *int64          `json:"id"`
	Title                  string          `json:"title"`
	ColType                int             `json:"col_type"`
	CellType               string          `json:"cell_type"`
	Type                   *int64          `json:"type"`
	QuestionNumberIsHidden bool            `json:"question_number_is_hidden"`
	AllowMultipleSelect    bool            `json:"allow_multiple_select"`
	Choices                []resultsChoice `json:"choices"`
	SubQuestions           []resultsColumn `json:"sub_questions"`
}

// resultsChoice is a choice in a header; a multi-select question has a
// cell per choice, in this order.
type resultsChoice struct {
	ID      int64   `json:"id"`
	Name    string  `json:"name"`
	AltName *string `json:"alt_name"`
}

// resultsCell is how one question fills its cells of a row.
type resultsCell struct {
	element survey.Element
	multi   bool // a cell per choice
}

// resultsLayout is a survey's results-table columns and how a response
// fills them: the responder's id and code, a cell per single-answer
// question (groups' questions included), a cell per choice of a
// multi-select question, one per variable, then the duration in seconds
// and the submission time (Jalali in Tehran on Persian surveys).
type resultsLayout struct {
	header    []resultsColumn
	cells     []resultsCell
	variables []string
	jalali    bool
	signIn    bool // email and phone columns follow responder_code
	spam      bool // a spam column follows the variables (responses, not partials)
	scored    bool // a score column follows spam (the survey is scored)
	language  bool // a language column follows (responses, not partials)
	width     int
}

func metaColumn(title string, colType int, cellType string) resultsColumn {
	id := int64(colType)
	return resultsColumn{ID: &id, Title: title, ColType: colType, CellType: cellType, Choices: []resultsChoice{}, SubQuestions: []resultsColumn{}}
}

// newResultsLayout is the layout of c's responses, or of its partials
// (partial), which are never spam nor scored and carry neither column.
func newResultsLayout(c store.SurveyCollection, partial bool) resultsLayout {
	lang, _ := survey.LanguageCode(c.Survey.Language)
	t := resultsLayout{jalali: lang == "fa", signIn: signInColumns(c), spam: !partial, scored: !partial && c.Settings.ShowAnswerSheetEnabled, language: !partial}
	t.header = append(t.header, metaColumn("responder_id", colResponderID, "number"), metaColumn("responder_code", colResponderCode, "text"))
	if t.signIn {
		t.header = append(t.header, metaColumn("email", colEmail, "text"), metaColumn("phone", colPhone, "text"))
	}
	for _, page := range c.Layout.Pages() {
		first, ok := c.Elements[page[0]]
		if !ok {
			continue
		}
		if first.Type != survey.TypeGroup {
			if first.Type.Answerable() {
				t.header = append(t.header, t.question(first))
			}
			continue
		}
		group := questionColumn(first)
		for _, id := range page[1:] {
			if e, ok := c.Elements[id]; ok && e.Type.Answerable() {
				group.SubQuestions = append(group.SubQuestions, t.question(e))
			}
		}
		if len(group.SubQuestions) > 0 {
			t.header = append(t.header, group)
		}
	}
	for _, v := range c.Variables {
		t.variables = append(t.variables, v.Name)
		col := metaColumn(v.Name, colVariable, "text")
		id := v.ID
		col.ID = &id
		t.header = append(t.header, col)
	}
	// spam, score and language (the CSV's, contract sections 15, 16 and
	// 24) go after the answers and variables: the clients read the first
	// two cells and the last two by position, and the answers from the
	// third on.
	if t.spam {
		t.header = append(t.header, metaColumn("spam", colSpam, "boolean"))
		t.width++
	}
	if t.scored {
		t.header = append(t.header, metaColumn("score", colScore, "text"))
		t.width++
	}
	if t.language {
		t.header = append(t.header, metaColumn("language", colLanguage, "text"))
		t.width++
	}
	t.header = append(t.header, metaColumn("responding_duration", colDuration, "number"), metaColumn("submitted_date_time", colSubmittedAt, "datetime"))
	t.width += 4 + len(t.variables)
	if t.signIn {
		t.width += 2
	}
	for _, c := range t.cells {
		if c.multi {
			t.width += len(c.element.Choices)
		} else {
			t.width++
		}
	}
	return t
}

// question adds e's cells and answers its header.
func (t *resultsLayout) question(e survey.Element) resultsColumn {
	col := questionColumn(e)
	t.cells = append(t.cells, resultsCell{element: e, multi: col.AllowMultipleSelect})
	return col
}

func questionColumn(e survey.Element) resultsColumn {
	id, typ := e.ID, int64(e.Type)
	col := resultsColumn{ID: &id, Title: e.Title, ColType: colQuestion, CellType: cellType(e.Type), Type: &typ,
		QuestionNumberIsHidden: e.QuestionNumberIsHidden, Choices: make([]resultsChoice, 0, len(e.Choices)), SubQuestions: []resultsColumn{}}
	for _, ch := range e.Choices {
		col.Choices = append(col.Choices, resultsChoice{ID: ch.ID, Name: ch.Name, AltName: ch.AltName})
	}
	switch e.Type {
	case survey.TypeMultipleChoice, survey.TypePictureChoice, survey.TypeDropdown:
		col.AllowMultipleSelect = e.AllowMultipleSelect && len(e.Choices) > 0
	}
	return col
}

// cellType names what a question's cells hold.
func cellType(t survey.ElementType) string {
	switch t {
	case survey.TypeMultipleChoice, survey.TypePictureChoice, survey.TypeDropdown:
		return "choice"
	case survey.TypeOpinionScale, survey.TypeRating:
		return "number"
	case survey.TypeFileUpload:
		return "file"
	}
	return "text"
}

// row is a response's cells: strings for answers ("" unanswered), and for
// a multi-select question the choice's name where chosen and null
// otherwise (the C# reader skips nulls, SurveyApiService.cs 228).
func (t resultsLayout) row(r survey.Response) []any {
	out := make([]any, 0, t.width)
	var code any
	if r.Code != "" {
		code = r.Code
	}
	out = append(out, r.ID, code)
	if t.signIn {
		email, phone := respondentCells(r)
		out = append(out, email, phone)
	}
	for _, c := range t.cells {
		a, answered := r.Answers[c.element.ID]
		if !c.multi {
			cell := ""
			if answered {
				cell = c.element.AnswerText(a)
			}
			out = append(out, cell)
			continue
		}
		chosen := chosenIDs(a)
		for _, ch := range c.element.Choices {
			if _, ok := chosen[ch.ID]; ok {
				out = append(out, ch.Name)
			} else {
				out = append(out, nil)
			}
		}
	}
	for _, name := range t.variables {
		out = append(out, variableText(r.Variables[name]))
	}
	if t.spam {
		out = append(out, r.Spam)
	}
	if t.scored {
		out = append(out, scoreCell(r))
	}
	if t.language {
		var lang any // null on a response from before languages
		if r.Language != "" {
			lang = r.Language
		}
		out = append(out, lang)
	}
	v := r.View()
	at := v.SubmittedAt
	if t.jalali {
		at = jalaliDateTime(r.SubmittedAt)
	}
	return append(out, v.DurationSeconds, at)
}

// chosenIDs are the choice ids of a multi-select answer: a list of ids, or
// of objects with an id (a choice with the responder's own text).
func chosenIDs(a json.RawMessage) map[int64]struct{} {
	var items []json.RawMessage
	if len(a) == 0 || json.Unmarshal(a, &items) != nil {
		return nil
	}
	ids := make(map[int64]struct{}, len(items))
	for _, it := range items {
		var id int64
		if json.Unmarshal(it, &id) == nil {
			ids[id] = struct{}{}
			continue
		}
		var obj struct {
			ID *int64 `json:"id"`
		}
		if json.Unmarshal(it, &obj) == nil && obj.ID != nil {
			ids[*obj.ID] = struct{}{}
		}
	}
	return ids
}

// sortChoiceMsg is the sort parameter's error: responses are kept in the
// order they were submitted, so that is the one order a page can take.
var sortChoiceMsg = `Responses sort by their submission time only: "asc", "desc", or the column form "{col_type},` +
	strconv.Itoa(colSubmittedAt) + `,asc" / "{col_type},` + strconv.Itoa(colSubmittedAt) + `,desc" (e.g. "3,6,asc").`

// parseSort reads sort: "asc", "desc", or the real service's column form
// {col_type},{id},{asc|desc} (the published API reference) naming the
// submission-time column. A meta column is named by its id (unique among
// the meta columns), so the col_type part may be any meta column's: the
// reference writes "3,6,asc" (3 the real service's meta col_type), ours
// reads "6,6,asc"; "6,,asc" (id empty, null or 0) stays as it was. It
// answers whether the order is ascending, or the error's message.
func parseSort(v string) (ascending bool, msg string) {
	switch v {
	case "asc":
		return true, ""
	case "desc":
		return false, ""
	}
	parts := strings.Split(v, ",")
	if len(parts) != 3 {
		return false, `"` + v + `" is not a valid choice.`
	}
	col, obj, dir := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1]), strings.TrimSpace(parts[2])
	submitted := strconv.Itoa(colSubmittedAt)
	named := obj == submitted && metaColType(col)
	legacy := col == submitted && (obj == "" || obj == "null" || obj == "0")
	if !(named || legacy) || (dir != "asc" && dir != "desc") {
		return false, sortChoiceMsg
	}
	return dir == "asc", ""
}

// metaColType reports whether s is the col_type of a meta column.
func metaColType(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= colResponderID && n <= colLanguage && strconv.Itoa(n) == s
}
