package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// Responses (contract sections 11 and 12).
//
// A survey's responses live in a partition of their own, RESPONSES#<sid>,
// so that 100,000 responses never weigh on the survey detail's Query of
// SURVEY#<sid>. A response is RESPONSES#<sid> / RESPONSE#<rid>, read by id
// with one GetItem. Its GSI1 keys order the survey's responses by
// submission: GSI1PK RTIME#<sid>, GSI1SK <submitted_at>#<rid>, so a page of
// the owner's list, newest first and filtered by time, is one Query of
// GSI1 reading the page's items only.
//
// An Idempotency-Key is RESPONSES#<sid> / IDEM#<sha256 of the key, hex>:
// the hash of the request body it came with and the response it recorded.
// The submission transaction puts it with attribute_not_exists, so a key
// records at most one response; it expires (TTL) after IdempotencyTTL.

const (
	responseSKPrefix = "RESPONSE#"
	idemSKPrefix     = "IDEM#"
	// IdempotencyTTL is how long an Idempotency-Key is remembered.
	IdempotencyTTL = 24 * time.Hour
)

// ResponsesPK is the partition of a survey's responses.
func ResponsesPK(sid int64) string { return "RESPONSES#" + pad(sid) }

// ResponseSK is a response's SK in its survey's responses partition.
func ResponseSK(rid int64) string { return responseSKPrefix + pad(rid) }

// ResponseTimeKey is GSI1PK of a survey's responses, ordered by submission.
func ResponseTimeKey(sid int64) string { return "RTIME#" + pad(sid) }

// ResponseTimeSK is GSI1SK of a response: its submission time (fixed
// width, UTC, microseconds, so byte order is time order) and its id.
func ResponseTimeSK(submitted time.Time, rid int64) string {
	return submitted.UTC().Format(survey.TimestampLayout) + "#" + pad(rid)
}

// IdempotencySK is where an Idempotency-Key's use is recorded (keyHash is
// the hex SHA-256 of the key).
func IdempotencySK(keyHash string) string { return idemSKPrefix + keyHash }

// responseItem is one response. Answers and variables are stored as JSON
// documents: they are written once, read whole, and never queried inside.
type responseItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	GSI1PK    string `dynamo:"GSI1PK"`
	GSI1SK    string `dynamo:"GSI1SK"`
	ID        int64  `dynamo:"id"`
	SurveyID  int64  `dynamo:"survey_id"`
	Submitted string `dynamo:"submitted_at"`
	Started   string `dynamo:"started_at"`
	Answers   string `dynamo:"answers"`
	Variables string `dynamo:"variables"`
	Code      string `dynamo:"code,omitempty"`
	// Shard and ReportAttrs are the aggregate shard and attributes the response
	// added to (reports.go), which deleting it takes back.
	Shard       int      `dynamo:"agg_shard"`
	ReportAttrs []string `dynamo:"agg,set,omitempty"`
}

func newResponseItem(r survey.Response) (responseItem, error) {
	answers, err := json.Marshal(r.Answers)
	if err != nil {
		return responseItem{}, fmt.Errorf("store: encode answers: %w", err)
	}
	vars := r.Variables
	if vars == nil {
		vars = map[string]any{}
	}
	variables, err := json.Marshal(vars)
	if err != nil {
		return responseItem{}, fmt.Errorf("store: encode variables: %w", err)
	}
	return responseItem{
		PK: ResponsesPK(r.SurveyID), SK: ResponseSK(r.ID),
		GSI1PK: ResponseTimeKey(r.SurveyID), GSI1SK: ResponseTimeSK(r.SubmittedAt, r.ID),
		ID: r.ID, SurveyID: r.SurveyID,
		Submitted: r.SubmittedAt.UTC().Format(survey.TimestampLayout),
		Started:   r.StartedAt.UTC().Format(survey.TimestampLayout),
		Answers:   string(answers), Variables: string(variables), Code: r.Code,
	}, nil
}

// EncodeResponse is the item of a response exactly as a submission writes
// it, without what the submission's transaction adds (its report shard and
// attributes): for tools that write responses in bulk.
func EncodeResponse(r survey.Response) (dynamo.Item, error) {
	it, err := newResponseItem(r)
	if err != nil {
		return nil, err
	}
	item, err := dynamo.MarshalItem(it)
	if err != nil {
		return nil, fmt.Errorf("store: encode response %d: %w", r.ID, err)
	}
	return item, nil
}

func (it responseItem) response() (survey.Response, error) {
	r := survey.Response{ID: it.ID, SurveyID: it.SurveyID, Code: it.Code}
	var err error
	if r.SubmittedAt, err = time.Parse(survey.TimestampLayout, it.Submitted); err != nil {
		return survey.Response{}, fmt.Errorf("store: response %d: submitted_at: %w", it.ID, err)
	}
	if r.StartedAt, err = time.Parse(survey.TimestampLayout, it.Started); err != nil {
		return survey.Response{}, fmt.Errorf("store: response %d: started_at: %w", it.ID, err)
	}
	if err := json.Unmarshal([]byte(it.Answers), &r.Answers); err != nil {
		return survey.Response{}, fmt.Errorf("store: response %d: answers: %w", it.ID, err)
	}
	d := json.NewDecoder(strings.NewReader(it.Variables))
	d.UseNumber()
	if err := d.Decode(&r.Variables); err != nil {
		return survey.Response{}, fmt.Errorf("store: response %d: variables: %w", it.ID, err)
	}
	return r, nil
}

func decodeResponse(item dynamo.Item) (survey.Response, error) {
	var it responseItem
	if err := dynamo.UnmarshalItem(item, &it); err != nil {
		return survey.Response{}, fmt.Errorf("store: decode response: %w", err)
	}
	return it.response()
}
