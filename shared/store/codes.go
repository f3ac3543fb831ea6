package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// codeItem is CODES#<sid> / CODE#<code>: one authentication code. Used
// marks a code spent by a response under code_auth_is_unique.
type codeItem struct {
	PK   string `dynamo:"PK"`
	SK   string `dynamo:"SK"`
	Used bool   `dynamo:"used,omitempty"`
	// Mark: counted in the code page index, in a survey whose index was
	// backfilled (codepages_backfill.go); unused elsewhere.
	Mark bool `dynamo:"i,omitempty"`
}

// existing returns which of the items (at most 100) the survey's list
// holds: one strongly consistent BatchGetItem of their keys.
func (s *Store) existing(ctx context.Context, l itemList, sid int64, codes []string) (map[string]bool, error) {
	keys := make([]dynamo.Keyed, len(codes))
	for i, c := range codes {
		keys[i] = dynamo.Keys{l.pk(sid), l.sk(c)}
	}
	var found []codeItem
	err := s.table.Batch(AttrPK, AttrSK).Get(keys...).Project(AttrSK).Consistent(true).All(ctx, &found)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, s.fail(fmt.Sprintf("check %s of survey %d", l.name, sid), err)
	}
	out := make(map[string]bool, len(found))
	for _, it := range found {
		out[strings.TrimPrefix(it.SK, l.prefix)] = true
	}
	return out, nil
}

// countItem is CODES#<sid> / COUNT#<n>: one shard of the code count.
type countItem struct {
	SK    string `dynamo:"SK"`
	Count int64  `dynamo:"code_count"`
}

// CodeCount answers how many codes a survey of the account holds, in one
// strongly consistent BatchGetItem: the survey (whose it is), the count's
// shards, and the settings item, which held the whole count before the
// shards (it is never written now, and counts still). A survey in the
// trash answers too; a missing or foreign one ENOTFOUND.
func (s *Store) CodeCount(ctx context.Context, aid, sid int64) (int64, error) {
	sv, n, _, err := s.codeCount(ctx, sid)
	if err != nil {
		return 0, err
	}
	if sv.AccountID != aid {
		return 0, survey.ErrNotFound
	}
	return n, nil
}

// codeCount also reads the survey's code page index depth (-1: none yet;
// see codepages.go).
func (s *Store) codeCount(ctx context.Context, sid int64) (survey.Survey, int64, codeIndex, error) {
	return s.listCount(ctx, codeList, sid)
}

// listCount reads the survey, the count of its list l and the list's page
// index depth (-1: none yet), in one strongly consistent BatchGetItem.
func (s *Store) listCount(ctx context.Context, l itemList, sid int64) (survey.Survey, int64, codeIndex, error) {
	keys := []dynamo.Keyed{dynamo.Keys{SurveyPK(sid), SurveySK}, dynamo.Keys{l.pk(sid), codePagesSK}}
	if l.legacyCount {
		keys = append(keys, dynamo.Keys{SurveyPK(sid), settingsSK})
	}
	for i := range CodeCountShards {
		keys = append(keys, dynamo.Keys{l.pk(sid), CodeCountSK(i)})
	}
	var items []dynamo.Item
	err := s.table.Batch(AttrPK, AttrSK).Get(keys...).Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return survey.Survey{}, 0, codeIndex{}, s.fail(fmt.Sprintf("count %s of survey %d", l.name, sid), err)
	}
	var sv survey.Survey
	var n int64
	found, ix := false, codeIndex{depth: -1}
	for _, item := range items {
		switch skOf(item) {
		case SurveySK:
			if sv, err = decodeSurvey(item); err != nil {
				return survey.Survey{}, 0, codeIndex{}, err
			}
			found = true
			continue
		case codePagesSK:
			var m codePageMeta
			if err := dynamo.UnmarshalItem(item, &m); err != nil {
				return survey.Survey{}, 0, codeIndex{}, fmt.Errorf("store: decode code index: %w", err)
			}
			ix = codeIndex{depth: m.Depth, marks: m.Marks}
			continue
		}
		var c countItem
		if err := dynamo.UnmarshalItem(item, &c); err != nil {
			return survey.Survey{}, 0, codeIndex{}, fmt.Errorf("store: decode code count: %w", err)
		}
		n += c.Count
	}
	if !found {
		return survey.Survey{}, 0, codeIndex{}, survey.ErrNotFound
	}
	return sv, n, ix, nil
}

// CodesPage reads page (1-based) of pageSize codes of a survey, in byte
// order (see CodesPageRead).
func (s *Store) CodesPage(ctx context.Context, sid int64, page, pageSize int) ([]string, error) {
	codes, _, err := s.CodesPageRead(ctx, sid, page, pageSize)
	return codes, err
}

// CodesPageRead reads page (1-based) of pageSize codes of a survey, in
// byte order, and answers the items it read. DynamoDB has no offset: the
// codes' page index (codepages.go) finds the leaf of the trie where the
// page starts, and one Query reads from there the few codes of that leaf
// before the page's first and the page. Where the index cannot answer (a
// survey whose codes predate it), the codes of earlier pages are read and
// dropped, keys only, up to 10,000 a Query (a code item is a few dozen
// bytes, so that is one 1 MB page): page 20 of 500 is then one Query of
// 10,000.
func (s *Store) CodesPageRead(ctx context.Context, sid int64, page, pageSize int) ([]string, int, error) {
	return s.listPageRead(ctx, codeList, sid, page, pageSize)
}

// listPageRead reads page (1-based) of pageSize items of a survey's list
// l, in byte order, and answers the items it read (see CodesPageRead).
func (s *Store) listPageRead(ctx context.Context, l itemList, sid int64, page, pageSize int) ([]string, int, error) {
	skip, ok := survey.PageOffset(page, pageSize)
	if !ok { // past the end of any list: the handler answered 404 before
		return nil, 0, nil
	}
	if skip == 0 { // the first page starts at the first item: nothing to find
		return s.codesFrom(ctx, l, sid, "", 0, pageSize)
	}
	from, within, read, ok, err := s.codePageStart(ctx, l, sid, skip)
	if err != nil {
		return nil, read, err
	}
	if !ok {
		from, within = "", skip
	}
	codes, n, err := s.codesFrom(ctx, l, sid, from, within, pageSize)
	return codes, read + n, err
}

// codesFrom reads the items of list l from the first at or after from in
// byte order, passing over skip of them, up to pageSize; and the items read.
func (s *Store) codesFrom(ctx context.Context, l itemList, sid int64, from string, skip int64, pageSize int) ([]string, int, error) {
	need := skip + int64(pageSize)
	out := make([]string, 0, pageSize)
	var start dynamo.PagingKey
	var seen int64
	for seen < need {
		var items []codeItem
		q := s.table.Get(AttrPK, l.pk(sid)).Range(AttrSK, dynamo.Between, l.sk(from), l.end).
			Project(AttrPK, AttrSK).SearchLimit(int(min(need-seen, 10000)))
		if start != nil {
			q = q.StartFrom(start)
		}
		next, err := q.AllWithLastEvaluatedKey(ctx, &items)
		if err != nil {
			return nil, int(seen), s.fail(fmt.Sprintf("read %s of survey %d", l.name, sid), err)
		}
		for _, it := range items {
			if seen >= skip && seen < need {
				out = append(out, strings.TrimPrefix(it.SK, l.prefix))
			}
			seen++
		}
		if next == nil || len(items) == 0 {
			break
		}
		start = next
	}
	return out, int(seen), nil
}

// codeEnd is above every code's SK and below every other item of the
// codes' partition ('$' follows '#').
const codeEnd = "CODE$"

// CheckCode tells whether a responder's code admits them to the survey:
// it is one of the survey's codes and, when codes are unique, no response
// has spent it yet. It only reads (one strongly consistent GetItem): the
// response that carries the code spends it, in its own transaction (see
// Submit), so of racing responses exactly one is recorded. ok is false for
// an unknown or spent code alike.
func (s *Store) CheckCode(ctx context.Context, sid int64, code string, unique bool) (ok bool, err error) {
	var it codeItem
	err = s.table.Get(AttrPK, CodesPK(sid)).Range(AttrSK, dynamo.Equal, CodeSK(code)).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, s.fail("check code", err)
	}
	return !(unique && it.Used), nil
}

// PublicSurvey is what the public routes know of a survey found by its
// slug: the survey and its settings.
type PublicSurvey struct {
	Survey   survey.Survey
	Settings survey.Settings
	// Layout is read with them where the caller asks for it (a session's
	// choice orders: GuardedSurveyBySlug), else empty.
	Layout survey.Layout
	// Translations are the survey's other languages and their texts
	// (contract section 24): a session's language is one of them.
	Translations survey.Translations
}

// decodePublic decodes the survey and settings items of a public read; no
// survey item answers ENOTFOUND.
func decodePublic(items []dynamo.Item) (PublicSurvey, error) {
	var out PublicSurvey
	found := false
	for _, item := range items {
		switch skOf(item) {
		case SurveySK:
			sv, err := decodeSurvey(item)
			if err != nil {
				return PublicSurvey{}, err
			}
			out.Survey, found = sv, true
		case settingsSK:
			var it settingsItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return PublicSurvey{}, fmt.Errorf("store: decode settings: %w", err)
			}
			out.Settings = it.settings()
		case layoutSK:
			var it layoutItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return PublicSurvey{}, fmt.Errorf("store: decode layout: %w", err)
			}
			l, err := it.layout()
			if err != nil {
				return PublicSurvey{}, err
			}
			out.Layout = l
		case translationsSK:
			t, err := decodeTranslations(item)
			if err != nil {
				return PublicSurvey{}, err
			}
			out.Translations = t
		}
	}
	if !found {
		return PublicSurvey{}, survey.ErrNotFound
	}
	return out, nil
}
