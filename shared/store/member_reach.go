package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/guregu/dynamo/v2"
)

// MemberReaches tells whether a member of the account (sub_user) still
// reaches the folder, as their key's next request would decide it: the
// member exists and the folder is shared with them, in either role. A
// removed member reaches nothing. One strongly consistent GetItem.
func (s *Store) MemberReaches(ctx context.Context, aid, sub, fid int64) (bool, error) {
	var it memberItem
	err := s.table.Get(AttrPK, AccountPK(aid)).Range(AttrSK, dynamo.Equal, MemberSK(sub)).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, s.fail(fmt.Sprintf("get member %d", sub), err)
	}
	_, ok := it.Shares[strconv.FormatInt(fid, 10)]
	return ok, nil
}
