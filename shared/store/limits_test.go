package store_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// wantCounts fails the test unless the account's counts are these.
func wantCounts(t *testing.T, st *store.Store, aid int64, what string, surveys, folders int64) {
	t.Helper()
	c, err := st.AccountCounts(t.Context(), aid)
	if err != nil {
		t.Fatalf("%s: counts: %v", what, err)
	}
	if c.LiveSurveys != surveys || c.Folders != folders {
		t.Fatalf("%s: %d live surveys and %d folders counted, want %d and %d", what, c.LiveSurveys, c.Folders, surveys, folders)
	}
}

// wantLimit fails the test unless err is the 400 of the named limit.
func wantLimit(t *testing.T, what string, err error, words string) {
	t.Helper()
	if survey.ErrorCode(err) != survey.EINVALID || !strings.Contains(err.Error(), words) {
		t.Fatalf("%s: %v, want 400 naming %q", what, err, words)
	}
}

// TestAccountLimits: the limits hold, and the counts are exact after every
// write that changes what the folder list holds (and unchanged by those
// refused or repeated).
func TestAccountLimits(t *testing.T) {
	t.Parallel()
	st := ownStore(t, nil)
	st.Limits = survey.AccountLimits{LiveSurveys: 3, Folders: 2}
	ctx := t.Context()
	a, _ := testenv.NewAccount(t, survey.PlanFree)
	wantCounts(t, st, a.ID, "new account", 0, 0)
	newSurvey := func(fid int64) (survey.Survey, error) {
		return st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: fid, Name: "s", Language: 1, Theme: survey.DefaultTheme()})
	}

	home, err := st.CreateFolder(ctx, a.ID, "home", nil)
	if err != nil {
		t.Fatal(err)
	}
	var svs []survey.Survey
	for range 3 {
		sv, err := newSurvey(home.ID)
		if err != nil {
			t.Fatal(err)
		}
		svs = append(svs, sv)
	}
	wantCounts(t, st, a.ID, "3 surveys", 3, 1)
	_, err = newSurvey(home.ID)
	wantLimit(t, "4th survey", err, "limit of 3 live surveys")
	wantCounts(t, st, a.ID, "4th survey refused", 3, 1)
	if _, svs, _ := st.FolderWithSurveys(ctx, a.ID, home.ID); len(svs) != 3 {
		t.Fatalf("a refused create wrote a survey: %d in the folder", len(svs))
	}
	// A missing folder is still the 400 it was, not the limit.
	if _, err := newSurvey(home.ID + 1000); survey.ErrorCode(err) != survey.EINVALID {
		t.Fatalf("missing folder at the limit: %v, want 400", err)
	}

	if err := st.TrashSurvey(ctx, a.ID, svs[0].ID); err != nil {
		t.Fatal(err)
	}
	wantCounts(t, st, a.ID, "trash", 2, 1)
	if err := st.TrashSurvey(ctx, a.ID, svs[0].ID); !errors.Is(err, survey.ErrSurveyDeleted) {
		t.Fatalf("trash twice: %v", err)
	}
	wantCounts(t, st, a.ID, "trash twice", 2, 1)
	late, err := newSurvey(home.ID)
	if err != nil {
		t.Fatalf("create after a trash: %v", err)
	}
	wantCounts(t, st, a.ID, "create after a trash", 3, 1)
	wantLimit(t, "restore at the limit", st.RestoreSurvey(ctx, a.ID, svs[0].ID, nil), "limit of 3 live surveys")
	if sv, _ := st.Survey(ctx, a.ID, svs[0].ID); !sv.Deleted {
		t.Fatal("a refused restore restored the survey")
	}
	if err := st.TrashSurvey(ctx, a.ID, late.ID); err != nil {
		t.Fatal(err)
	}
	if err := st.RestoreSurvey(ctx, a.ID, svs[0].ID, nil); err != nil {
		t.Fatalf("restore under the limit: %v", err)
	}
	wantCounts(t, st, a.ID, "trash and restore", 3, 1)
	if err := st.RestoreSurvey(ctx, a.ID, svs[0].ID, nil); err != nil { // live: left as it is
		t.Fatal(err)
	}
	wantCounts(t, st, a.ID, "restore of a live survey", 3, 1)

	other, err := st.CreateFolder(ctx, a.ID, "other", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.CreateFolder(ctx, a.ID, "third", nil)
	wantLimit(t, "3rd folder", err, "limit of 2 folders")
	wantCounts(t, st, a.ID, "3rd folder refused", 3, 2)
	// Moving a survey between folders changes neither count.
	if err := st.UpdateSurvey(ctx, a.ID, svs[1].ID, store.SurveyUpdate{FolderID: &other.ID}); err != nil {
		t.Fatal(err)
	}
	wantCounts(t, st, a.ID, "move", 3, 2)

	// Deleting home trashes its 2 live surveys (not the one in the trash,
	// nor the one moved out) and the folder.
	if err := st.DeleteFolder(ctx, a.ID, home.ID); err != nil {
		t.Fatal(err)
	}
	wantCounts(t, st, a.ID, "folder delete", 1, 1)
	if err := st.DeleteFolder(ctx, a.ID, home.ID); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Fatalf("delete twice: %v", err)
	}
	wantCounts(t, st, a.ID, "folder delete twice", 1, 1)
	if err := st.RestoreSurvey(ctx, a.ID, svs[0].ID, &other.ID); err != nil {
		t.Fatal(err)
	}
	wantCounts(t, st, a.ID, "restore into another folder", 2, 1)
	if _, err := st.CreateFolder(ctx, a.ID, "again", nil); err != nil {
		t.Fatalf("folder after a delete: %v", err)
	}
	wantCounts(t, st, a.ID, "folder after a delete", 2, 2)
}

// TestLimitRace: concurrent creates racing for the last slot; exactly one
// wins, the rest answer 400, and the count is the surveys written.
func TestLimitRace(t *testing.T) {
	t.Parallel()
	st := ownStore(t, nil)
	st.Limits = survey.AccountLimits{LiveSurveys: 3, Folders: 3}
	ctx := t.Context()
	a, _ := testenv.NewAccount(t, survey.PlanFree)
	fo, err := st.CreateFolder(ctx, a.ID, "home", nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: fo.ID, Name: "s", Language: 1, Theme: survey.DefaultTheme()}); err != nil {
			t.Fatal(err)
		}
	}
	const racers = 8
	errs := make([]error, 2*racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, errs[i] = st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: fo.ID, Name: "racer", Language: 1, Theme: survey.DefaultTheme()})
		}()
		go func() {
			defer wg.Done()
			_, errs[racers+i] = st.CreateFolder(ctx, a.ID, "racer", nil)
		}()
	}
	wg.Wait()
	for kind, errs := range map[string][]error{"survey": errs[:racers], "folder": errs[racers:]} {
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case survey.ErrorCode(err) != survey.EINVALID:
				t.Errorf("%s racer: %v, want nil or 400", kind, err)
			}
		}
		if want := map[string]int{"survey": 1, "folder": 2}[kind]; won != want {
			t.Errorf("%d %s racers won, want %d", won, kind, want)
		}
	}
	wantCounts(t, st, a.ID, "after the race", 3, 3)
	tree, err := st.Folders(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tree.Surveys[fo.ID]); n != 3 || len(tree.Folders) != 3 {
		t.Errorf("list holds %d surveys in %d folders, want 3 and 3", n, len(tree.Folders))
	}
}

// TestRecount: an account written before the counts existed (no count
// attributes) undercounts; Recount sets its counts from what it holds.
func TestRecount(t *testing.T) {
	t.Parallel()
	st := ownStore(t, nil)
	ctx := t.Context()
	w := newWorld(t, st)
	if _, err := st.CreateFolder(ctx, w.acct.ID, "second", nil); err != nil {
		t.Fatal(err)
	}
	trashed, err := st.CreateSurvey(ctx, survey.Survey{AccountID: w.acct.ID, FolderID: w.folder.ID, Name: "t", Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.TrashSurvey(ctx, w.acct.ID, trashed.ID); err != nil {
		t.Fatal(err)
	}
	wantCounts(t, st, w.acct.ID, "before", 1, 2)
	_, err = st.Client().UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(st.TableName()),
		Key: map[string]types.AttributeValue{
			store.AttrPK: &types.AttributeValueMemberS{Value: store.AccountPK(w.acct.ID)},
			store.AttrSK: &types.AttributeValueMemberS{Value: "ACCOUNT"},
		},
		UpdateExpression: aws.String("REMOVE live_surveys, folders"),
	})
	if err != nil {
		t.Fatal(err)
	}
	wantCounts(t, st, w.acct.ID, "an old account", 0, 0)
	before, after, err := st.Recount(ctx, w.acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	if before != (store.AccountCounts{}) || after != (store.AccountCounts{LiveSurveys: 1, Folders: 2}) {
		t.Errorf("recount: %+v -> %+v", before, after)
	}
	wantCounts(t, st, w.acct.ID, "recounted", 1, 2)
	if _, _, err := st.Recount(ctx, w.acct.ID+1_000_000); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Errorf("recount of a missing account: %v", err)
	}
}

// conflicted marks the calls TestCountedConflicts fails.
type conflicted struct{}

// TestCountedConflicts: a counted transaction cancelled by a concurrent one
// on the account item (TransactionConflict, injected before it is sent) is
// tried again after a backoff; endless conflicts answer 503. Either way the
// count is the surveys written.
func TestCountedConflicts(t *testing.T) {
	t.Parallel()
	st := ownStore(t, nil)
	w := newWorld(t, st)
	conflict := &types.TransactionCanceledException{Message: aws.String("injected"), CancellationReasons: []types.CancellationReason{
		{Code: aws.String("None")}, {Code: aws.String("TransactionConflict")}}}
	var n atomic.Int64
	var failFirst atomic.Int64
	restore := localaws.InjectFaults(func(ctx context.Context, _, op string) error {
		if op != "TransactWriteItems" || ctx.Value(conflicted{}) == nil {
			return nil
		}
		if n.Add(1) <= failFirst.Load() {
			return conflict
		}
		return nil
	})
	defer restore()
	ctx := context.WithValue(t.Context(), conflicted{}, true)
	newSurvey := func() error {
		_, err := st.CreateSurvey(ctx, survey.Survey{AccountID: w.acct.ID, FolderID: w.folder.ID, Name: "c", Language: 1, Theme: survey.DefaultTheme()})
		return err
	}

	failFirst.Store(2)
	if err := newSurvey(); err != nil {
		t.Fatalf("create through 2 conflicts: %v", err)
	}
	wantCounts(t, st, w.acct.ID, "create through conflicts", 2, 1)
	n.Store(0)
	if err := st.TrashSurvey(ctx, w.acct.ID, w.survey.ID); err != nil {
		t.Fatalf("trash through 2 conflicts: %v", err)
	}
	wantCounts(t, st, w.acct.ID, "trash through conflicts", 1, 1)

	n.Store(0)
	failFirst.Store(1 << 40)
	if err := newSurvey(); survey.ErrorCode(err) != survey.EUNAVAILABLE {
		t.Fatalf("create through endless conflicts: %v, want 503", err)
	}
	if err := st.RestoreSurvey(ctx, w.acct.ID, w.survey.ID, nil); survey.ErrorCode(err) != survey.EUNAVAILABLE {
		t.Fatalf("restore through endless conflicts: %v, want 503", err)
	}
	wantCounts(t, st, w.acct.ID, "after endless conflicts", 1, 1)
}

// movedMeanwhile marks the calls TestDeleteFolderMovedMeanwhile watches: a
// marker of its own, since the faults are the process's and
// TestCountedConflicts, in parallel, fails every call marked conflicted{}
// (its endless conflicts cancelled this test's trash: "injected").
type movedMeanwhile struct{}

// TestDeleteFolderMovedMeanwhile: a survey moved out of a folder after its
// deletion listed it fails its trash's condition; the others of its
// transaction are trashed in a second try, the moved one stays live, and
// the counts are exact.
func TestDeleteFolderMovedMeanwhile(t *testing.T) {
	t.Parallel()
	st := ownStore(t, nil)
	w := newWorld(t, st)
	ctx := t.Context()
	other, err := st.CreateFolder(ctx, w.acct.ID, "other", nil)
	if err != nil {
		t.Fatal(err)
	}
	var sids []int64
	for range 3 {
		sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: w.acct.ID, FolderID: w.folder.ID, Name: "m", Language: 1, Theme: survey.DefaultTheme()})
		if err != nil {
			t.Fatal(err)
		}
		sids = append(sids, sv.ID)
	}
	wantCounts(t, st, w.acct.ID, "before", 4, 2)
	var once sync.Once
	var moveErr error
	restore := localaws.InjectFaults(func(fctx context.Context, _, op string) error {
		if op == "TransactWriteItems" && fctx.Value(movedMeanwhile{}) != nil {
			once.Do(func() { // before the first trash transaction is sent
				moveErr = st.UpdateSurvey(ctx, w.acct.ID, sids[1], store.SurveyUpdate{FolderID: &other.ID})
			})
		}
		return nil
	})
	err = st.DeleteFolder(context.WithValue(ctx, movedMeanwhile{}, true), w.acct.ID, w.folder.ID)
	restore()
	if err != nil || moveErr != nil {
		t.Fatalf("delete: %v; move: %v", err, moveErr)
	}
	wantCounts(t, st, w.acct.ID, "after", 1, 1)
	for _, sid := range []int64{w.survey.ID, sids[0], sids[1], sids[2]} {
		sv, err := st.Survey(ctx, w.acct.ID, sid)
		if err != nil {
			t.Fatal(err)
		}
		if moved := sid == sids[1]; sv.Deleted == moved {
			t.Errorf("survey %d: deleted %v (moved out: %v)", sid, sv.Deleted, moved)
		}
	}
}
