package store

import (
	"bytes"
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
	it := dataKeyItem{PK: DataKeyPK(k.ID.String()), SK: dataKeySK, KeyID: k.ID.String(), Wrapped: k.Wrapped,
		Created: k.Created.UTC().Format(dataKeyLayout)}
	if err := s.table.Put(it).If("attribute_not_exists(PK)").Run(ctx); err != nil {
		// A retried PutItem whose first attempt landed (the answer was
		// lost, or the endpoint failed after writing) finds its own key:
		// that is success. Any other key under this id is a real clash.
		if !dynamo.IsCondCheckFailed(err) {
			return s.fail("put data key", err)
		}
		stored, gerr := s.DataKey(ctx, k.ID)
		if gerr != nil || !bytes.Equal(stored.Wrapped, k.Wrapped) {
			return s.fail("put data key", err)
		}
	}
	cur := it
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
	if err == dynamo.ErrNotFound {
		return false, nil
	}
	if err != nil {
		return false, s.fail("check link", err)
	}
	return true, nil
}
