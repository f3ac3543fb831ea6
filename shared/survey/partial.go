package survey

import "encoding/json"

// PartialView is a partial response as its owner sees it (contract
// section 20): the list's `?status=partial` items and the
// response.partial webhooks' data.response.
type PartialView struct {
	ID              int64                      `json:"id"`
	Answers         map[string]json.RawMessage `json:"answers"`
	Variables       map[string]any             `json:"variables"`
	LastPage        int                        `json:"last_page"`
	StartedAt       string                     `json:"started_at"`
	UpdatedAt       string                     `json:"updated_at"`
	DurationSeconds int64                      `json:"duration_seconds"`
}
