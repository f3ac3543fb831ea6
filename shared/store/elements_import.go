// Test seeders: bulk writes that tests, benchmarks and the admin tests use
// to make many surveys or elements at once, bypassing the owner's checks.
// A Lambda binary is built with the lambda.norpc tag (Makefile, GOBUILD)
// and leaves this file out, so no function carries them
// (internal/localaws TestLambdasCarryNoLocalStandIns).

//go:build !lambda.norpc

package store

import (
	"context"
	"fmt"

	"surveyservice/shared/survey"
)

// ImportElements writes element documents (JSON, each holding its id) into
// a survey of the account with the layout that places them, in batched
// writes of 25 items, replacing the layout: for migrations, and for tests
// and benchmarks that need surveys of hundreds of elements. Unlike
// CreateElement it checks nothing; the caller vouches for the documents
// and the layout (the survey's question_count is set from it).
func (s *Store) ImportElements(ctx context.Context, aid, sid int64, l survey.Layout, docs map[int64]string) error {
	items := make([]any, 0, len(docs)+1)
	for id, doc := range docs {
		items = append(items, elementItem{PK: SurveyPK(sid), SK: ElementSK(id), ID: id, Doc: doc})
	}
	lay, err := newLayoutItem(sid, aid, l)
	if err != nil {
		return err
	}
	items = append(items, lay)
	if _, err := s.table.Batch().Write().Put(items...).Run(ctx); err != nil {
		return s.fail(fmt.Sprintf("import elements of survey %d", sid), err)
	}
	err = s.mirrorState(s.db.WriteTx().Update(s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).
		Set("question_count", l.QuestionCount()).Add(attrCollectionVersion, 1).If("account_id = ?", aid)), sid, addCV).Run(ctx)
	if err != nil {
		return s.fail(fmt.Sprintf("count questions of survey %d", sid), err)
	}
	return nil
}
