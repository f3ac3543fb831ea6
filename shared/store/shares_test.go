package store_test

import (
	"context"
	"fmt"
	"maps"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// sharesRaced marks the calls TestFolderSharesLostRaceIsBusy fails.
type sharesRaced struct{}

// TestFolderSharesLostRaceIsBusy: a PUT of a folder's shared-with that
// keeps losing its race (each transaction cancelled on the folder's list,
// which another PUT changed since the read, or on a member's item, which
// a removal took) answers 503 "busy" once its time is up, as any owner's
// write does, and never 500. Found by make test on a loaded machine
// (TestAccountParallelShares80: 1 of 80 PUTs of one folder answered 500).
func TestFolderSharesLostRaceIsBusy(t *testing.T) {
	t.Parallel()
	st := ownStore(t, nil)
	ctx := t.Context()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "shared", nil)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := st.CreateMember(ctx, a.ID, survey.Member{Email: "raced@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	lost := map[string]int{"the folder's list changed": 0, "a member's item changed": 1}
	at := 0
	restore := localaws.InjectFaults(func(fctx context.Context, _, op string) error {
		if op != "TransactWriteItems" || fctx.Value(sharesRaced{}) == nil {
			return nil
		}
		reasons := []types.CancellationReason{{Code: aws.String("None")}, {Code: aws.String("None")}}
		reasons[at].Code = aws.String("ConditionalCheckFailed")
		return &types.TransactionCanceledException{Message: aws.String("injected"), CancellationReasons: reasons}
	})
	defer restore()
	for name, i := range lost {
		t.Run(name, func(t *testing.T) {
			at = i
			// A request with its deadline near: its time for races is up
			// after a few tries.
			rctx, cancel := context.WithTimeout(context.WithValue(ctx, sharesRaced{}, true), 1500*time.Millisecond)
			defer cancel()
			_, err := st.SetFolderShares(rctx, a.ID, f.ID, []store.ShareRequest{{SubUser: m.SubUser, Role: survey.RoleEditor}})
			if survey.ErrorCode(err) != survey.EUNAVAILABLE {
				t.Fatalf("a PUT of shared-with that lost every race: %v, want 503 busy", err)
			}
		})
	}
}

// sharesOverwritten marks the calls of the PUT that
// TestFolderSharesOverwrittenByALaterPut races.
type sharesOverwritten struct{}

// TestFolderSharesOverwrittenByALaterPut: a PUT of a folder's shared-with
// whose transaction fails because another PUT of the whole list committed
// after its read answers 200 with its own list and writes nothing more:
// it took effect right after its read and was replaced at once (80 PUTs
// of one folder then take a few commits, not 80 in turn). A change of the
// list by a member's removal is no such PUT: the PUT tries again and its
// list stands. Either way the folder's list and what each member reaches
// agree.
func TestFolderSharesOverwrittenByALaterPut(t *testing.T) {
	t.Parallel()
	st := ownStore(t, nil)
	ctx := t.Context()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	var subs []int64
	var keys []string
	for i := range 3 {
		m, key, err := st.CreateMember(ctx, a.ID, survey.Member{Email: fmt.Sprintf("overwritten%d@example.com", i)})
		if err != nil {
			t.Fatal(err)
		}
		subs, keys = append(subs, m.SubUser), append(keys, key)
	}
	for _, tc := range []struct {
		name string
		// meanwhile runs between the PUT's read and its transaction.
		meanwhile func(fid int64) error
		// want is the folder's list afterwards, by sub_user and role.
		want map[int64]survey.Role
		txs  int // the PUT's transactions
	}{
		{"a later PUT", func(fid int64) error {
			_, err := st.SetFolderShares(ctx, a.ID, fid, []store.ShareRequest{{SubUser: subs[1], Role: survey.RoleViewer}})
			return err
		}, map[int64]survey.Role{subs[1]: survey.RoleViewer}, 1},
		{"a removal", func(fid int64) error {
			return st.DeleteMember(ctx, a.ID, subs[2])
		}, map[int64]survey.Role{subs[0]: survey.RoleEditor}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := st.CreateFolder(ctx, a.ID, tc.name, nil)
			if err != nil {
				t.Fatal(err)
			}
			// The folder starts shared with the member a removal takes.
			if _, err := st.SetFolderShares(ctx, a.ID, f.ID, []store.ShareRequest{{SubUser: subs[2], Role: survey.RoleViewer}}); err != nil {
				t.Fatal(err)
			}
			var txs atomic.Int32
			restore := localaws.InjectFaults(func(fctx context.Context, _, op string) error {
				if op != "TransactWriteItems" || fctx.Value(sharesOverwritten{}) == nil {
					return nil
				}
				if txs.Add(1) == 1 {
					if err := tc.meanwhile(f.ID); err != nil {
						t.Errorf("meanwhile: %v", err)
					}
				}
				return nil
			})
			defer restore()
			got, err := st.SetFolderShares(context.WithValue(ctx, sharesOverwritten{}, true), a.ID, f.ID,
				[]store.ShareRequest{{SubUser: subs[0], Role: survey.RoleEditor}})
			restore()
			if err != nil || len(got) != 1 || got[0].SubUser != subs[0] || got[0].Role != survey.RoleEditor {
				t.Fatalf("the PUT answered %+v, %v; want its own list", got, err)
			}
			if n := int(txs.Load()); n != tc.txs {
				t.Errorf("the PUT ran %d transactions, want %d", n, tc.txs)
			}
			after, err := st.Folder(ctx, a.ID, f.ID)
			if err != nil {
				t.Fatal(err)
			}
			list := map[int64]survey.Role{}
			for _, s := range after.SharedWith {
				list[s.SubUser] = s.Role
			}
			if !maps.Equal(list, tc.want) {
				t.Errorf("the folder's list %v, want %v", list, tc.want)
			}
			for i, key := range keys {
				p, err := st.PrincipalByKeyHash(ctx, survey.HashKey(key))
				if survey.ErrorCode(err) == survey.ENOTFOUND {
					continue // removed
				}
				if err != nil {
					t.Fatal(err)
				}
				if reach := p.Shares[f.ID]; reach != list[subs[i]] {
					t.Errorf("member %d reaches the folder as %q; the folder lists %q", subs[i], reach, list[subs[i]])
				}
			}
		})
	}
}
