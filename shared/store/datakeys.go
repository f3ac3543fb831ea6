package store

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/datakey"
)

const (
	dataKeySK     = "DATAKEY"
	currentKeyPK  = "DATAKEY"
	currentKeySK  = "CURRENT"
	linkUsedSK    = "USED"
	dataKeyLayout = time.RFC3339Nano
)

type dataKeyItem struct {
	PK      string `dynamo:"PK"`
	SK      string `dynamo:"SK"`
	KeyID   string `dynamo:"key_id"`
	Wrapped []byte `dynamo:"wrapped,omitempty"`
	Created string `dynamo:"created"`
	// PutToken tells the put's own earlier attempt (see puttoken.go).
	PutToken string `dynamo:"put_token,omitempty"`
}

func (it dataKeyItem) dataKey() (datakey.Key, error) {
	var k datakey.Key
	id, err := hex.DecodeString(it.KeyID)
	if err != nil || len(id) != len(k.ID) {
		return k, fmt.Errorf("store: data key id %q", it.KeyID)
	}
	copy(k.ID[:], id)
	k.Wrapped = it.Wrapped
	if k.Created, err = time.Parse(dataKeyLayout, it.Created); err != nil {
		return k, fmt.Errorf("store: data key %s created %q: %w", it.KeyID, it.Created, err)
	}
	return k, nil
}

// CurrentDataKey reads the current data key: the pointer, then the key
// (the pointer carries the wrapped key too, so it is one read).
func (s *Store) CurrentDataKey(ctx context.Context) (datakey.Key, error) {
	var it dataKeyItem
	err := s.table.Get(AttrPK, currentKeyPK).Range(AttrSK, dynamo.Equal, currentKeySK).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return datakey.Key{}, datakey.ErrNoKey
	}
	if err != nil {
		return datakey.Key{}, s.fail("get current data key", err)
	}
	return it.dataKey()
}

// DataKey reads a data key by id.
func (s *Store) DataKey(ctx context.Context, id datakey.ID) (datakey.Key, error) {
	var it dataKeyItem
	err := s.table.Get(AttrPK, DataKeyPK(id.String())).Range(AttrSK, dynamo.Equal, dataKeySK).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return datakey.Key{}, datakey.ErrNoKey
	}
	if err != nil {
		return datakey.Key{}, s.fail("get data key", err)
	}
	return it.dataKey()
}

// PutDataKey stores a new wrapped data key (never overwriting one) and makes
// it current, unless the current key is no longer previous: then another
// container rotated first, and the new key is kept (its links open) but
// not made current.
func (s *Store) PutDataKey(ctx context.Context, k datakey.Key, previous *datakey.ID) error {
	token := newPutToken()
	it := dataKeyItem{PK: DataKeyPK(k.ID.String()), SK: dataKeySK, KeyID: k.ID.String(), Wrapped: k.Wrapped,
		Created: k.Created.UTC().Format(dataKeyLayout), PutToken: token}
	err := s.table.Put(it).If("attribute_not_exists(PK)").IncludeItemInCondCheckFail(true).Run(ctx)
	if err != nil && !(dynamo.IsCondCheckFailed(err) && s.sameDataKey(condFailedItem(err), token, k.Wrapped)) {
		return s.fail("put data key", err)
	}
	cur := it
	cur.PutToken = ""
	cur.PK, cur.SK = currentKeyPK, currentKeySK
	put := s.table.Put(cur)
	if previous == nil {
		put = put.If("attribute_not_exists(PK)")
	} else {
		put = put.If("key_id = ?", previous.String())
	}
	if err := put.Run(ctx); err != nil && !dynamo.IsCondCheckFailed(err) {
		return s.fail("put current data key", err)
	}
	return nil
}

// LinkUsed reports whether a response has used a one-use link (Submit
// spends it, in the response's transaction): one strongly consistent
// GetItem.
func (s *Store) LinkUsed(ctx context.Context, tokenID string) (bool, error) {
	var it map[string]any
	err := s.table.Get(AttrPK, LinkPK(tokenID)).Range(AttrSK, dynamo.Equal, linkUsedSK).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, s.fail("check link", err)
	}
	return true, nil
}

// sameDataKey reports whether item, the stored key that failed a put's
// condition, is the key being put: the put's own earlier attempt (its
// token), or the same wrapped key put again by a caller's retry. Any other
// key under the id is a real clash.
func (s *Store) sameDataKey(item map[string]types.AttributeValue, token string, wrapped []byte) bool {
	if ownEarlierPut(item, token) {
		return true
	}
	b, ok := item["wrapped"].(*types.AttributeValueMemberB)
	return ok && bytes.Equal(b.Value, wrapped)
}
