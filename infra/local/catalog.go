package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// catalogEmail is the catalog account `make run` creates (or reuses).
const catalogEmail = "catalog@example.com"

// templateSurveys are the sample templates that are backed by a survey, by
// template id (infra/seed/templates.json).
//
// The sample catalog's template surveys (contract section 17): `make run`
// makes the catalog account (as `admin account create --catalog` does),
// builds a real survey for some of the sample templates through the API,
// and imports the catalog with their survey_id, so that a new user starts
// a survey from a template with one curl.
var templateSurveys = []struct {
	templateID int64
	spec       surveySpec
}{
	{102, surveySpec{Name: "Customer Satisfaction Survey", Language: 4, Elements: []map[string]any{
		{"type": 1, "title": "Tell us how we did", "description": "Three questions, one minute."},
		{"type": 7, "title": "How satisfied are you with your purchase?", "rating_max": 5, "show_charts": true, "answer_required": true},
		{"type": 3, "title": "What did you like most?", "choices": choices("Product quality", "Price", "Delivery", "Support"),
			"allow_multiple_select": true, "show_charts": true},
		{"type": 2, "title": "What could we do better?"},
		{"type": 9, "title": "Thank you for your feedback!"},
	}, Settings: map[string]any{"hide_previous_button": false}}},
	{104, surveySpec{Name: "Net Promoter Score (NPS) Survey", Language: 4, Elements: []map[string]any{
		{"type": 6, "title": "How likely are you to recommend us to a friend or colleague?", "scale_min": 0, "scale_max": 10,
			"left_label": "Not at all likely", "right_label": "Extremely likely", "show_charts": true, "answer_required": true},
		{"type": 2, "title": "What is the main reason for your score?"},
		{"type": 9, "title": "Thank you!"},
	}}},
	{101, surveySpec{Name: "نظرسنجی رضایت مشتری", Language: 1, Elements: []map[string]any{
		{"type": 7, "title": "چقدر از خرید خود راضی هستید؟", "rating_max": 5, "show_charts": true, "answer_required": true},
		{"type": 3, "title": "کدام بخش را بیشتر پسندیدید؟", "choices": choices("کیفیت", "قیمت", "ارسال", "پشتیبانی"), "show_charts": true},
		{"type": 2, "title": "پیشنهاد شما برای بهتر شدن چیست؟"},
		{"type": 9, "title": "سپاسگزاریم!"},
	}}},
}

// catalogAccount finds the catalog account, or creates it (the catalog's:
// one account), and issues a key for it.
func catalogAccount(ctx context.Context, st *store.Store) (string, error) {
	acct, err := st.AccountByEmail(ctx, catalogEmail)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		acct, err = st.CreateAccount(ctx, survey.Account{Email: catalogEmail, FirstName: "Template", LastName: "Catalog", Plan: survey.PlanEnterprise})
	}
	if err != nil {
		return "", fmt.Errorf("catalog account: %w", err)
	}
	if err := st.SetCatalogAccount(ctx, acct.ID); err != nil {
		return "", fmt.Errorf("catalog account: %w", err)
	}
	return st.CreateKey(ctx, acct.ID)
}

// loadCatalog builds (or finds) the template surveys under the catalog
// account and imports the sample catalog with their survey ids; it
// answers how many templates it imported and the slugs of the backed ones.
func loadCatalog(ctx context.Context, st *store.Store, h http.Handler, catalog []byte) (int, map[int64]string, error) {
	key, err := catalogAccount(ctx, st)
	if err != nil {
		return 0, nil, err
	}
	c := apiClient{h: h, key: key}
	ids := map[int64]int64{}
	slugs := map[int64]string{}
	for _, ts := range templateSurveys {
		sv, found, err := findSurveyByName(c, ts.spec.Name)
		if err == nil && !found {
			sv, err = buildSurvey(c, ts.spec)
		}
		if err != nil {
			return 0, nil, fmt.Errorf("template survey %q: %w", ts.spec.Name, err)
		}
		ids[ts.templateID], slugs[ts.templateID] = sv.ID, sv.URLSlug
	}
	data, err := withSurveyIDs(catalog, ids)
	if err != nil {
		return 0, nil, err
	}
	n, err := st.ImportTemplates(ctx, data)
	if err != nil {
		return 0, nil, fmt.Errorf("load the sample catalog: %w", err)
	}
	return n, slugs, nil
}

// withSurveyIDs sets survey_id on the catalog's templates named in ids.
func withSurveyIDs(catalog []byte, ids map[int64]int64) ([]byte, error) {
	var templates []map[string]json.RawMessage
	if err := json.Unmarshal(catalog, &templates); err != nil {
		return nil, fmt.Errorf("sample catalog: %w", err)
	}
	for _, t := range templates {
		var id int64
		if err := json.Unmarshal(t["id"], &id); err != nil {
			return nil, fmt.Errorf("sample catalog: id: %w", err)
		}
		if sid, ok := ids[id]; ok {
			t["survey_id"] = json.RawMessage(fmt.Sprint(sid))
		}
	}
	return json.Marshal(templates)
}
