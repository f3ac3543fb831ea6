package store

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

const (
	responseSKPrefix = "RESPONSE#"
	idemSKPrefix     = "IDEM#"
	// IdempotencyTTL is how long an Idempotency-Key is remembered.
	IdempotencyTTL = 24 * time.Hour
)

// ResponseShards is how many partition keys a survey's responses (and
// Idempotency-Keys) are spread over, and as many GSI1 partitions their
// order by submission. A submission writes 4-6 write units there (a
// response of about 1 KB, compressed, and its key, transactional) and 1-2
// in GSI1: 16 shards carry 1,000 submissions a second of one survey at
// under 400 units a second per partition key, under DynamoDB's 1,000.
// The owner's list merges one Query per shard.
const ResponseShards = 16

// ResponsesPK is the partition of a survey's responses of shard 0, which
// is also where every response written before the shards lives.
func ResponsesPK(sid int64) string { return "RESPONSES#" + pad(sid) }

// ResponsesShardPK is the partition of one shard of a survey's responses.
func ResponsesShardPK(sid int64, shard int) string {
	if shard == 0 {
		return ResponsesPK(sid)
	}
	return ResponsesPK(sid) + "#" + strconv.Itoa(shard)
}

// ResponseShard is the shard a response id lives in: a hash of the id,
// since the ids of one container's lease are consecutive (ids.go).
//
// Responses are spread over ResponseShards partitions so that a viral
// survey stays under a partition's write limit:
// docs/data-model.md#responses-and-their-shards.
func ResponseShard(rid int64) int {
	return int(((uint64(rid) * 0x9E3779B97F4A7C15) >> 60) % ResponseShards)
}

// IdempotencyShard is the shard an Idempotency-Key lives in (keyHash is
// hex SHA-256: its first byte is uniform).
func IdempotencyShard(keyHash string) int {
	if len(keyHash) < 2 {
		return 0
	}
	b, err := strconv.ParseUint(keyHash[:2], 16, 8)
	if err != nil {
		return 0
	}
	return int(b % ResponseShards)
}

// ResponseTimeShardKey is GSI1PK of one shard of a survey's responses,
// ordered by submission (shard 0: ResponseTimeKey, as before the shards).
func ResponseTimeShardKey(sid int64, shard int) string {
	if shard == 0 {
		return ResponseTimeKey(sid)
	}
	return ResponseTimeKey(sid) + "#" + strconv.Itoa(shard)
}

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
// documents: they are written once, read whole, and never queried inside;
// compressed together in Docs when that is smaller (responsedocs.go:
// setDocs writes them, docs reads them).
type responseItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	GSI1PK    string `dynamo:"GSI1PK"`
	GSI1SK    string `dynamo:"GSI1SK"`
	ID        int64  `dynamo:"id"`
	SurveyID  int64  `dynamo:"survey_id"`
	Submitted string `dynamo:"submitted_at"`
	Started   string `dynamo:"started_at"`
	Answers   string `dynamo:"answers,omitempty"`
	Variables string `dynamo:"variables,omitempty"`
	Docs      []byte `dynamo:"z,omitempty"`
	Code      string `dynamo:"code,omitempty"`
	Language  string `dynamo:"lang,omitempty"`
	// Score is the quiz score "correct/total", when scored.
	Score string `dynamo:"score,omitempty"`
	// Shard and ReportAttrs are the aggregate shard and attributes the response
	// added to (reports.go), which deleting it takes back.
	Shard       int      `dynamo:"agg_shard"`
	ReportAttrs []string `dynamo:"agg,set,omitempty"`
	// Section 16: a repeated responder's mark, where the responder was
	// and came from (JSON), and the time of its last edit.
	Spam      bool   `dynamo:"spam,omitempty"`
	Location  string `dynamo:"location,omitempty"`
	Responder string `dynamo:"responder,omitempty"`
	// Section 18: who signed in to respond (JSON), when anyone did.
	Respondent string `dynamo:"respondent,omitempty"`
	Edited     string `dynamo:"edited_at,omitempty"`
	// Tally marks a submitted response, whose counts the tally function
	// adds from the stream (tally.go); imported responses are counted as
	// they are imported and carry no mark. NewVariables are the variables
	// whose has_response it sets.
	Tally        bool    `dynamo:"tally,omitempty"`
	NewVariables []int64 `dynamo:"vars_new,set,omitempty"`
	// Files are the object keys of the files the response answers with
	// (contract section 16): the mark the dispatch function finds on the
	// stream's INSERT and MODIFY records to keep them (functions/dispatch,
	// files.go), so that the submission itself never untags a file.
	Files []string `dynamo:"files,set,omitempty"`
	// Places are the places of exact caps the response took (contract
	// section 25, places.go): counter -> allowance, given back when it
	// is deleted.
	Places map[string]int `dynamo:"places,omitempty"`
}

// AttrFiles is the response attribute that lists its files' object keys
// (a string set; absent when it has none).
const AttrFiles = "files"

// newResponseItem is the item of r, and the size of its answers and
// variables as JSON (what survey.MaxResponseBytes bounds, however they are
// stored).
func newResponseItem(r survey.Response) (responseItem, int, error) {
	answers, err := json.Marshal(r.Answers)
	if err != nil {
		return responseItem{}, 0, fmt.Errorf("store: encode answers: %w", err)
	}
	vars := r.Variables
	if vars == nil {
		vars = map[string]any{}
	}
	variables, err := json.Marshal(vars)
	if err != nil {
		return responseItem{}, 0, fmt.Errorf("store: encode variables: %w", err)
	}
	it := responseItem{
		PK: ResponsesShardPK(r.SurveyID, ResponseShard(r.ID)), SK: ResponseSK(r.ID),
		GSI1PK: ResponseTimeShardKey(r.SurveyID, ResponseShard(r.ID)), GSI1SK: ResponseTimeSK(r.SubmittedAt, r.ID),
		ID: r.ID, SurveyID: r.SurveyID,
		Submitted: r.SubmittedAt.UTC().Format(survey.TimestampLayout),
		Started:   r.StartedAt.UTC().Format(survey.TimestampLayout),
		Code:      r.Code,
		Language:  r.Language, Spam: r.Spam,
		Score: scoreAttr(r.Score),
	}
	it.setDocs(string(answers), string(variables))
	if r.Location != nil {
		b, _ := json.Marshal(r.Location)
		it.Location = string(b)
	}
	if r.Responder != nil {
		b, _ := json.Marshal(r.Responder)
		it.Responder = string(b)
	}
	if r.Respondent != nil {
		b, _ := json.Marshal(r.Respondent)
		it.Respondent = string(b)
	}
	if !r.EditedAt.IsZero() {
		it.Edited = r.EditedAt.UTC().Format(survey.TimestampLayout)
	}
	return it, len(answers) + len(variables), nil
}

// EncodeResponse is the item of a response exactly as a submission writes
// it, without what the submission's transaction adds (its report shard and
// attributes): for tools that write responses in bulk.
func EncodeResponse(r survey.Response) (dynamo.Item, error) {
	it, _, err := newResponseItem(r)
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
	r := survey.Response{ID: it.ID, SurveyID: it.SurveyID, Code: it.Code, Language: it.Language, Spam: it.Spam}
	if sc, ok := survey.ParseScore(it.Score); ok {
		r.Score = &sc
	}
	var err error
	if it.Location != "" {
		if err := json.Unmarshal([]byte(it.Location), &r.Location); err != nil {
			return survey.Response{}, fmt.Errorf("store: response %d: location: %w", it.ID, err)
		}
	}
	if it.Responder != "" {
		if err := json.Unmarshal([]byte(it.Responder), &r.Responder); err != nil {
			return survey.Response{}, fmt.Errorf("store: response %d: responder: %w", it.ID, err)
		}
	}
	if it.Respondent != "" {
		if err := json.Unmarshal([]byte(it.Respondent), &r.Respondent); err != nil {
			return survey.Response{}, fmt.Errorf("store: response %d: respondent: %w", it.ID, err)
		}
	}
	if it.Edited != "" {
		if r.EditedAt, err = time.Parse(survey.TimestampLayout, it.Edited); err != nil {
			return survey.Response{}, fmt.Errorf("store: response %d: edited_at: %w", it.ID, err)
		}
	}
	if r.SubmittedAt, err = time.Parse(survey.TimestampLayout, it.Submitted); err != nil {
		return survey.Response{}, fmt.Errorf("store: response %d: submitted_at: %w", it.ID, err)
	}
	if r.StartedAt, err = time.Parse(survey.TimestampLayout, it.Started); err != nil {
		return survey.Response{}, fmt.Errorf("store: response %d: started_at: %w", it.ID, err)
	}
	answers, variables, err := it.docs()
	if err != nil {
		return survey.Response{}, fmt.Errorf("store: response %d: %w", it.ID, err)
	}
	if err := json.Unmarshal([]byte(answers), &r.Answers); err != nil {
		return survey.Response{}, fmt.Errorf("store: response %d: answers: %w", it.ID, err)
	}
	d := json.NewDecoder(strings.NewReader(variables))
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

func scoreAttr(s *survey.Score) string {
	if s == nil {
		return ""
	}
	return s.String()
}
