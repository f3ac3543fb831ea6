package survey

import (
	"encoding/json"
	"strconv"
	"time"
)

// Score is a response's score: correct answers out of the scored questions
// it was shown.
//
// Quizzes (contract section 15): with show_answer_sheet_enabled each
// response is scored over the shown questions that have a correct_choice;
// a responder may see their sheet, with the key or without it, as the
// settings and the survey's state say.
type Score struct {
	Correct int `json:"correct"`
	Total   int `json:"total"`
}

// String is the score as the CSV and the results table show it: "2/3".
func (s Score) String() string { return strconv.Itoa(s.Correct) + "/" + strconv.Itoa(s.Total) }

// ParseScore reads String's form back; ok is false for anything else.
func ParseScore(s string) (Score, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			c, err1 := strconv.Atoi(s[:i])
			t, err2 := strconv.Atoi(s[i+1:])
			if err1 != nil || err2 != nil || c < 0 || t < c {
				return Score{}, false
			}
			return Score{Correct: c, Total: t}, true
		}
	}
	return Score{}, false
}

// scored reports whether e counts in a score: a choice question with a key.
func scored(e *Element) bool {
	return e.CorrectChoice != nil && e.Type.Takes("correct_choice")
}

// correct reports whether the canonical answer a is exactly e's correct
// choice (one choice, the right one).
func correct(e *Element, a json.RawMessage) bool {
	v := parseAnswerValue(e.Type, a)
	return v != nil && len(v.ids) == 1 && v.ids[0] == *e.CorrectChoice
}

// AnsweredRight reports whether the canonical answer a is exactly e's
// correct choice, by id as the score counts it (never by a choice's text,
// which two choices may share and a translation changes).
func (e Element) AnsweredRight(a json.RawMessage) bool { return scored(&e) && correct(&e, a) }

// ScoreOf scores canonical answers over questions (display order) shown
// as shown says (nil: all).
func ScoreOf(questions []Element, shown map[int64]bool, answers map[int64]json.RawMessage) Score {
	var s Score
	for i := range questions {
		e := &questions[i]
		if !scored(e) || (shown != nil && !shown[e.ID]) {
			continue
		}
		s.Total++
		if a, ok := answers[e.ID]; ok && correct(e, a) {
			s.Correct++
		}
	}
	return s
}

// Sheet is a responder's answer sheet: their score and each scored
// question they were shown, with their answer and, when the key is shown,
// the correct choice's id.
type Sheet struct {
	Score     Score           `json:"score"`
	Questions []SheetQuestion `json:"questions"`
}

// SheetQuestion is one scored question of a sheet.
type SheetQuestion struct {
	ID            int64           `json:"id"`
	Title         string          `json:"title"`
	YourAnswer    json.RawMessage `json:"your_answer"`
	CorrectChoice *int64          `json:"correct_choice"`
}

// SheetOf builds the sheet of a response with score, its answers, over
// questions (display order) and their groups; key says whether the
// correct choices are shown.
func SheetOf(questions []Element, groupOf map[int64]int64, answers map[int64]json.RawMessage, score Score, key bool) Sheet {
	shown := Shown(questions, groupOf, answers)
	sh := Sheet{Score: score, Questions: []SheetQuestion{}}
	for i := range questions {
		e := &questions[i]
		if !scored(e) || !shown[e.ID] {
			continue
		}
		q := SheetQuestion{ID: e.ID, Title: e.Title, YourAnswer: json.RawMessage("null")}
		if a, ok := answers[e.ID]; ok {
			q.YourAnswer = a
		}
		if key {
			c := *e.CorrectChoice
			q.CorrectChoice = &c
		}
		sh.Questions = append(sh.Questions, q)
	}
	return sh
}

// AnswerKeyShown reports whether a responder's sheet shows the key at now:
// right after submitting with show_answer_key_after_response_submit, or
// once the survey is stopped or closed (by its date too; reopening hides
// it again) with show_answer_key_after_survey_stop.
func AnswerKeyShown(set Settings, sv Survey, now time.Time) bool {
	return set.ShowAnswerKeyAfterResponseSubmit || set.ShowAnswerKeyAfterSurveyStop && sv.State(now) != StateOpen
}
