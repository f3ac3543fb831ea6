package store

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/shared/survey"
)

// attrPutToken is the attribute that holds a create's put token.
//
// A create that meets an item carrying its own put token is its own earlier
// attempt: docs/data-model.md#writes-whose-answer-was-lost.
const attrPutToken = "put_token"

// putTokenLength is the length of a put token: 16 symbols of 57, 93 bits.
const putTokenLength = 16

func newPutToken() string { return survey.NewCode(putTokenLength) }

// ownEarlierPut reports whether item, the item that failed a create's
// condition, is that create's own earlier attempt: it carries the
// create's token.
func ownEarlierPut(item map[string]types.AttributeValue, token string) bool {
	v, ok := item[attrPutToken].(*types.AttributeValueMemberS)
	return ok && token != "" && v.Value == token
}

// condFailedItem is the item that failed a single write's condition, when
// the write asked for it; else nil.
func condFailedItem(err error) map[string]types.AttributeValue {
	var cfe *types.ConditionalCheckFailedException
	if errors.As(err, &cfe) {
		return cfe.Item
	}
	return nil
}

// txItemAt is the item that failed the condition of part i of a cancelled
// transaction, when that part asked for it; else nil.
func txItemAt(err error, i int) map[string]types.AttributeValue {
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) && i < len(tce.CancellationReasons) {
		return tce.CancellationReasons[i].Item
	}
	return nil
}
