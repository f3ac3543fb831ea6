package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

type folderItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	GSI1PK    string `dynamo:"GSI1PK"`
	GSI1SK    string `dynamo:"GSI1SK"`
	ID        int64  `dynamo:"id"`
	AccountID int64  `dynamo:"account_id"`
	Order     int64  `dynamo:"order"`
	Name      string `dynamo:"name"`
	Created   string `dynamo:"created"`
	// Deleting marks a folder whose deletion has started: it is hidden at
	// once, and a retried DELETE finishes moving its surveys to the trash.
	Deleting bool `dynamo:"deleting,omitempty"`
	// SharedWith are the members the folder is shared with, by sub_user
	// (members.go).
	SharedWith map[string]shareEntry `dynamo:"shared_with,omitempty"`
	// SharesRev counts the changes of SharedWith: a share's transaction
	// writes only the list it read (members.go), so that two PUTs racing
	// cannot leave the folder's list and a member's reach disagreeing.
	SharesRev int64 `dynamo:"shares_rev,omitempty"`
	// SharesPuts counts the PUTs of the whole list that committed (a
	// removal's change of the list is not one): a PUT that finds it moved
	// since its first read was overwritten by a later PUT, and answers as
	// done (SetFolderShares).
	SharesPuts int64 `dynamo:"shares_puts,omitempty"`
	// PutToken tells the create's own earlier attempt from another item
	// (see puttoken.go).
	PutToken string `dynamo:"put_token,omitempty"`
}

func (it folderItem) folder() survey.Folder {
	return survey.Folder{ID: it.ID, AccountID: it.AccountID, Order: it.Order, Name: it.Name, SharedWith: sharesOf(it.SharedWith)}
}

// folderLive is the condition of every write that needs a live folder.
const folderLive = "attribute_exists(PK) AND attribute_not_exists(deleting)"

// nextFolderOrder is one more than the highest order among the account's
// folders other than except, or 1: one strongly consistent Query of the
// account's folder keys.
func (s *Store) nextFolderOrder(ctx context.Context, aid, except int64) (int64, error) {
	var items []struct {
		ID    int64 `dynamo:"id"`
		Order int64 `dynamo:"order"`
	}
	err := s.table.Get(AttrPK, AccountPK(aid)).Range(AttrSK, dynamo.BeginsWith, "FOLDER#").
		Project("id", "order").Consistent(true).All(ctx, &items)
	if err != nil {
		return 0, s.fail("query folder orders", err)
	}
	next := int64(1)
	for _, it := range items {
		if it.ID != except && it.Order+1 > next {
			next = it.Order + 1
		}
	}
	// Orders are int32 for clients, as the API takes them: past the top,
	// the folder shares the top order (ties sort by id).
	return min(next, math.MaxInt32), nil
}

// CreateFolder stores a new folder; a nil order puts it last. One
// transaction: the folder and the account's folder count, one up
// (limits.go; an account at its limit answers 400). Its id is written on
// the condition that it is free: an id found taken is replaced by a fresh
// one (idTaken), and a retry of a transaction that had landed finds its
// own token and succeeds (see puttoken.go).
func (s *Store) CreateFolder(ctx context.Context, aid int64, name string, order *int64) (survey.Folder, error) {
	f := survey.Folder{AccountID: aid, Name: name}
	var err error
	if order != nil {
		f.Order = *order
	} else if f.Order, err = s.nextFolderOrder(ctx, aid, 0); err != nil {
		return survey.Folder{}, err
	}
	token := newPutToken()
	limit := s.Limits.Folders
	id, err := s.NewID(ctx, KindFolder)
	if err != nil {
		return survey.Folder{}, err
	}
	started := time.Now()
	for ids, conflicts := 1, 1; ; {
		it := folderItem{PK: AccountPK(aid), SK: FolderSK(id), GSI1PK: OwnerKey(aid), GSI1SK: FolderOwnerSK(id),
			ID: id, AccountID: aid, Order: f.Order, Name: name, Created: s.timestamp(), PutToken: token}
		err = s.runTx(ctx, s.db.WriteTx().
			Put(s.table.Put(it).If("attribute_not_exists(PK)").IncludeItemInCondCheckFail(true)).
			Update(s.countUp(aid, attrFolders, limit)))
		switch {
		case err == nil, txFailedAt(err, 0) && ownEarlierPut(txItemAt(err, 0), token):
			f.ID = id
			return f, nil
		case txFailedAt(err, 1):
			return survey.Folder{}, limitRefusal(err, 1, attrFolders, limit)
		case txFailedAt(err, 0):
			if ids == idAttempts {
				return survey.Folder{}, errIDsTaken
			}
			if err := s.idTaken(ctx, KindFolder, id); err != nil {
				return survey.Folder{}, err
			}
			if id, err = s.NewID(ctx, KindFolder); err != nil {
				return survey.Folder{}, err
			}
			ids++
		case retryConflict(ctx, err, conflicts, started):
			conflicts++
		default:
			return survey.Folder{}, s.fail("create folder", err)
		}
	}
}

// Folder returns a live folder of the account, or ENOTFOUND.
func (s *Store) Folder(ctx context.Context, aid, fid int64) (survey.Folder, error) {
	var it folderItem
	err := s.table.Get(AttrPK, AccountPK(aid)).Range(AttrSK, dynamo.Equal, FolderSK(fid)).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) || (err == nil && it.Deleting) {
		return survey.Folder{}, survey.ErrNotFound
	}
	if err != nil {
		return survey.Folder{}, s.fail(fmt.Sprintf("get folder %d", fid), err)
	}
	return it.folder(), nil
}

// FolderUpdate is a change to a folder: nil fields stay; OrderLast puts the
// folder after the account's others (PUT without order).
type FolderUpdate struct {
	Name      *string
	Order     *int64
	OrderLast bool
}

// UpdateFolder changes a live folder of the account and returns it. Only the
// given fields are written, so concurrent updates of different fields both
// land. A missing, deleting or foreign folder answers ENOTFOUND.
func (s *Store) UpdateFolder(ctx context.Context, aid, fid int64, u FolderUpdate) (survey.Folder, error) {
	if u.OrderLast {
		next, err := s.nextFolderOrder(ctx, aid, fid)
		if err != nil {
			return survey.Folder{}, err
		}
		u.Order = &next
	}
	up := s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, FolderSK(fid)).If(folderLive)
	if u.Name != nil {
		up.Set("name", *u.Name)
	}
	if u.Order != nil {
		up.Set("order", *u.Order)
	}
	if u.Name == nil && u.Order == nil {
		return s.Folder(ctx, aid, fid)
	}
	var it folderItem
	started := time.Now()
	err := up.Value(ctx, &it)
	for attempt := 1; err != nil && retryOwnerConflict(ctx, err, attempt, started); attempt++ {
		err = up.Value(ctx, &it) // a transaction putting a survey in the folder held it
	}
	if dynamo.IsCondCheckFailed(err) {
		return survey.Folder{}, survey.ErrNotFound
	}
	if err != nil {
		return survey.Folder{}, s.fail(fmt.Sprintf("update folder %d", fid), err)
	}
	return it.folder(), nil
}

// FolderTree is an account's live folders and live surveys, from one Query.
type FolderTree struct {
	Folders []survey.Folder
	// Surveys maps a folder id to its live surveys, by id.
	Surveys map[int64][]survey.Survey
}

// Folders returns the account's live folders with their live surveys, from
// one Query of GSI1 (paged through 1 MB pages), however many there are.
// Folders being deleted, and their surveys, are left out.
func (s *Store) Folders(ctx context.Context, aid int64) (FolderTree, error) {
	return s.folderTree(ctx, s.table.Get(AttrGSI1PK, OwnerKey(aid)).Index(IndexGSI1))
}

// FolderWithSurveys returns one live folder with its live surveys: a
// strongly consistent read of the folder and one Query of GSI1 for the
// surveys.
func (s *Store) FolderWithSurveys(ctx context.Context, aid, fid int64) (survey.Folder, []survey.Survey, error) {
	f, err := s.Folder(ctx, aid, fid)
	if err != nil {
		return survey.Folder{}, nil, err
	}
	tree, err := s.folderTree(ctx, s.table.Get(AttrGSI1PK, OwnerKey(aid)).Index(IndexGSI1).
		Range(AttrGSI1SK, dynamo.BeginsWith, FolderOwnerSK(fid)+"#"))
	if err != nil {
		return survey.Folder{}, nil, err
	}
	return f, tree.Surveys[fid], nil
}

func (s *Store) folderTree(ctx context.Context, q *dynamo.Query) (FolderTree, error) {
	var items []dynamo.Item
	if err := q.All(ctx, &items); err != nil {
		return FolderTree{}, s.fail("query folders", err)
	}
	tree := FolderTree{Surveys: map[int64][]survey.Survey{}}
	deleting := map[int64]bool{}
	var surveys []survey.Survey
	views := map[int64]int64{}
	for _, item := range items {
		sk := skOf(item)
		switch {
		case sk == viewsSK:
			v, err := decodeViews(item)
			if err != nil {
				return FolderTree{}, err
			}
			views[v.SurveyID] = v.Views
		case strings.HasPrefix(sk, "FOLDER#"):
			var it folderItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return FolderTree{}, fmt.Errorf("store: decode folder: %w", err)
			}
			if it.Deleting {
				deleting[it.ID] = true
				continue
			}
			tree.Folders = append(tree.Folders, it.folder())
		case sk == SurveySK:
			sv, err := decodeSurvey(item)
			if err != nil {
				return FolderTree{}, err
			}
			surveys = append(surveys, sv)
		}
	}
	for _, sv := range surveys {
		if n, ok := views[sv.ID]; ok {
			sv.Views = n
		}
		if !deleting[sv.FolderID] && !sv.Deleted {
			tree.Surveys[sv.FolderID] = append(tree.Surveys[sv.FolderID], sv)
		}
	}
	var all []*survey.Survey
	for fid := range tree.Surveys {
		for i := range tree.Surveys[fid] {
			all = append(all, &tree.Surveys[fid][i])
		}
	}
	if err := s.resolveThemes(ctx, all, false); err != nil {
		return FolderTree{}, err
	}
	return tree, nil
}

func skOf(item dynamo.Item) string {
	var sk string
	_ = dynamo.Unmarshal(item[AttrSK], &sk)
	return sk
}

// folderTrashTx is how many surveys one transaction of a folder deletion
// trashes: DynamoDB's 100 actions, less the account's count, over each
// survey's item and the read copies of its state (surveystate.go).
const folderTrashTx = 99 / (1 + SurveyStateCopies)

// DeleteFolder deletes a folder of the account and moves its surveys to the
// trash; nothing is erased. It first marks the folder deleting (hidden at
// once; no survey can be created in or moved to it), then trashes its
// surveys in transactions of up to 99, each survey's write conditional on
// it still being live in that folder and the account's live survey count
// lowered by as many in the same transaction (limits.go), then removes the
// folder in a transaction with its count. The transactions run one after
// another: they all write the account item, and concurrent ones would
// only cancel each other. Each step is idempotent, so however many
// surveys the folder holds, a retry after a failure half way finishes the
// work, and nothing is counted twice.
//
// Deleting a folder ends its shares (contract section 19 as amended): once
// marked, the folder's shared_with is read from the mark's old image (no
// share can be added after it: SetFolderShares writes only a live folder)
// and each member's share of it removed before any survey is trashed, so
// its trashed surveys are the owner's alone. A retry reads the same list
// again (the folder item keeps it until its own removal).
func (s *Store) DeleteFolder(ctx context.Context, aid, fid int64) error {
	var old folderItem
	started := time.Now()
	for attempt := 1; ; attempt++ {
		// The folder's item is held by every transaction that creates,
		// moves, copies or restores a survey into it (their check of
		// folderLive): a DELETE racing them is cancelled, not queued, and
		// tries again rather than answering 503.
		err := s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, FolderSK(fid)).
			Set("deleting", true).If("attribute_exists(PK)").OldValue(ctx, &old)
		if dynamo.IsCondCheckFailed(err) {
			return survey.ErrNotFound
		}
		if err == nil {
			break
		}
		if !retryOwnerConflict(ctx, err, attempt, started) {
			return s.fail(fmt.Sprintf("mark folder %d deleting", fid), err)
		}
	}
	if err := s.endShares(ctx, aid, fid, old.SharedWith); err != nil {
		return err
	}
	var members []struct {
		SK string `dynamo:"SK"`
		ID int64  `dynamo:"id"`
	}
	err := s.table.Get(AttrGSI1PK, OwnerKey(aid)).Index(IndexGSI1).
		Range(AttrGSI1SK, dynamo.BeginsWith, FolderOwnerSK(fid)+"#S#").Project(AttrSK, "id").All(ctx, &members)
	if err != nil {
		return s.fail(fmt.Sprintf("query surveys of folder %d", fid), err)
	}
	var sids []int64
	for _, m := range members {
		if m.SK == SurveySK { // else a survey's view count (views.go)
			sids = append(sids, m.ID)
		}
	}
	now := s.timestamp()
	for start := 0; start < len(sids); start += folderTrashTx {
		if err := s.trashInFolder(ctx, aid, fid, sids[start:min(start+folderTrashTx, len(sids))], now); err != nil {
			return err
		}
	}
	started = time.Now()
	for attempt := 1; ; attempt++ {
		err := s.runTx(ctx, s.db.WriteTx().
			Delete(s.table.Delete(AttrPK, AccountPK(aid)).Range(AttrSK, FolderSK(fid)).If("attribute_exists(PK)")).
			Update(s.countAdd(aid, attrFolders, -1)))
		switch {
		case err == nil, txFailedAt(err, 0):
			return nil // deleted, here or by a concurrent DELETE that counted it
		case retryConflict(ctx, err, attempt, started):
			continue
		}
		return s.fail(fmt.Sprintf("delete folder %d", fid), err)
	}
}

// endShares removes the folder from the shares of each member it was
// shared with (one UpdateItem each, at most an account's 50 members); a
// member removed meanwhile has no share left to remove.
func (s *Store) endShares(ctx context.Context, aid, fid int64, shared map[string]shareEntry) error {
	folder := strconv.FormatInt(fid, 10)
	for sub := range shared {
		n, err := strconv.ParseInt(sub, 10, 64)
		if err != nil {
			continue
		}
		started := time.Now()
		for attempt := 1; ; attempt++ {
			// The member's item is held by each of their writes (the
			// check that their shares still hold, runTx): try again.
			err = s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, MemberSK(n)).
				RemoveExpr("shares.$", folder).Add("shares_rev", 1).If("attribute_exists(PK)").Run(ctx)
			if err == nil || dynamo.IsCondCheckFailed(err) {
				break
			}
			if !retryOwnerConflict(ctx, err, attempt, started) {
				return s.fail(fmt.Sprintf("end the share of folder %d with member %d", fid, n), err)
			}
		}
	}
	return nil
}

// trashInFolder moves the surveys (at most folderTrashTx) to the trash in
// one transaction with the account's count, each on the condition that it
// is still live in the folder. Surveys whose condition fails (trashed or
// moved meanwhile) are dropped and the rest tried again at once.
func (s *Store) trashInFolder(ctx context.Context, aid, fid int64, sids []int64, now string) error {
	started := time.Now()
	for attempt := 1; len(sids) > 0; {
		tx := s.db.WriteTx()
		for _, sid := range sids {
			tx.Update(s.trashUpdate(sid, now).If("folder_id = ? AND deleted = ?", fid, false))
		}
		tx.Update(s.countAdd(aid, attrLiveSurveys, -len(sids)))
		for _, sid := range sids {
			s.mirrorState(tx, sid, trashed(true))
		}
		err := tx.Run(ctx)
		if err == nil {
			return nil
		}
		if reasons := txReasons(err); len(reasons) == len(sids)*(1+SurveyStateCopies)+1 && !txFailedAt(err, len(sids)) {
			var rest []int64
			for i, sid := range sids {
				if !txFailedAt(err, i) {
					rest = append(rest, sid)
				}
			}
			if len(rest) < len(sids) {
				sids = rest
				continue
			}
		}
		if !retryConflict(ctx, err, attempt, started) {
			return s.fail(fmt.Sprintf("trash the surveys of folder %d", fid), err)
		}
		attempt++
	}
	return nil
}
