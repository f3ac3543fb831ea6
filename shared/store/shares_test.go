package store_test

import (
	"context"
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
