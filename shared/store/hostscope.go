package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// hostAccountKey carries the account a request's Host serves (contract
// section 23): set by shared/hosts for a subdomain or an active custom
// domain, absent on the service's own hosts.
type hostAccountKey struct{}

// WithHostAccount scopes the public reads of ctx to the account's surveys:
// a slug or report code of another account's survey answers ENOTFOUND, as
// an unknown one does.
func WithHostAccount(ctx context.Context, aid int64) context.Context {
	return context.WithValue(ctx, hostAccountKey{}, aid)
}

// HostAccount is the account ctx is scoped to, if any.
func HostAccount(ctx context.Context) (int64, bool) {
	aid, ok := ctx.Value(hostAccountKey{}).(int64)
	return aid, ok
}

// inHostScope answers ENOTFOUND when ctx is scoped to an account (a
// subdomain or custom domain) and survey sid is another's. A survey's
// account never changes, so a container remembers it (Store.owners): a page
// view of a warm container costs no read for the scope.
func (s *Store) inHostScope(ctx context.Context, sid int64) error {
	host, ok := HostAccount(ctx)
	if !ok {
		return nil
	}
	aid, known := s.owners.get(sid)
	if !known {
		var it struct {
			AccountID int64 `dynamo:"account_id"`
		}
		err := s.table.Get(AttrPK, SurveyPK(sid)).Range(AttrSK, dynamo.Equal, SurveySK).Project("account_id").One(ctx, &it)
		if errors.Is(err, dynamo.ErrNotFound) {
			return survey.ErrNotFound
		}
		if err != nil {
			return s.fail(fmt.Sprintf("get the account of survey %d", sid), err)
		}
		aid = it.AccountID
		s.owners.put(sid, aid)
	}
	if aid != host {
		return survey.ErrNotFound
	}
	return nil
}
