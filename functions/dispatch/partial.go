package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// PartialFilterPattern is the stream event source's second filter
// (template.yaml holds it beside FilterPattern): a session's partial
// header written with its notify mark, the session's first save in a
// minute (store.SavePartial), which is sent as response.partial (contract
// section 20). The header's write is conditional on the header read (and
// on no response): a save that lost to the session's other tab, or to its
// submission, writes none, and so notifies nothing; its list entry, put
// before, carries no mark. Its other saves never reach the function.
const PartialFilterPattern = `{"eventName": ["INSERT", "MODIFY"], "dynamodb": {"Keys": {"SK": {"S": [{"prefix": "SESSION#"}]}}, "NewImage": {"notify": {"BOOL": [true]}}}}`

// isPartial reports whether a record is a notifying save of a partial.
func isPartial(rec events.DynamoDBEventRecord) bool {
	if rec.EventName != "INSERT" && rec.EventName != "MODIFY" {
		return false
	}
	sk, ok := rec.Change.Keys["SK"]
	if !ok || sk.DataType() != events.DataTypeString || !strings.HasPrefix(sk.String(), "SESSION#") || len(sk.String()) <= len("SESSION#") {
		return false
	}
	v, ok := rec.Change.NewImage["notify"]
	return ok && v.DataType() == events.DataTypeBoolean && v.Boolean()
}

// partialOf reads a notifying partial's record: the delivery's reference
// (the partial's id, its time the save's) and the owner's view of the
// partial then, as JSON. The image (the partial's header, as the save
// wrote it) holds the answers changed since the partial's last delta;
// when it names deltas, their answers are read from the session's items
// (store.PartialAnswers: written before the header, and once, so they
// are what they were then).
func (d *Dispatcher) partialOf(ctx context.Context, rec events.DynamoDBEventRecord) (store.ResponseRef, json.RawMessage, error) {
	img := rec.Change.NewImage
	str := func(name string) string {
		if v, ok := img[name]; ok && v.DataType() == events.DataTypeString {
			return v.String()
		}
		return ""
	}
	num := func(name string) (int64, bool) {
		if v, ok := img[name]; ok && v.DataType() == events.DataTypeNumber {
			n, err := strconv.ParseInt(v.Number(), 10, 64)
			return n, err == nil
		}
		return 0, false
	}
	id, ok1 := num(store.AttrPartialID)
	sid, ok2 := num("survey_id")
	page, ok3 := num("last_page")
	base, _ := num("delta_base")
	deltas, _ := num("deltas")
	updated, err1 := time.Parse(survey.TimestampLayout, str("updated_at"))
	started, err2 := time.Parse(survey.TimestampLayout, str("started_at"))
	p := store.Partial{ID: id, SurveyID: sid, LastPage: int(page), StartedAt: started, UpdatedAt: updated}
	err3 := json.Unmarshal([]byte(str("variables")), &p.Variables)
	hash, ok4 := strings.CutPrefix(str("SK"), store.SessionSK(""))
	ok4 = ok4 && len(hash) == 64 && str("PK") != ""
	if !ok1 || !ok2 || !ok3 || !ok4 || err1 != nil || err2 != nil || err3 != nil || id <= 0 || sid <= 0 || base < 0 || deltas < base {
		return store.ResponseRef{}, nil, errNotPartial
	}
	head := store.PartialHead{Session: hash, Base: int(base), Deltas: int(deltas), Pending: str("answers"), ID: id, SurveyID: sid, PartitionKey: str("PK")}
	var err error
	if head.Deltas > head.Base {
		p.Answers, err = d.Store.PartialAnswers(ctx, head)
	} else {
		err = json.Unmarshal([]byte(head.Pending), &p.Answers)
		if err != nil {
			err = errNotPartial
		}
	}
	if err != nil {
		return store.ResponseRef{}, nil, err
	}
	view, err := json.Marshal(p.View())
	if err != nil {
		return store.ResponseRef{}, nil, errNotPartial
	}
	return store.ResponseRef{SurveyID: sid, ResponseID: id, SubmittedAt: updated}, view, nil
}

// errNotPartial is a record whose image is not a partial's.
var errNotPartial = errors.New("dispatch: not a partial's image")
