package awsenv

import (
	"context"
	"regexp"
	"sort"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Access is one partition a DynamoDB call reached, as IAM sees it when it
// checks dynamodb:LeadingKeys: the action IAM authorises (a transaction's
// parts are authorised one by one, as PutItem, UpdateItem, DeleteItem and
// ConditionCheckItem; a TransactGetItems' as GetItem), the index a Query
// reads ("" for the table), and the partition key value: the table's PK,
// or the index's partition key for a Query of an index.
type Access struct {
	Action string // "dynamodb:GetItem", ...
	Index  string // "" (the table) or the index's name
	Key    string // the partition key value ("" for a Scan)
}

// KeyLog records the partitions the DynamoDB calls made under a context
// reach (WithKeyLog). It is for tests that hold the code to the
// template's dynamodb:LeadingKeys allow-lists: the calls a function's
// traffic really makes, not the calls its author meant it to make.
type KeyLog struct {
	mu   sync.Mutex
	seen map[Access]int
}

type keyLogKey struct{}

// WithKeyLog returns ctx whose DynamoDB calls are recorded in l.
func WithKeyLog(ctx context.Context, l *KeyLog) context.Context {
	return context.WithValue(ctx, keyLogKey{}, l)
}

// Accesses returns what was recorded, sorted, each once.
func (l *KeyLog) Accesses() []Access {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Access, 0, len(l.seen))
	for a := range l.seen {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Action != b.Action {
			return a.Action < b.Action
		}
		if a.Index != b.Index {
			return a.Index < b.Index
		}
		return a.Key < b.Key
	})
	return out
}

func (l *KeyLog) add(a Access) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[Access]int{}
	}
	l.seen[a]++
}

// recordKeys logs the partitions of one DynamoDB call's input, when ctx
// carries a KeyLog.
func recordKeys(ctx context.Context, params any) {
	l, _ := ctx.Value(keyLogKey{}).(*KeyLog)
	if l == nil {
		return
	}
	for _, a := range Accesses(params) {
		l.add(a)
	}
}

// pkAttr is the table's partition key attribute; indexPK the partition key
// attribute of each index, as store.TableDefinition declares them.
const pkAttr = "PK"

var indexPK = map[string]string{"GSI1": "GSI1PK", "GSI2": "GSI2PK"}

// Accesses lists the partitions a DynamoDB operation's input names, as IAM
// evaluates dynamodb:LeadingKeys for it. Inputs of other services, and
// operations that name no item, give nothing.
func Accesses(params any) []Access {
	var out []Access
	add := func(action, index string, key map[string]types.AttributeValue, attr string) {
		out = append(out, Access{Action: "dynamodb:" + action, Index: index, Key: str(key[attr])})
	}
	switch in := params.(type) {
	case *dynamodb.GetItemInput:
		add("GetItem", "", in.Key, pkAttr)
	case *dynamodb.PutItemInput:
		add("PutItem", "", in.Item, pkAttr)
	case *dynamodb.UpdateItemInput:
		add("UpdateItem", "", in.Key, pkAttr)
	case *dynamodb.DeleteItemInput:
		add("DeleteItem", "", in.Key, pkAttr)
	case *dynamodb.BatchGetItemInput:
		for _, ka := range in.RequestItems {
			for _, k := range ka.Keys {
				add("BatchGetItem", "", k, pkAttr)
			}
		}
	case *dynamodb.BatchWriteItemInput:
		for _, reqs := range in.RequestItems {
			for _, r := range reqs {
				if r.PutRequest != nil {
					add("BatchWriteItem", "", r.PutRequest.Item, pkAttr)
				}
				if r.DeleteRequest != nil {
					add("BatchWriteItem", "", r.DeleteRequest.Key, pkAttr)
				}
			}
		}
	case *dynamodb.TransactWriteItemsInput:
		for _, it := range in.TransactItems {
			switch {
			case it.Put != nil:
				add("PutItem", "", it.Put.Item, pkAttr)
			case it.Update != nil:
				add("UpdateItem", "", it.Update.Key, pkAttr)
			case it.Delete != nil:
				add("DeleteItem", "", it.Delete.Key, pkAttr)
			case it.ConditionCheck != nil:
				add("ConditionCheckItem", "", it.ConditionCheck.Key, pkAttr)
			}
		}
	case *dynamodb.TransactGetItemsInput:
		for _, it := range in.TransactItems {
			if it.Get != nil {
				add("GetItem", "", it.Get.Key, pkAttr)
			}
		}
	case *dynamodb.QueryInput:
		index, attr := "", pkAttr
		if in.IndexName != nil {
			index = *in.IndexName
			attr = indexPK[index]
		}
		out = append(out, Access{Action: "dynamodb:Query", Index: index, Key: queryKey(in, attr)})
	case *dynamodb.ScanInput:
		index := ""
		if in.IndexName != nil {
			index = *in.IndexName
		}
		out = append(out, Access{Action: "dynamodb:Scan", Index: index})
	}
	return out
}

// keyEquality is the partition key's equality in a key condition:
// a name (or #placeholder) = :value.
var keyEquality = regexp.MustCompile(`([#\w]+)\s*=\s*(:\w+)`)

// queryKey is the partition key value a Query's key condition names.
func queryKey(in *dynamodb.QueryInput, attr string) string {
	if in.KeyConditionExpression != nil {
		for _, m := range keyEquality.FindAllStringSubmatch(*in.KeyConditionExpression, -1) {
			name := m[1]
			if n, ok := in.ExpressionAttributeNames[name]; ok {
				name = n
			}
			if name == attr {
				return str(in.ExpressionAttributeValues[m[2]])
			}
		}
	}
	if c, ok := in.KeyConditions[attr]; ok && len(c.AttributeValueList) == 1 {
		return str(c.AttributeValueList[0])
	}
	return ""
}

func str(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}
