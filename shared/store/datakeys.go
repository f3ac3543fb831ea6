package store

import (
	"context"
	"encoding/hex"
	"fmt"
	"time"

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
	// PutToken tells the put's own earlier attempt (see landed.go).
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
	if err == dynamo.ErrNotFound {
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
	if err == dynamo.ErrNotFound {
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
	if err != nil && !(dynamo.IsCondCheckFailed(err) && landed(condFailedItem(err), token)) {
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

// ConsumeLink records the first use of a one-use link; first is false when
// it was used before. One conditional write, so of racing uses one wins;
// the SDK's retry of the winner's write, whose answer was lost, finds the
// winner's own put token and still answers first (see landed.go).
func (s *Store) ConsumeLink(ctx context.Context, tokenID string) (first bool, err error) {
	token := newPutToken()
	err = s.table.Put(map[string]any{AttrPK: LinkPK(tokenID), AttrSK: linkUsedSK, "used_at": s.timestamp(), attrPutToken: token}).
		If("attribute_not_exists(PK)").IncludeItemInCondCheckFail(true).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return landed(condFailedItem(err), token), nil
	}
	if err != nil {
		return false, s.fail("consume link", err)
	}
	return true, nil
}

// LinkUsed reports whether a one-use link was used, without using it (for
// HEAD, which link checkers send).
func (s *Store) LinkUsed(ctx context.Context, tokenID string) (bool, error) {
	var it map[string]any
	err := s.table.Get(AttrPK, LinkPK(tokenID)).Range(AttrSK, dynamo.Equal, linkUsedSK).Consistent(true).One(ctx, &it)
	if err == dynamo.ErrNotFound {
		return false, nil
	}
	if err != nil {
		return false, s.fail("check link", err)
	}
	return true, nil
}
