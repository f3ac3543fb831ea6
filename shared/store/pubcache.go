package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// maxCachedBytes bounds the cache of one container: 64 MiB of stored item
// sizes (a 256 MB function keeps well inside its memory).
const maxCachedBytes = 64 << 20

// attrCollectionVersion is the survey item's collection version.
const attrCollectionVersion = "cv"

type cachedCollection struct {
	version int64
	size    int
	c       SurveyCollection
	// theme is the survey item's theme as stored (JSON), whose decoded
	// form c.Survey.Theme a hit reuses while the item's is the same.
	theme string
}

type collectionCache struct {
	mu    sync.Mutex
	m     map[int64]cachedCollection
	bytes int
}

func (cc *collectionCache) get(sid int64) (cachedCollection, bool) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	e, ok := cc.m[sid]
	return e, ok
}

// put keeps a copy unless a newer one is there.
func (cc *collectionCache) put(sid int64, e cachedCollection) {
	if e.size > maxCachedBytes/4 {
		return
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.m == nil {
		cc.m = map[int64]cachedCollection{}
	}
	if old, ok := cc.m[sid]; ok {
		if old.version > e.version {
			return
		}
		cc.bytes -= old.size
		delete(cc.m, sid)
	}
	for id, old := range cc.m { // map order: an arbitrary victim
		if cc.bytes+e.size <= maxCachedBytes {
			break
		}
		cc.bytes -= old.size
		delete(cc.m, id)
	}
	cc.m[sid] = e
	cc.bytes += e.size
}

// CollectionCacheStats are the cache's hits and misses since the store
// was made, for tests and benchmarks.
type CollectionCacheStats struct{ Hits, Misses int64 }

// CollectionCacheStats reports the cache's hits and misses.
func (s *Store) CollectionCacheStats() CollectionCacheStats {
	return CollectionCacheStats{Hits: s.collHits.Load(), Misses: s.collMisses.Load()}
}

// PublicCollection reads a survey with everything under it, for the
// public routes (no account to check), through the container's cache and
// the read copies of the survey's state (surveystate.go): one strongly
// consistent GetItem of a copy picked at random, and the container's copy
// of the collection while it is of the version the copy names. A copy
// not whole, a container with an older version, or a survey with a
// response limit (Settings.Full needs the tally's count, which only the
// survey item has) reads the survey item as before: consistent asks for
// strongly consistent reads there, and a whole copy makes them so (the
// container's copy is known to be older). A container that has not read
// the survey yet reads its item collection at once, strongly consistent. The survey's state (stopped,
// trashed, its expiration date) is always the copy's when it is whole. A
// missing survey answers ENOTFOUND; one in the trash is returned as it is
// (Survey.Deleted), for the caller to answer.
//
// docs/data-model.md#read-copies-of-a-surveys-state.
func (s *Store) PublicCollection(ctx context.Context, sid int64, consistent bool) (SurveyCollection, error) {
	return s.stateCollection(ctx, sid, mrand.IntN(SurveyStateCopies), consistent, false, true)
}

// stateCollection is PublicCollection off copy k of the survey's state;
// backfill writes a copy that is not whole from the survey item (the
// responders' routes: their function may write it); counted is whether
// the caller needs the survey's response count when it has a response
// limit (Settings.Full).
func (s *Store) stateCollection(ctx context.Context, sid int64, k int, consistent, backfill, counted bool) (SurveyCollection, error) {
	if _, warm := s.collections.get(sid); !warm {
		// A container's first read of the survey: its item collection,
		// strongly consistent (as exact as a copy of the state).
		return s.itemCollection(ctx, sid, true)
	}
	st, whole, err := s.readState(ctx, sid, k)
	if err != nil {
		return SurveyCollection{}, err
	}
	if whole {
		if e, ok := s.collections.get(sid); ok && e.version == st.CV && !(counted && e.c.Settings.ResponseLimit != nil) {
			s.collHits.Add(1)
			c := e.c
			c.Survey = st.active(c.Survey)
			if err := s.resolveThemes(ctx, []*survey.Survey{&c.Survey}, true); err != nil {
				return SurveyCollection{}, err
			}
			return c, nil
		}
	} else if backfill {
		if err := s.backfillState(ctx, sid, k); err != nil && !errors.Is(err, dynamo.ErrNotFound) && txReasons(err) == nil {
			slog.Warn("a copy of a survey's state not written", "survey", sid, "copy", k, "error", err.Error())
		}
	}
	var c SurveyCollection
	if e, ok := s.collections.get(sid); whole && (!ok || e.version != st.CV) {
		// The copy names a change this container has not read: the item
		// collection's Query carries the survey item too, and the copy was
		// read strongly consistent after the owner's transaction committed,
		// so the Query sees all of it (no GetItem of the survey item first).
		s.collMisses.Add(1)
		c, err = s.queryCollection(ctx, sid, true, st.CV)
	} else {
		c, err = s.itemCollection(ctx, sid, consistent || whole)
	}
	if err != nil {
		return SurveyCollection{}, err
	}
	if whole {
		c.Survey = st.active(c.Survey)
	}
	return c, nil
}

// itemCollection is the survey read off its survey item: one GetItem of
// it, and only when an owner changed the survey since this container
// last read it, one Query of its item collection. A cached copy is
// proved current by the survey item's collection version (cv).
func (s *Store) itemCollection(ctx context.Context, sid int64, consistent bool) (SurveyCollection, error) {
	var item dynamo.Item
	err := s.table.Get(AttrPK, SurveyPK(sid)).Range(AttrSK, dynamo.Equal, SurveySK).Consistent(consistent).One(ctx, &item)
	if errors.Is(err, dynamo.ErrNotFound) {
		return SurveyCollection{}, survey.ErrNotFound
	}
	if err != nil {
		return SurveyCollection{}, s.fail(fmt.Sprintf("get survey %d", sid), err)
	}
	var si surveyItem
	if err := dynamo.UnmarshalItem(item, &si); err != nil {
		return SurveyCollection{}, fmt.Errorf("store: decode survey: %w", err)
	}
	cv := collectionVersion(item)
	if e, ok := s.collections.get(sid); ok && (e.version == cv || !consistent && e.version > cv) {
		s.collHits.Add(1)
		sv, err := si.state()
		if err != nil {
			return SurveyCollection{}, err
		}
		c := e.c
		sv.Theme = c.Survey.Theme // the theme's JSON decoded once, while unchanged
		if si.Theme != e.theme {
			if sv, err = si.survey(); err != nil {
				return SurveyCollection{}, err
			}
		}
		sv.Views = c.Survey.Views
		c.Survey = sv
		if err := s.resolveThemes(ctx, []*survey.Survey{&c.Survey}, true); err != nil {
			return SurveyCollection{}, err
		}
		return c, nil
	}
	s.collMisses.Add(1)
	return s.queryCollection(ctx, sid, consistent, cv)
}

// queryCollection reads the survey's item collection in one Query and
// keeps it in the container's cache when its survey item's collection
// version is cv, the version a read of the survey item or of a copy of its
// state saw before.
func (s *Store) queryCollection(ctx context.Context, sid int64, consistent bool, cv int64) (SurveyCollection, error) {
	var items []dynamo.Item
	if err := s.table.Get(AttrPK, SurveyPK(sid)).Consistent(consistent).All(ctx, &items); err != nil {
		return SurveyCollection{}, s.fail(fmt.Sprintf("query survey %d", sid), err)
	}
	c, found, err := decodeCollection(items)
	if err != nil {
		return SurveyCollection{}, err
	}
	if !found {
		return SurveyCollection{}, survey.ErrNotFound // trashed for good between the two reads
	}
	for _, it := range items {
		if skOf(it) == SurveySK && collectionVersion(it) == cv {
			s.collections.put(sid, cachedCollection{version: cv, size: ItemsSize(items), c: c, theme: themeOf(it)})
		}
	}
	if err := s.resolveThemes(ctx, []*survey.Survey{&c.Survey}, true); err != nil {
		return SurveyCollection{}, err
	}
	return c, nil
}

// themeOf is a survey item's theme as stored.
func themeOf(item dynamo.Item) string {
	if v, ok := item["theme"].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// collectionVersion is the cv of a survey item (0 before any change).
func collectionVersion(item dynamo.Item) int64 {
	var v struct {
		CV int64 `dynamo:"cv"`
	}
	if err := dynamo.UnmarshalItem(item, &v); err != nil {
		return -1 // never equal to a cached version
	}
	return v.CV
}

// ItemsSize is about DynamoDB's size of items: their attribute names and
// values, lists and maps with 3 bytes of their own and 1 per element (the
// cache's budget, and the benchmarks' bytes read).
func ItemsSize(items []dynamo.Item) int {
	n := 0
	for _, it := range items {
		for k, v := range it {
			n += len(k) + avSize(v)
		}
	}
	return n
}

func avSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return len(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, x := range v.Value {
			n += 1 + avSize(x)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, x := range v.Value {
			n += 1 + len(k) + avSize(x)
		}
		return n
	}
	return 1
}
