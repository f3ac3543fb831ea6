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
// header, or a delta written instead of it, with its notify mark: the
// session's first save in a minute (store.SavePartial), which is sent as
// response.partial (contract section 20). Both writes are conditional
// (the header on the one read and on no response, a delta on its number):
// a save that lost to the session's other tab writes neither, and so
// notifies nothing; a delta whose save then found the session responded
// is taken back, and not sent; a list entry, put first, carries no mark.
// Its other saves never reach the function.
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
// partial then, as JSON. A delta's record is read by partialAtDelta. The
// image (the partial's header, as the save wrote it) holds the answers
// changed since the partial's last delta;
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
	if hash, n, ok := strings.Cut(strings.TrimPrefix(str("SK"), store.SessionSK("")), "#D#"); ok {
		return d.partialAtDelta(ctx, str("PK"), hash, n, str("updated_at"))
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

// partialAtDelta reads the partial a marked delta carries (written
// instead of the header by the session's first save in a minute): the
// header's id, times and variables with the delta's state, read from the
// session's items (store.PartialAtDelta). A delta taken back since (its
// save found the session responded, and answered 409) is
// errPartialTakenBack: nothing is sent.
func (d *Dispatcher) partialAtDelta(ctx context.Context, pk, hash, n, updated string) (store.ResponseRef, json.RawMessage, error) {
	num, err := strconv.Atoi(n)
	at, terr := time.Parse(survey.TimestampLayout, updated)
	if err != nil || terr != nil || num < 0 || len(hash) != 64 || pk == "" {
		return store.ResponseRef{}, nil, errNotPartial
	}
	p, found, err := d.Store.PartialAtDelta(ctx, pk, hash, num, updated)
	switch {
	case err != nil:
		return store.ResponseRef{}, nil, err
	case !found:
		return store.ResponseRef{}, nil, errPartialTakenBack
	}
	view, err := json.Marshal(p.View())
	if err != nil {
		return store.ResponseRef{}, nil, errNotPartial
	}
	return store.ResponseRef{SurveyID: p.SurveyID, ResponseID: p.ID, SubmittedAt: at}, view, nil
}

// errNotPartial is a record whose image is not a partial's.
var errNotPartial = errors.New("dispatch: not a partial's image")

// errPartialTakenBack is a marked delta its save took back.
var errPartialTakenBack = errors.New("dispatch: a partial's delta taken back")
