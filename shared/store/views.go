package store

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/guregu/dynamo/v2"
)

const viewsSK = "VIEWS"

// viewsItem is a survey's view count.
type viewsItem struct {
	SurveyID int64 `dynamo:"survey_id"`
	Views    int64 `dynamo:"views"`
}

// ViewShards is how many partition keys a survey's view records are
// spread over: a viral survey's thousand views a second write under 100
// units a second on each.
const ViewShards = 16

// viewTTL is how long a view record is kept: past the stream's 24 hours,
// by which the tally has counted it.
const viewTTL = 48 * time.Hour

// ViewLogPK is one shard of a survey's view records.
func ViewLogPK(sid int64, shard int) string { return fmt.Sprintf("VIEWLOG#%s#%d", pad(sid), shard) }

// viewRecordSK is a view record's SK: unique, so that each view is one
// insertion in the stream.
const viewRecordPrefix = "VIEW#"

// CountView counts one view of a survey of the account aid in folder fid
// (as the caller read it). At low rates the view adds itself to the
// survey's views item (countViewDirect: 2 write units with its GSI1 copy,
// counted at once); otherwise, or when that item takes no more this
// minute, it is one PutItem of a view record in one of ViewShards
// partitions, which the tally function adds to the views item from the
// stream (tally.go), with the responses' counts, exactly once, a second
// or two later (3 units with the tally's write). No item is written by
// every view, so a burst of views makes nothing else wait or fail.
//
// docs/data-model.md#views.
func (s *Store) CountView(ctx context.Context, aid, fid, sid int64) error {
	counted, err := s.countViewDirect(ctx, sid)
	if err != nil || counted {
		return err
	}
	var id [12]byte
	_, _ = rand.Read(id[:])
	err = s.table.Put(map[string]any{
		AttrPK: ViewLogPK(sid, mrand.IntN(ViewShards)), AttrSK: viewRecordPrefix + hex.EncodeToString(id[:]),
		"survey_id": sid, "account_id": aid, "folder_id": fid, "tally": true,
		AttrTTL: s.Now().Add(viewTTL).Unix(),
	}).Run(ctx)
	if err != nil {
		return s.fail(fmt.Sprintf("count a view of survey %d", sid), err)
	}
	return nil
}

const (
	// viewSets is how many minutes' sets of tokens the views item keeps
	// (countViewDirect): a view's token stays two to three minutes, past
	// any retry of its request, and a container whose clock is a little
	// behind never removes the set another is adding to.
	viewSets = 4
	// ViewSetCap is how many views a minute's set takes: the item and its
	// GSI1 copy stay under 1 KB (a write unit each) with every set full.
	ViewSetCap = 8
)

// viewSetAttr is the views item's set of the tokens of minute's views.
func viewSetAttr(minute int64) string { return "vt" + strconv.FormatInt(minute%viewSets, 10) }

// ViewsAttrs are the attributes a view may write on the views item
// (template.yaml's dynamodb:Attributes for the public functions): its key,
// the count and the token sets.
func ViewsAttrs() []string { return append([]string{AttrPK, AttrSK, "views"}, viewSetAttrs()...) }

// viewSetAttrs are the views item's sets of tokens, one a minute of
// viewSets.
func viewSetAttrs() []string {
	out := make([]string, viewSets)
	for k := range out {
		out[k] = viewSetAttr(int64(k))
	}
	return out
}

// countViewDirect adds one view to the survey's views item itself, exactly
// once: counted false when the item takes it not (it has no count yet,
// which the tally's first write gives it, or this minute's set is full,
// or this container learned either this minute), and the caller writes a
// view record instead.
func (s *Store) countViewDirect(ctx context.Context, sid int64) (bool, error) {
	minute := s.Now().Unix() / 60
	if !s.viewHints.mayTry(sid, minute) {
		return false, nil
	}
	var raw [12]byte
	_, _ = rand.Read(raw[:])
	return s.addView(ctx, sid, base64.RawURLEncoding.EncodeToString(raw[:]), minute)
}

// addView is countViewDirect's write of the view whose token is token, in
// minute (Unix minutes): one UpdateItem that adds 1 to views and the token
// to the minute's set, removes the set of two minutes before, and is
// conditioned on a count there, on room in the set and on the token in
// none of the sets. A retry of an attempt that applied (the SDK's, after
// a timeout whose write landed) fails that condition with its token
// present: a strongly consistent read of the sets, made only when the
// condition fails (or the write's outcome is not known), tells counted
// from not. docs/data-model.md#views.
func (s *Store) addView(ctx context.Context, sid int64, token string, minute int64) (bool, error) {
	cur := viewSetAttr(minute)
	up := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, viewsSK).Add("views", 1).AddStringsToSet(cur, token).
		Remove(viewSetAttr(minute+2)).If("attribute_exists($)", "views").If("attribute_not_exists($) OR size($) < ?", cur, cur, ViewSetCap)
	for _, set := range viewSetAttrs() {
		up.If("NOT contains($, ?)", set, token)
	}
	err := up.Run(ctx)
	switch {
	case err == nil:
		return true, nil
	case refused(err):
		// A deployment whose policy does not let the page write the views
		// item (or a request DynamoDB refuses): records, as before, for
		// the container's life.
		if s.viewHints.off.CompareAndSwap(false, true) {
			slog.ErrorContext(ctx, "store: views are counted by their records: the views item refused the page's write", "error", err.Error())
		}
		return false, nil
	}
	in, rerr := s.viewTokenIn(ctx, sid, token)
	if rerr != nil {
		// Whether it was counted is not known: no record either.
		return false, s.fail(fmt.Sprintf("count a view of survey %d", sid), errors.Join(err, rerr))
	}
	if !in {
		s.viewHints.busy(sid, minute)
	}
	return in, nil
}

// viewTokenIn reads, strongly consistent, whether the views item's sets
// hold token.
func (s *Store) viewTokenIn(ctx context.Context, sid int64, token string) (bool, error) {
	var sets map[string]any
	attrs := viewSetAttrs()
	err := s.table.Get(AttrPK, SurveyPK(sid)).Range(AttrSK, dynamo.Equal, viewsSK).Project(attrs...).Consistent(true).One(ctx, &sets)
	if errors.Is(err, dynamo.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, a := range attrs {
		var set []string
		if v, ok := sets[a]; ok {
			switch v := v.(type) {
			case []string:
				set = v
			case []any:
				for _, x := range v {
					if t, ok := x.(string); ok {
						set = append(set, t)
					}
				}
			}
		}
		if slices.Contains(set, token) {
			return true, nil
		}
	}
	return false, nil
}

// viewHints is what a container learned of views items (countViewDirect):
// the surveys whose item took no more this minute, and whether the
// page may write the views item at all.
type viewHints struct {
	mu   sync.Mutex
	full map[int64]int64 // survey -> the Unix minute its item took no more
	off  atomic.Bool
}

// mayTry reports whether survey sid's view in minute may try the item.
func (h *viewHints) mayTry(sid, minute int64) bool {
	if h.off.Load() {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.full[sid] != minute
}

// busy notes that survey sid's item took no more in minute.
func (h *viewHints) busy(sid, minute int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.full == nil || len(h.full) >= 4096 {
		h.full = map[int64]int64{}
	}
	h.full[sid] = minute
}

// viewsUpdate adds to up (of the views item) the tally's write of n views to the survey's views item,
// placing it in GSI1 beside its survey (folder fid of account aid) if it
// is not placed yet.
func (s *Store) viewsUpdate(up *dynamo.Update, aid, fid, sid, n int64) {
	up.Add("views", n).Set("survey_id", sid).
		SetIfNotExists(AttrGSI1PK, OwnerKey(aid)).SetIfNotExists(AttrGSI1SK, SurveyViewsOwnerSK(fid, sid))
}

// viewsPlace is the write that keeps the views item beside its survey in
// GSI1 when the survey moves to folder fid; it creates the item (no views)
// when there is none yet, and so needs no condition.
func (s *Store) viewsPlace(aid, fid, sid int64) *dynamo.Update {
	return s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, viewsSK).
		Set("survey_id", sid).Set(AttrGSI1PK, OwnerKey(aid)).Set(AttrGSI1SK, SurveyViewsOwnerSK(fid, sid))
}

func decodeViews(item dynamo.Item) (viewsItem, error) {
	var it viewsItem
	if err := dynamo.UnmarshalItem(item, &it); err != nil {
		return viewsItem{}, fmt.Errorf("store: decode views: %w", err)
	}
	return it, nil
}
