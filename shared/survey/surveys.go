package survey

import (
	"crypto/rand"
	"time"
)

// Languages: the code a survey is written in. Summaries show the integer,
// the detail the code string.
var languages = map[int64]string{1: "fa", 2: "tr", 3: "ar", 4: "en"}

// DefaultLanguage is a new survey's language (fa).
const DefaultLanguage = 1

// LanguageCode returns the code string of a language, and whether it is
// one the service knows.
func LanguageCode(n int64) (string, bool) {
	s, ok := languages[n]
	return s, ok
}

// DateLayout is the form of expiration dates.
const DateLayout = "2006-01-02"

// Survey is a survey's own record: what summaries show and what every
// write under it checks. Elements, variables and settings are stored beside
// it in the same item collection.
type Survey struct {
	ID                 int64
	AccountID          int64
	FolderID           int64
	Name               string
	Language           int64
	URLSlug            string
	PreviewCode        string
	ReportCode         string
	Created            time.Time
	Views              int64
	SubmittedResponses int64
	// SpamResponses counts the responses marked spam (contract section 16).
	SpamResponses int64
	// HasRespondents says some response recorded who signed in (contract
	// section 18): the owner's tables then carry the email and phone
	// columns even once no sign-in method is on.
	HasRespondents bool
	IsTemplate     bool
	Deleted        bool
	IsStopped      bool
	// PartialResponses counts the survey's partial responses (contract
	// section 20), from the stream; whole only as read with the survey's
	// collection (store.SurveyCollection), which holds its count item.
	PartialResponses int64

	// ExpirationDate is YYYY-MM-DD, or "" for none.
	ExpirationDate string
	// ClosedBySweep is set by the expiry sweep; reads derive closed from the
	// date as well, so a survey shows closed before the sweep runs.
	ClosedBySweep bool
	QuestionCount int
	Theme         Theme
}

// Closed reports whether the survey is closed at now (UTC): its expiration
// date is today or earlier, whether or not the sweep has run yet.
func (s Survey) Closed(now time.Time) bool {
	if s.ExpirationDate == "" {
		return false
	}
	return s.ClosedBySweep || s.ExpirationDate <= now.UTC().Format(DateLayout)
}

// Active is true exactly when the survey is not stopped, not closed and not
// deleted.
func (s Survey) Active(now time.Time) bool {
	return !s.IsStopped && !s.Closed(now) && !s.Deleted
}

// Subdomain is a custom domain of an account's public surveys.
type Subdomain struct {
	ID        int64  `json:"id"`
	Subdomain string `json:"subdomain"`
	IsActive  bool   `json:"is_active"`
}

// SurveySummary is a survey as folder lists show it.
type SurveySummary struct {
	ID                 int64      `json:"id"`
	Name               string     `json:"name"`
	FolderID           int64      `json:"folder_id"`
	Language           int64      `json:"language"`
	CreatedDate        string     `json:"created_date"`
	Active             bool       `json:"active"`
	IsStopped          bool       `json:"is_stopped"`
	Views              int64      `json:"views"`
	SubmittedResponses int64      `json:"submitted_responses"`
	PreviewCode        string     `json:"preview_code"`
	ReportCode         string     `json:"report_code"`
	URLSlug            string     `json:"url_slug"`
	IsTemplate         bool       `json:"is_template"`
	QuestionCount      int        `json:"question_count"`
	Theme              Theme      `json:"theme"`
	Subdomain          *Subdomain `json:"subdomain"`
}

// TimestampLayout renders created_date: UTC, microseconds, Z.
const TimestampLayout = "2006-01-02T15:04:05.000000Z"

// Summary returns the survey as folder lists show it, at now.
func (s Survey) Summary(now time.Time) SurveySummary {
	return SurveySummary{
		ID: s.ID, Name: s.Name, FolderID: s.FolderID, Language: s.Language,
		CreatedDate: s.Created.UTC().Format(TimestampLayout), Active: s.Active(now), IsStopped: s.IsStopped,
		Views: s.Views, SubmittedResponses: s.SubmittedResponses, PreviewCode: s.PreviewCode,
		ReportCode: s.ReportCode, URLSlug: s.URLSlug, IsTemplate: s.IsTemplate,
		QuestionCount: s.QuestionCount, Theme: s.Theme,
	}
}

// codeAlphabet is URL-safe and free of look-alikes (no 0/O, 1/l/I).
const codeAlphabet = "23456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ"

// NewCode returns a random code of n characters from a URL-safe alphabet
// of 57 symbols (about 5.8 bits each), drawn from crypto/rand without bias.
func NewCode(n int) string {
	out := make([]byte, 0, n)
	var buf [64]byte
	for len(out) < n {
		_, _ = rand.Read(buf[:])
		for _, b := range buf {
			// 57*4 = 228: reject 228..255 so every symbol is equally likely.
			if b < 228 && len(out) < n {
				out = append(out, codeAlphabet[int(b)%len(codeAlphabet)])
			}
		}
	}
	return string(out)
}

// Lengths of a new survey's random codes. A public slug of 10 symbols has
// about 58 bits: guessing one is hopeless, and collisions are checked anyway.
const (
	SlugLength        = 10
	PreviewCodeLength = 16
	ReportCodeLength  = 16
)
