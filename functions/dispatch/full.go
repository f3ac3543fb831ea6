package dispatch

import (
	"strconv"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/shared/store"
)

// CapFilterPattern is the stream event source's third filter (template.yaml
// holds it beside FilterPattern): the writes of a survey's allowances
// (store/places.go), from which survey.full is made (contract section 25;
// store.CapsFilled). One reaches the function per submission under a cap;
// it reads nothing unless a cap's counter reached its share there.
const CapFilterPattern = `{"eventName": ["INSERT", "MODIFY"], "dynamodb": {"Keys": {"SK": {"S": ["CAP"]}}}}`

// allowanceOf reads an allowance's record: its survey and the write; ok
// is false for any other record.
func allowanceOf(rec events.DynamoDBEventRecord) (int64, store.AllowanceWrite, bool) {
	if rec.EventName != "INSERT" && rec.EventName != "MODIFY" {
		return 0, store.AllowanceWrite{}, false
	}
	pk, okp := rec.Change.Keys["PK"]
	sk, oks := rec.Change.Keys["SK"]
	if !okp || !oks || pk.DataType() != events.DataTypeString || sk.DataType() != events.DataTypeString {
		return 0, store.AllowanceWrite{}, false
	}
	sid, k, ok := store.AllowanceOf(pk.String(), sk.String())
	if !ok {
		return 0, store.AllowanceWrite{}, false
	}
	return sid, store.AllowanceWrite{K: k, Before: numbers(rec.Change.OldImage), After: numbers(rec.Change.NewImage)}, true
}

func numbers(img map[string]events.DynamoDBAttributeValue) map[string]int64 {
	out := map[string]int64{}
	for name, v := range img {
		if v.DataType() == events.DataTypeNumber {
			if n, err := strconv.ParseInt(v.Number(), 10, 64); err == nil {
				out[name] = n
			}
		}
	}
	return out
}
