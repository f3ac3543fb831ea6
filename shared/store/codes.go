package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"surveyservice/shared/survey"
)

// codeItem is CODES#<sid> / CODE#<code>: one authentication code. Used
// marks a code spent by a response under code_auth_is_unique.
type codeItem struct {
	PK   string `dynamo:"PK"`
	SK   string `dynamo:"SK"`
	Used bool   `dynamo:"used,omitempty"`
}

const (
	codeChunk       = 100 // codes per existence check (BatchGetItem's limit)
	codeParallelism = 8   // chunks in flight at once
)

func chunks(codes []string, n int) [][]string {
	var out [][]string
	for len(codes) > n {
		out = append(out, codes[:n])
		codes = codes[n:]
	}
	if len(codes) > 0 {
		out = append(out, codes)
	}
	return out
}

// existing returns which of the codes (at most 100) the survey holds: one
// BatchGetItem of their keys.
func (s *Store) existing(ctx context.Context, sid int64, codes []string) (map[string]bool, error) {
	keys := make([]dynamo.Keyed, len(codes))
	for i, c := range codes {
		keys[i] = dynamo.Keys{CodesPK(sid), CodeSK(c)}
	}
	var found []codeItem
	err := s.table.Batch(AttrPK, AttrSK).Get(keys...).Project(AttrSK).Consistent(true).All(ctx, &found)
	if err != nil && err != dynamo.ErrNotFound {
		return nil, s.fail(fmt.Sprintf("check codes of survey %d", sid), err)
	}
	out := make(map[string]bool, len(found))
	for _, it := range found {
		out[strings.TrimPrefix(it.SK, "CODE#")] = true
	}
	return out, nil
}

// AddCodes stores the codes (already de-duplicated) for a survey of the
// account, keeping the codes it holds. Chunks of 100 are checked for the
// codes that exist and the new ones written with batched writes, 8 chunks
// in parallel; the count on the settings item grows by exactly the codes
// written. (Two uploads racing on the same new code could both count it;
// the owner's DELETE of every code resets the count.)
func (s *Store) AddCodes(ctx context.Context, aid, sid int64, codes []string) error {
	if err := s.checkWritable(ctx, aid, sid); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(codeParallelism)
	for _, chunk := range chunks(codes, codeChunk) {
		g.Go(func() error {
			have, err := s.existing(gctx, sid, chunk)
			if err != nil {
				return err
			}
			var items []any
			for _, c := range chunk {
				if !have[c] {
					items = append(items, codeItem{PK: CodesPK(sid), SK: CodeSK(c)})
				}
			}
			if len(items) == 0 {
				return nil
			}
			if _, err := s.table.Batch().Write().Put(items...).Run(gctx); err != nil {
				return s.fail(fmt.Sprintf("write codes of survey %d", sid), err)
			}
			return s.addCodeCount(gctx, sid, len(items))
		})
	}
	return g.Wait()
}

func (s *Store) addCodeCount(ctx context.Context, sid int64, n int) error {
	err := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, settingsSK).Add("code_count", n).Run(ctx)
	if err != nil {
		return s.fail(fmt.Sprintf("count codes of survey %d", sid), err)
	}
	return nil
}

// DeleteCodes removes the given codes of a survey of the account (unknown
// ones are ignored) and lowers the count by the codes that existed.
func (s *Store) DeleteCodes(ctx context.Context, aid, sid int64, codes []string) error {
	if err := s.checkWritable(ctx, aid, sid); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(codeParallelism)
	for _, chunk := range chunks(codes, codeChunk) {
		g.Go(func() error {
			have, err := s.existing(gctx, sid, chunk)
			if err != nil {
				return err
			}
			var keys []dynamo.Keyed
			for c := range have {
				keys = append(keys, dynamo.Keys{CodesPK(sid), CodeSK(c)})
			}
			if len(keys) == 0 {
				return nil
			}
			if _, err := s.table.Batch(AttrPK, AttrSK).Write().Delete(keys...).Run(gctx); err != nil {
				return s.fail(fmt.Sprintf("delete codes of survey %d", sid), err)
			}
			return s.addCodeCount(gctx, sid, -len(keys))
		})
	}
	return g.Wait()
}

// DeleteAllCodes removes every code of a survey of the account: a Query of
// the code keys, page by page, and batched deletes in parallel; the count
// is then zero.
func (s *Store) DeleteAllCodes(ctx context.Context, aid, sid int64) error {
	if err := s.checkWritable(ctx, aid, sid); err != nil {
		return err
	}
	iter := s.table.Get(AttrPK, CodesPK(sid)).Project(AttrPK, AttrSK).Iter()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(codeParallelism)
	var batch []dynamo.Keyed
	flush := func(keys []dynamo.Keyed) {
		g.Go(func() error {
			if _, err := s.table.Batch(AttrPK, AttrSK).Write().Delete(keys...).Run(gctx); err != nil {
				return s.fail(fmt.Sprintf("delete codes of survey %d", sid), err)
			}
			return nil
		})
	}
	var it codeItem
	for iter.Next(ctx, &it) {
		batch = append(batch, dynamo.Keys{it.PK, it.SK})
		if len(batch) == 25 {
			flush(batch)
			batch = nil
		}
	}
	if len(batch) > 0 {
		flush(batch)
	}
	if err := iter.Err(); err != nil {
		_ = g.Wait()
		return s.fail(fmt.Sprintf("list codes of survey %d", sid), err)
	}
	if err := g.Wait(); err != nil {
		return err
	}
	err := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, settingsSK).Set("code_count", 0).Run(ctx)
	if err != nil {
		return s.fail(fmt.Sprintf("reset code count of survey %d", sid), err)
	}
	return nil
}

// CodesPage reads page (1-based) of pageSize codes of a survey, in byte
// order. DynamoDB has no offset: the codes of earlier pages are read and
// dropped, keys only, up to 10,000 a Query (a code item is a few dozen
// bytes, so that is one 1 MB page). Page 1 of 500 is one Query of 500
// items; page 20 is one Query of 10,000.
func (s *Store) CodesPage(ctx context.Context, sid int64, page, pageSize int) ([]string, error) {
	skip, need := (page-1)*pageSize, page*pageSize
	out := make([]string, 0, pageSize)
	var start dynamo.PagingKey
	for seen := 0; seen < need; {
		var items []codeItem
		q := s.table.Get(AttrPK, CodesPK(sid)).Project(AttrPK, AttrSK).SearchLimit(min(need-seen, 10000))
		if start != nil {
			q = q.StartFrom(start)
		}
		next, err := q.AllWithLastEvaluatedKey(ctx, &items)
		if err != nil {
			return nil, s.fail(fmt.Sprintf("read codes of survey %d", sid), err)
		}
		for _, it := range items {
			if seen >= skip && seen < need {
				out = append(out, strings.TrimPrefix(it.SK, "CODE#"))
			}
			seen++
		}
		if next == nil || len(items) == 0 {
			break
		}
		start = next
	}
	return out, nil
}

// CheckCode tells whether a responder's code admits them to the survey:
// it is one of the survey's codes and, when codes are unique, no response
// has spent it yet. It only reads (one strongly consistent GetItem): the
// response that carries the code spends it, in its own transaction (see
// Submit), so of racing responses exactly one is recorded. ok is false for
// an unknown or spent code alike.
func (s *Store) CheckCode(ctx context.Context, sid int64, code string, unique bool) (ok bool, err error) {
	var it codeItem
	err = s.table.Get(AttrPK, CodesPK(sid)).Range(AttrSK, dynamo.Equal, CodeSK(code)).Consistent(true).One(ctx, &it)
	if err == dynamo.ErrNotFound {
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
}

// SurveyBySlug finds a survey by its public slug: one read of the slug, one
// BatchGetItem of the survey and its settings. A missing slug answers
// ENOTFOUND.
func (s *Store) SurveyBySlug(ctx context.Context, slug string) (PublicSurvey, error) {
	sid, err := s.SurveyIDBySlug(ctx, slug)
	if err != nil {
		return PublicSurvey{}, err
	}
	var items []dynamo.Item
	err = s.table.Batch(AttrPK, AttrSK).
		Get(dynamo.Keys{SurveyPK(sid), surveySK}, dynamo.Keys{SurveyPK(sid), settingsSK}).All(ctx, &items)
	if err != nil && err != dynamo.ErrNotFound {
		return PublicSurvey{}, s.fail("get public survey", err)
	}
	var out PublicSurvey
	found := false
	for _, item := range items {
		switch skOf(item) {
		case surveySK:
			if out.Survey, err = decodeSurvey(item); err != nil {
				return PublicSurvey{}, err
			}
			found = true
		case settingsSK:
			var it settingsItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return PublicSurvey{}, fmt.Errorf("store: decode settings: %w", err)
			}
			out.Settings = it.settings()
		}
	}
	if !found {
		return PublicSurvey{}, survey.ErrNotFound
	}
	return out, nil
}
