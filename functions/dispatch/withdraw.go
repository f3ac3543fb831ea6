package dispatch

import (
	"github.com/aws/aws-lambda-go/events"

	"surveyservice/shared/store"
)

// WithdrawFilterPattern is the stream event source's fourth filter
// (template.yaml holds it beside FilterPattern): a key's record that a
// submission's fence marked withdrawn (store.AttrWithdraw). The fence
// withdraws the response itself; the dispatch finishes a withdrawal its
// request ran out of time for (store.FinishWithdrawal), and finds the
// others done with one read.
const WithdrawFilterPattern = `{"eventName": ["MODIFY"], "dynamodb": {"NewImage": {"` + store.AttrWithdraw + `": {"S": [{"exists": true}]}}}}`

// withdrawalOf reads a marked key record's withdrawal (its plan, as the
// store wrote it); ok is false for any other record.
func withdrawalOf(rec events.DynamoDBEventRecord) (string, bool) {
	if rec.EventName != "MODIFY" {
		return "", false
	}
	v, ok := rec.Change.NewImage[store.AttrWithdraw]
	if !ok || v.DataType() != events.DataTypeString {
		return "", false
	}
	return v.String(), true
}
