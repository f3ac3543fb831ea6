package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

const templateSK = "TEMPLATE"

// templateItem stores a template as its JSON document plus the keys that
// index it: the catalog is read as documents and never queried by field.
type templateItem struct {
	PK      string  `dynamo:"PK"`
	SK      string  `dynamo:"SK"`
	GSI1PK  string  `dynamo:"GSI1PK"`
	GSI1SK  string  `dynamo:"GSI1SK"`
	GSI2PK  string  `dynamo:"GSI2PK"`
	GSI2SK  string  `dynamo:"GSI2SK"`
	ID      int64   `dynamo:"id"`
	Slug    string  `dynamo:"url_slug"`
	Doc     string  `dynamo:"doc"`
	Similar []int64 `dynamo:"similar,omitempty"`
	// SurveyID is the template's survey (template_surveys.go), or 0.
	SurveyID int64 `dynamo:"survey_id,omitempty"`
}

func newTemplateItem(t survey.Template) (templateItem, error) {
	t.SimilarTemplates = nil
	doc, err := json.Marshal(t)
	if err != nil {
		return templateItem{}, fmt.Errorf("store: encode template %d: %w", t.ID, err)
	}
	return templateItem{
		PK: TemplatePK(t.ID), SK: templateSK,
		GSI1PK: TemplateSlugKey(t.URLSlug), GSI1SK: templateSK,
		GSI2PK: CatalogKey, GSI2SK: CatalogSK(t.Score, t.ID),
		ID: t.ID, Slug: t.URLSlug, Doc: string(doc), Similar: t.SimilarIDs, SurveyID: t.SurveyID,
	}, nil
}

func (it templateItem) template() (survey.Template, error) {
	var t survey.Template
	if err := json.Unmarshal([]byte(it.Doc), &t); err != nil {
		return survey.Template{}, fmt.Errorf("store: decode template %d: %w", it.ID, err)
	}
	t.SimilarTemplates = nil
	t.SimilarIDs = it.Similar
	t.SurveyID = it.SurveyID
	return t, nil
}

// ImportTemplates loads a catalog file (see survey.ParseCatalog). Every
// template is checked, against the file and against the catalog already
// stored, before anything is written; a re-import of the same ids replaces
// them. It answers how many templates it wrote, or EINVALID naming the
// template and field at fault (and then writes nothing).
func (s *Store) ImportTemplates(ctx context.Context, data []byte) (int, error) {
	existing, err := s.Catalog(ctx)
	if err != nil {
		return 0, err
	}
	known := make(map[int64]bool, len(existing))
	slugOwner := make(map[string]int64, len(existing))
	for _, t := range existing {
		known[t.ID] = true
		slugOwner[t.URLSlug] = t.ID
	}
	templates, err := survey.ParseCatalog(data, known)
	if err != nil {
		return 0, err
	}
	if err := s.markTemplateSurveys(ctx, templates); err != nil {
		return 0, err
	}
	items := make([]any, 0, len(templates))
	for i, t := range templates {
		if owner, taken := slugOwner[t.URLSlug]; taken && owner != t.ID {
			// The owner may be renamed by this same file; only a slug that
			// stays taken after the import is a conflict.
			if !renamedIn(templates, owner, t.URLSlug) {
				return 0, survey.Errorf(survey.EINVALID, "catalog: template #%d (id %d): field \"url_slug\": %q is the slug of stored template id %d", i+1, t.ID, t.URLSlug, owner)
			}
		}
		it, err := newTemplateItem(t)
		if err != nil {
			return 0, err
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		return 0, nil
	}
	wrote, err := s.table.Batch().Write().Put(items...).Run(ctx)
	if err != nil {
		return wrote, s.fail("import templates", err)
	}
	return wrote, nil
}

func renamedIn(templates []survey.Template, id int64, slug string) bool {
	for _, t := range templates {
		if t.ID == id {
			return t.URLSlug != slug
		}
	}
	return false
}

// Catalog returns every template, ordered by score descending then id, in
// one Query of the catalog index (paged through 1 MB pages).
func (s *Store) Catalog(ctx context.Context) ([]survey.Template, error) {
	var items []templateItem
	err := s.table.Get(AttrGSI2PK, CatalogKey).Index(IndexGSI2).All(ctx, &items)
	if err != nil {
		return nil, s.fail("query catalog", err)
	}
	out := make([]survey.Template, 0, len(items))
	for _, it := range items {
		t, err := it.template()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// TemplateBySlug returns the template with the slug, its similar templates
// expanded (each with null similar_templates) in the stored order. It makes
// two calls: one Query of the slug index and one BatchGetItem. A missing
// slug answers ENOTFOUND.
func (s *Store) TemplateBySlug(ctx context.Context, slug string) (survey.Template, error) {
	if !survey.ValidSlug(slug) {
		return survey.Template{}, survey.ErrNotFound
	}
	var it templateItem
	err := s.table.Get(AttrGSI1PK, TemplateSlugKey(slug)).Index(IndexGSI1).Limit(1).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return survey.Template{}, survey.ErrNotFound
	}
	if err != nil {
		return survey.Template{}, s.fail("get template by slug", err)
	}
	t, err := it.template()
	if err != nil {
		return survey.Template{}, err
	}
	t.SimilarTemplates = []survey.Template{}
	if len(t.SimilarIDs) == 0 {
		return t, nil
	}
	keys := make([]dynamo.Keyed, 0, len(t.SimilarIDs))
	for _, id := range t.SimilarIDs {
		keys = append(keys, dynamo.Keys{TemplatePK(id), templateSK})
	}
	var similar []templateItem
	err = s.table.Batch(AttrPK, AttrSK).Get(keys...).All(ctx, &similar)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return survey.Template{}, s.fail("get similar templates", err)
	}
	byID := make(map[int64]templateItem, len(similar))
	for _, sit := range similar {
		byID[sit.ID] = sit
	}
	for _, id := range t.SimilarIDs {
		sit, ok := byID[id]
		if !ok {
			continue
		}
		st, err := sit.template()
		if err != nil {
			return survey.Template{}, err
		}
		t.SimilarTemplates = append(t.SimilarTemplates, st)
	}
	return t, nil
}
