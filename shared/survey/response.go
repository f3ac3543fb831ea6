package survey

import (
	"encoding/json"
	"time"
)

// Response is one recorded response of a survey: what a responder
// submitted (contract sections 11 and 12). Answers hold each answered
// element's canonical answer (as CheckAnswers returns it: compact JSON, ids
// as numbers); Variables the query-string variables and the link's values
// (the link's win), without the reserved is_unique key.
type Response struct {
	ID          int64
	SurveyID    int64
	SubmittedAt time.Time
	StartedAt   time.Time
	Answers     map[int64]json.RawMessage
	Variables   map[string]any
	// Code is the authentication code the session was started with, or "".
	Code string
	// Language is the code of the language the response was given in
	// (contract section 24), or "" on a response from before languages.
	Language string
	// Spam marks a repeated responder's response on a tag_spam survey.
	Spam bool
	// Location is where the responder was, or nil (contract section 16).
	Location *Location
	// Responder is where the response came from, or nil when the survey
	// hides responder details.
	Responder *ResponderDetails
	// Respondent is who signed in to respond (contract section 18), or
	// nil on a response without sign-in.
	Respondent *Respondent
	// EditedAt is when the responder last edited it, or zero.
	EditedAt time.Time
	// Score is the response's quiz score, fixed at submission; nil when
	// the survey was not scored then.
	Score *Score
}

// Response limits. An item of DynamoDB holds at most 400 KB: the answers
// of one response are bounded well below it.
const (
	// MaxResponseBytes bounds the encoded answers and variables of one
	// response.
	MaxResponseBytes = 300 << 10
	// MaxIdempotencyKey is the longest Idempotency-Key header accepted.
	MaxIdempotencyKey = 255
)

// Respondent is the identities a responder proved with one-time codes
// (contract section 18): an email address (lower-cased, its domain in
// punycode) and a mobile number (E.164), either or both. The owner sees
// them whatever hidden_responder_details says: they are why the owner
// asked for sign-in.
type Respondent struct {
	Email string `json:"email,omitempty"`
	Phone string `json:"phone,omitempty"`
}

// ResponseView is a response as the owner's API answers it (section 12).
type ResponseView struct {
	ID              int64                      `json:"id"`
	SubmittedAt     string                     `json:"submitted_at"`
	StartedAt       string                     `json:"started_at"`
	DurationSeconds int64                      `json:"duration_seconds"`
	Answers         map[string]json.RawMessage `json:"answers"`
	Variables       map[string]any             `json:"variables"`
	Code            *string                    `json:"code"`
	Language        *string                    `json:"language"`
	Spam            bool                       `json:"spam"`
	Location        *Location                  `json:"location"`
	Responder       *ResponderDetails          `json:"responder"`
	Respondent      *Respondent                `json:"respondent"`
	EditedAt        *string                    `json:"edited_at"`
	Score           *Score                     `json:"score,omitempty"`
}

// View renders the response for its owner.
func (r Response) View() ResponseView {
	v := ResponseView{
		ID: r.ID, SubmittedAt: r.SubmittedAt.UTC().Format(TimestampLayout),
		StartedAt:       r.StartedAt.UTC().Format(TimestampLayout),
		DurationSeconds: int64(r.SubmittedAt.Sub(r.StartedAt).Seconds()),
		Answers:         make(map[string]json.RawMessage, len(r.Answers)), Variables: r.Variables,
		Spam: r.Spam, Location: r.Location, Responder: r.Responder, Respondent: r.Respondent,
	}
	if !r.EditedAt.IsZero() {
		at := r.EditedAt.UTC().Format(TimestampLayout)
		v.EditedAt = &at
	}
	if v.DurationSeconds < 0 {
		v.DurationSeconds = 0
	}
	for id, a := range r.Answers {
		if f, ok := DecodeFileAnswer(a); ok {
			a = f.View(nil)
		}
		v.Answers[itoa(id)] = a
	}
	if v.Variables == nil {
		v.Variables = map[string]any{}
	}
	if r.Code != "" {
		c := r.Code
		v.Code = &c
	}
	if r.Language != "" {
		l := r.Language
		v.Language = &l
	}
	v.Score = r.Score
	return v
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
