package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

const (
	catalogAccountPK = "CATALOG"
	catalogAccountSK = "ACCOUNT"
)

type catalogAccountItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	AccountID int64  `dynamo:"account_id"`
}

// CatalogAccount is the id of the catalog's account, or ENOTFOUND when no
// account is.
//
// Template surveys (contract section 17): one account is the catalog's
// (CATALOG / ACCOUNT holds its id, put once by `admin account create
// --catalog`); a template of the catalog file may name one of its surveys
// (survey_id), which the import marks is_template. A survey started from
// the template copies that survey (copy.go).
func (s *Store) CatalogAccount(ctx context.Context) (int64, error) {
	var it catalogAccountItem
	err := s.table.Get(AttrPK, catalogAccountPK).Range(AttrSK, dynamo.Equal, catalogAccountSK).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return 0, survey.ErrNotFound
	}
	if err != nil {
		return 0, s.fail("get the catalog account", err)
	}
	return it.AccountID, nil
}

// SetCatalogAccount makes account aid the catalog's. There is one: another
// account answers ECONFLICT naming it; the same account again is a no-op.
func (s *Store) SetCatalogAccount(ctx context.Context, aid int64) error {
	err := s.table.Put(catalogAccountItem{PK: catalogAccountPK, SK: catalogAccountSK, AccountID: aid}).
		If("attribute_not_exists(PK) OR account_id = ?", aid).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		other, err := s.CatalogAccount(ctx)
		if err != nil {
			return err
		}
		return survey.Errorf(survey.ECONFLICT, "account %d is already the catalog account", other)
	}
	if err != nil {
		return s.fail("set the catalog account", err)
	}
	return nil
}

// markTemplateSurveys checks that every survey the templates name is a live
// survey of the catalog account, then marks each is_template and gives its
// template the survey's public slug. Nothing is marked unless every one
// checks out (EINVALID naming the template otherwise).
func (s *Store) markTemplateSurveys(ctx context.Context, templates []survey.Template) error {
	var named []int
	for i, t := range templates {
		if t.SurveyID != 0 {
			named = append(named, i)
		}
	}
	if len(named) == 0 {
		return nil
	}
	aid, err := s.CatalogAccount(ctx)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		t := templates[named[0]]
		return survey.Errorf(survey.EINVALID, "catalog: template id %d: field \"survey_id\": no account is the catalog's (admin account create ... --catalog)", t.ID)
	}
	if err != nil {
		return err
	}
	var unmarked []int64
	for _, i := range named {
		t := &templates[i]
		sv, err := s.Survey(ctx, aid, t.SurveyID)
		if survey.ErrorCode(err) == survey.ENOTFOUND || err == nil && sv.Deleted {
			return survey.Errorf(survey.EINVALID, "catalog: template #%d (id %d): field \"survey_id\": %d is not a live survey of the catalog account %d", i+1, t.ID, t.SurveyID, aid)
		}
		if err != nil {
			return err
		}
		slug := sv.URLSlug
		t.SurveyURLSlug = &slug
		if !sv.IsTemplate {
			unmarked = append(unmarked, sv.ID)
		}
	}
	for _, sid := range unmarked {
		// The public routes take is_template from the container's copy
		// of the survey while the read copies of its state name its
		// collection version: the mark moves it, there too.
		err := s.mirrorState(s.db.WriteTx().Update(s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).Set("is_template", true).
			Add(attrCollectionVersion, 1).If("account_id = ?", aid)), sid, addCV).Run(ctx)
		if err != nil {
			return s.fail(fmt.Sprintf("mark survey %d a template", sid), err)
		}
	}
	return nil
}

// TemplateSurvey finds a template by its id (a decimal string) or its
// url_slug and answers its title and the survey it names (0 when none).
// An unknown template answers ENOTFOUND. It is one GetItem (an id) or one
// Query of the slug index.
func (s *Store) TemplateSurvey(ctx context.Context, ref string) (title string, sid int64, err error) {
	var it templateItem
	if id, perr := strconv.ParseInt(ref, 10, 64); perr == nil && id > 0 {
		err = s.table.Get(AttrPK, TemplatePK(id)).Range(AttrSK, dynamo.Equal, templateSK).One(ctx, &it)
	} else if survey.ValidSlug(ref) {
		err = s.table.Get(AttrGSI1PK, TemplateSlugKey(ref)).Index(IndexGSI1).Limit(1).One(ctx, &it)
	} else {
		return "", 0, survey.ErrNotFound
	}
	if errors.Is(err, dynamo.ErrNotFound) {
		return "", 0, survey.ErrNotFound
	}
	if err != nil {
		return "", 0, s.fail("get template", err)
	}
	t, err := it.template()
	if err != nil {
		return "", 0, err
	}
	return t.Title, t.SurveyID, nil
}
