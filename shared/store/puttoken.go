package store

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/shared/survey"
)

// Writes whose answer was lost.
//
// The SDK retries a call whose answer did not arrive (an attempt timeout, a
// reset connection). When the first attempt had in fact landed, the retry
// of a create, written on the condition that its item does not exist yet,
// meets its own item and fails that condition: the create is done, yet it
// looked like an id handed out twice and used to answer 500. DynamoDB makes
// a retried TransactWriteItems idempotent (the SDK sends a ClientRequestToken)
// but not a PutItem, and the local emulator honours neither.
//
// So every create stores a random put token in its new item and asks for
// the existing item when its condition fails (ReturnValuesOnConditionCheckFailure
// ALL_OLD: no extra read). The item carrying this create's token is the
// create's own earlier attempt: success. Any other item is a real
// collision: a fresh id (see idTaken).

// attrPutToken is the attribute that holds a create's put token.
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
