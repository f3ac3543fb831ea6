package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"surveyservice/shared/survey"
)

const pendingSK = "COPY"

// CopyDeadline is the age after which a pending copy is dead: far beyond
// API Gateway's 29 s and Lambda's 15-minute limits.
const CopyDeadline = 20 * time.Minute

// PendingCopyShards spreads the pending-copy index over partitions.
const PendingCopyShards = 4

// PendingCopyPK is the marker of a copy under way into survey sid.
func PendingCopyPK(sid int64) string { return "PENDING#" + pad(sid) }

// PendingCopyKey is GSI2PK of a pending-copy marker.
func PendingCopyKey(sid int64) string { return fmt.Sprintf("COPYING#%d", sid%PendingCopyShards) }

// copyBatch is the number of items a BatchWriteItem carries, and
// copyParallel how many run at once.
const (
	copyBatch    = 25
	copyParallel = 4
)

// pendingItem marks a copy under way.
type pendingItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	GSI2PK    string `dynamo:"GSI2PK"`
	GSI2SK    string `dynamo:"GSI2SK"`
	SurveyID  int64  `dynamo:"survey_id"`
	AccountID int64  `dynamo:"account_id"`
	Started   string `dynamo:"started"`
}

// CopySpec is what a copy makes: a survey of AccountID in FolderID named
// Name (the source's language unless Language is set), for an account on
// Plan.
type CopySpec struct {
	AccountID, FolderID int64
	Name                string
	Language            *int64
	Plan                survey.Plan
}

// CopyResult is the new survey with everything under it, and the settings
// it did not take because the plan lacks them.
type CopyResult struct {
	SurveyCollection
	DroppedSettings []string
}

// CopySource is the source of a copy, read in one Query.
type CopySource struct {
	SurveyCollection
	items []dynamo.Item
}

// CopySource reads survey sid to copy it. from is the account that must
// own it; 0 asks for a template survey of any account (a template start).
// A missing or foreign survey, or with from 0 one that is not a template,
// answers ENOTFOUND; a survey in the trash survey.ErrSurveyDeleted.
func (s *Store) CopySource(ctx context.Context, from, sid int64) (CopySource, error) {
	var items []dynamo.Item
	if err := s.table.Get(AttrPK, SurveyPK(sid)).Consistent(true).All(ctx, &items); err != nil {
		return CopySource{}, s.fail(fmt.Sprintf("query survey %d", sid), err)
	}
	c, found, err := decodeCollection(items)
	if err != nil {
		return CopySource{}, err
	}
	switch {
	case !found, from != 0 && c.Survey.AccountID != from, from == 0 && !c.Survey.IsTemplate:
		return CopySource{}, survey.ErrNotFound
	case c.Survey.Deleted:
		return CopySource{}, survey.ErrSurveyDeleted
	}
	if err := s.resolveThemes(ctx, []*survey.Survey{&c.Survey}, false); err != nil {
		return CopySource{}, err
	}
	return CopySource{SurveyCollection: c, items: items}, nil
}

// CopySurvey writes a copy of src as spec says, whole or nothing.
// It answers 400 on folder_id for a folder that is not a live one of the
// account, 400 at the account's limit of live surveys, EUNAVAILABLE
// when the store is busy; whatever it wrote is then deleted.
//
// Why a copy is whole or nothing however many elements it has, and how the
// sweeper removes a dead one: docs/data-model.md#copies-of-surveys.
func (s *Store) CopySurvey(ctx context.Context, src CopySource, spec CopySpec) (CopyResult, error) {
	plan, err := s.planCopy(ctx, src, spec)
	if err != nil {
		return CopyResult{}, err
	}
	if err := s.claimCopy(ctx, &plan); err != nil {
		return CopyResult{}, err
	}
	if err := s.writeCopy(ctx, &plan); err != nil {
		s.abandonCopy(ctx, plan)
		return CopyResult{}, err
	}
	t, err := s.keepTheme(ctx, src.Survey.AccountID, plan.result.Survey)
	if err != nil {
		return CopyResult{}, err
	}
	plan.result.Survey.Theme = t
	return plan.result, nil
}

// keepTheme gives a copy its source's theme (contract section 22): a
// public one as it is (the copy's item holds it already), the account's own
// by a marker (SetSurveyTheme), and another account's (a template's) as a
// new theme of the account. Where that cannot be (the theme deleted
// meanwhile, the account at its 200 themes) the copy takes the default
// theme rather than fail a copy that is written.
func (s *Store) keepTheme(ctx context.Context, from int64, sv survey.Survey) (survey.Theme, error) {
	t := sv.Theme
	if survey.IsPublicThemeID(t.ID) {
		return t, nil
	}
	tid := t.ID
	if from != sv.AccountID {
		own, err := s.CreateTheme(ctx, sv.AccountID, t, false)
		if err != nil && !errors.Is(err, survey.ErrTooManyThemes) {
			return t, err
		}
		tid = own.ID
		if err != nil {
			tid = survey.DefaultTheme().ID
		}
	}
	err := s.SetSurveyTheme(ctx, sv.AccountID, sv.ID, tid)
	var se *survey.Error
	if errors.As(err, &se) && se.Code == survey.EINVALID {
		tid = survey.DefaultTheme().ID
		err = s.SetSurveyTheme(ctx, sv.AccountID, sv.ID, tid)
	}
	if err != nil {
		return t, err
	}
	kept, err := s.Theme(ctx, sv.AccountID, tid)
	return kept.WithMedia(s.MediaURL), err
}

// copyPlan is a copy with its new ids and items, ready to write.
type copyPlan struct {
	survey survey.Survey
	items  []any // under SURVEY#<new sid>, written before the survey
	layout layoutItem
	result CopyResult
}

// planCopy allocates the new ids and builds every item of the copy.
func (s *Store) planCopy(ctx context.Context, src CopySource, spec CopySpec) (copyPlan, error) {
	var p copyPlan
	var elemDocs []elementItem
	var itemIDs []int64
	matrixes := map[int64]bool{}
	var settings dynamo.Item
	for _, item := range src.items {
		sk := skOf(item)
		switch {
		case strings.HasPrefix(sk, elementPrefix):
			var it elementItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return p, fmt.Errorf("store: decode element: %w", err)
			}
			ids, err := survey.ItemIDs([]byte(it.Doc))
			if err != nil {
				return p, err
			}
			itemIDs = append(itemIDs, ids...)
			elemDocs = append(elemDocs, it)
			if src.Elements[it.ID].Type == survey.TypeMatrix {
				matrixes[it.ID] = true
			}
		case sk == settingsSK:
			settings = item
		}
	}
	sids, err := s.NewIDs(ctx, KindSurvey, 1)
	if err != nil {
		return p, err
	}
	eids, err := s.NewIDs(ctx, KindElement, len(elemDocs))
	if err != nil {
		return p, err
	}
	cids, err := s.NewIDs(ctx, KindChoice, len(itemIDs))
	if err != nil {
		return p, err
	}
	vids, err := s.NewIDs(ctx, KindVariable, len(src.Variables))
	if err != nil {
		return p, err
	}
	m := survey.IDMap{Elements: make(map[int64]int64, len(elemDocs)), Items: make(map[int64]int64, len(itemIDs))}
	for i, it := range elemDocs {
		m.Elements[it.ID] = eids[i]
	}
	for i, id := range itemIDs {
		m.Items[id] = cids[i]
	}
	sid := sids[0]
	now := s.Now().UTC().Truncate(time.Microsecond)
	from := src.Survey
	sv := survey.Survey{
		ID: sid, AccountID: spec.AccountID, FolderID: spec.FolderID, Name: spec.Name, Language: from.Language,
		Theme: from.Theme, Created: now, QuestionCount: src.Layout.QuestionCount(),
		PreviewCode: survey.NewCode(survey.PreviewCodeLength), ReportCode: survey.NewCode(survey.ReportCodeLength),
	}
	if spec.Language != nil {
		sv.Language = *spec.Language
	}
	if from.ExpirationDate != "" && from.ExpirationDate > survey.Today(now) {
		sv.ExpirationDate = from.ExpirationDate
	}
	p.survey = sv
	p.result.Survey = sv
	p.result.Elements = make(map[int64]survey.Element, len(elemDocs))

	for _, it := range elemDocs {
		doc, err := survey.RemapElement([]byte(it.Doc), m, matrixes)
		if err != nil {
			return p, fmt.Errorf("store: element %d of survey %d: %w", it.ID, from.ID, err)
		}
		nit := elementItem{PK: SurveyPK(sid), SK: ElementSK(m.Elements[it.ID]), ID: m.Elements[it.ID], Doc: string(doc)}
		e, err := nit.element()
		if err != nil {
			return p, err
		}
		p.result.Elements[nit.ID] = e
		p.items = append(p.items, nit)
	}

	p.result.DroppedSettings = survey.DroppedSettings(spec.Plan, src.Settings)
	if settings != nil {
		out := make(dynamo.Item, len(settings))
		for k, v := range settings {
			out[k] = v
		}
		out[AttrPK] = &types.AttributeValueMemberS{Value: SurveyPK(sid)}
		delete(out, AttrCodeCount)
		delete(out, attrPutToken)
		// The copy has no responses: its response limit's places are all
		// its own (a base counted on the source would take them away).
		delete(out, "response_limit_base")
		delete(out, "response_limit_pending")
		for _, f := range p.result.DroppedSettings {
			delete(out, settingsAttr(f))
		}
		p.items = append(p.items, out)
		var it settingsItem
		if err := dynamo.UnmarshalItem(out, &it); err != nil {
			return p, fmt.Errorf("store: decode settings: %w", err)
		}
		p.result.Settings = it.settings()
	}

	p.result.Variables = make([]survey.Variable, len(src.Variables))
	for i, v := range src.Variables {
		v.ID, v.HasResponse = vids[i], false
		p.result.Variables[i] = v
	}
	if len(src.Variables) > 0 {
		doc, err := json.Marshal(p.result.Variables)
		if err != nil {
			return p, fmt.Errorf("store: encode variables: %w", err)
		}
		p.items = append(p.items, variablesItem{PK: SurveyPK(sid), SK: variablesSK, AccountID: spec.AccountID, Doc: string(doc)})
	}

	// Languages and translations (contract section 24) follow the copy's
	// ids, so every translated text is found under the copy's elements.
	if len(src.Translations.Languages) > 0 || len(src.Translations.Texts) > 0 {
		def, _ := survey.LanguageCode(sv.Language)
		item, err := copyTranslations(src.Translations, m, sid, spec.AccountID, def)
		if err != nil {
			return p, fmt.Errorf("store: copy translations: %w", err)
		}
		p.items = append(p.items, item)
		if p.result.Translations, err = decodeTranslations(item); err != nil {
			return p, err
		}
	}
	l := src.Layout.Remap(m.Elements)
	// What the copy's rules name, its shuffled choices and its timers
	// come from its own (remapped) elements, as an element write keeps them.
	for _, e := range p.result.Elements {
		l.SetRules(e)
		l.SetShuffle(e)
		l.SetTiming(e)
	}
	p.result.Layout = l
	if p.layout, err = newLayoutItem(sid, spec.AccountID, l); err != nil {
		return p, err
	}
	return p, nil
}

// claimCopy puts the pending marker of the copy, on the condition that no
// survey holds its id; a taken id takes a fresh one (idTaken).
func (s *Store) claimCopy(ctx context.Context, p *copyPlan) error {
	for ids := 1; ; ids++ {
		sid := p.survey.ID
		marker := pendingItem{PK: PendingCopyPK(sid), SK: pendingSK, GSI2PK: PendingCopyKey(sid),
			GSI2SK: p.survey.Created.Format(survey.TimestampLayout) + "#" + pad(sid), SurveyID: sid,
			AccountID: p.survey.AccountID, Started: p.survey.Created.Format(survey.TimestampLayout)}
		err := s.db.WriteTx().
			Check(s.table.Check(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).If("attribute_not_exists(PK)")).
			Check(s.table.Check(AttrPK, SurveyPK(sid)).Range(AttrSK, layoutSK).If("attribute_not_exists(PK)")).
			Put(s.table.Put(marker)).Run(ctx)
		switch {
		case err == nil:
			return nil
		case (txFailedAt(err, 0) || txFailedAt(err, 1)) && ids < idAttempts:
			if err := s.idTaken(ctx, KindSurvey, sid); err != nil {
				return err
			}
			fresh, err := s.NewIDs(ctx, KindSurvey, 1)
			if err != nil {
				return err
			}
			p.rekey(fresh[0])
		case txFailedAt(err, 0) || txFailedAt(err, 1):
			return errIDsTaken
		default:
			return s.fail("claim a survey id for a copy", err)
		}
	}
}

// rekey moves a planned copy to another survey id.
func (p *copyPlan) rekey(sid int64) {
	pk := SurveyPK(sid)
	for i, it := range p.items {
		switch it := it.(type) {
		case elementItem:
			it.PK = pk
			p.items[i] = it
		case variablesItem:
			it.PK = pk
			p.items[i] = it
		case dynamo.Item:
			it[AttrPK] = &types.AttributeValueMemberS{Value: pk}
		}
	}
	p.layout.PK = pk
	p.survey.ID = sid
	p.result.Survey.ID = sid
}

// writeCopy writes the items, then makes the survey in one transaction.
func (s *Store) writeCopy(ctx context.Context, p *copyPlan) error {
	// Not errgroup.WithContext: cancelling writes in flight would leave
	// them to land (or not) after the clean-up has read what to delete.
	// A failure only stops the writes not yet sent.
	var g errgroup.Group
	var failed atomic.Bool
	g.SetLimit(copyParallel)
	for chunk := range slices.Chunk(p.items, copyBatch) {
		g.Go(func() error {
			if failed.Load() {
				return nil
			}
			if _, err := s.table.Batch().Write().Put(chunk...).Run(ctx); err != nil {
				failed.Store(true)
				return s.fail(fmt.Sprintf("write copy into survey %d", p.survey.ID), err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	sv := p.survey
	limit := s.Limits.LiveSurveys
	started := time.Now()
	for slugs, conflicts := 1, 1; ; {
		sv.URLSlug = survey.NewCode(survey.SlugLength)
		it, err := newSurveyItem(sv)
		if err != nil {
			return err
		}
		// The copy's last transaction, which makes it live, is the
		// request's write: its entry and a member's shares go in it.
		noteCreated(ctx, sv.ID, sv.Created)
		err = s.runTx(ctx, s.createResponsePages(s.createState(s.db.WriteTx().
			Check(s.table.Check(AttrPK, AccountPK(sv.AccountID)).Range(AttrSK, FolderSK(sv.FolderID)).If(folderLive)).
			Put(s.table.Put(it).If("attribute_not_exists(PK)")).
			Put(s.table.Put(slugItem{PK: SlugPK(sv.URLSlug), SK: slugSK, SurveyID: sv.ID}).If("attribute_not_exists(PK)")).
			Put(s.table.Put(p.layout)).
			Update(s.countUp(sv.AccountID, attrLiveSurveys, limit)).
			Put(s.table.Put(newReportItem(sv))).
			Delete(s.table.Delete(AttrPK, PendingCopyPK(sv.ID)).Range(AttrSK, pendingSK).If("attribute_exists(PK)")).
			Put(s.table.Put(newPreviewItem(sv))), sv), sv))
		switch {
		case err == nil:
			p.survey, p.result.Survey = sv, sv
			return nil
		case txFailedAt(err, 0):
			return folderMissing(sv.FolderID)
		case txFailedAt(err, 4):
			return limitRefusal(err, 4, attrLiveSurveys, limit)
		case txFailedAt(err, 6):
			return survey.Errorf(survey.EUNAVAILABLE, "The copy took too long; try again.")
		case txFailedAt(err, 2) && slugs < slugAttempts:
			slugs++
		case retryConflict(ctx, err, conflicts, started):
			conflicts++
		default:
			return s.fail(fmt.Sprintf("create copy %d", sv.ID), err)
		}
	}
}

// abandonCopy deletes what a failed copy wrote, and its marker, on a
// context of its own: the request's may be what failed.
func (s *Store) abandonCopy(ctx context.Context, p copyPlan) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
	defer cancel()
	_ = s.deleteCopy(ctx, p.survey.ID) // on failure the marker stays: CleanPendingCopies finishes it
}

// deleteCopy deletes every item under SURVEY#<sid> of a copy that never
// became a survey, then its marker. It refuses a survey that exists: the
// copy completed.
func (s *Store) deleteCopy(ctx context.Context, sid int64) error {
	var keys []struct {
		PK string `dynamo:"PK"`
		SK string `dynamo:"SK"`
	}
	if err := s.table.Get(AttrPK, SurveyPK(sid)).Project(AttrPK, AttrSK).Consistent(true).All(ctx, &keys); err != nil {
		return s.fail(fmt.Sprintf("query copy %d", sid), err)
	}
	dk := make([]dynamo.Keyed, 0, len(keys))
	for _, k := range keys {
		if k.SK == SurveySK {
			// Completed after all: only the marker is left to remove.
			dk = dk[:0]
			break
		}
		dk = append(dk, dynamo.Keys{k.PK, k.SK})
	}
	for chunk := range slices.Chunk(dk, copyBatch) {
		if _, err := s.table.Batch(AttrPK, AttrSK).Write().Delete(chunk...).Run(ctx); err != nil {
			return s.fail(fmt.Sprintf("delete copy %d", sid), err)
		}
	}
	if err := s.table.Delete(AttrPK, PendingCopyPK(sid)).Range(AttrSK, pendingSK).Run(ctx); err != nil {
		return s.fail(fmt.Sprintf("delete marker of copy %d", sid), err)
	}
	return nil
}

// PendingCopy is a copy under way, or dead.
type PendingCopy struct {
	SurveyID  int64  `dynamo:"survey_id"`
	AccountID int64  `dynamo:"account_id"`
	Started   string `dynamo:"started"`
}

// PendingCopies lists the copies started before cutoff whose markers
// remain: one Query of each shard of the sparse index.
func (s *Store) PendingCopies(ctx context.Context, cutoff time.Time) ([]PendingCopy, error) {
	var out []PendingCopy
	for shard := range int64(PendingCopyShards) {
		var page []PendingCopy
		err := s.table.Get(AttrGSI2PK, PendingCopyKey(shard)).Index(IndexGSI2).
			Range(AttrGSI2SK, dynamo.Less, cutoff.UTC().Format(survey.TimestampLayout)).All(ctx, &page)
		if err != nil {
			return nil, s.fail(fmt.Sprintf("query pending copies %d", shard), err)
		}
		out = append(out, page...)
	}
	return out, nil
}

// CleanPendingCopies deletes the copies that died (started more than
// CopyDeadline before now): their items and their markers. It answers how
// many it removed. Its work is proportional to the dead copies: one Query
// of each shard of the sparse marker index, then per copy one Query of its
// keys and a BatchWriteItem per 25 of them.
func (s *Store) CleanPendingCopies(ctx context.Context, now time.Time) (int, error) {
	dead, err := s.PendingCopies(ctx, now.Add(-CopyDeadline))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range dead {
		if err := s.deleteCopy(ctx, d.SurveyID); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
