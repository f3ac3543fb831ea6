package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"surveyservice/functions/pages"
	"surveyservice/shared/survey"
)

// demoSurveyName names the survey `make run` creates once, with a
// question of each answerable type, so that a new user can open the
// responder's page at once.
const demoSurveyName = "Demo: every question type"

// surveySpec is a survey to build through the API: its language (the
// contract's number), its elements in order (JSON bodies of the elements
// route) and a settings patch.
type surveySpec struct {
	Name     string
	Language int
	Elements []map[string]any
	Settings map[string]any
}

// builtSurvey is what building a survey answers.
type builtSurvey struct {
	ID         int64  `json:"id"`
	URLSlug    string `json:"url_slug"`
	ReportCode string `json:"report_code"`
	FolderID   int64  `json:"folder_id"`
	// Elements are the created elements' answers, in order.
	Elements []map[string]any `json:"-"`
}

// apiClient calls the local handler in-process with an API key.
type apiClient struct {
	h   http.Handler
	key string
}

func (c apiClient) call(method, path string, body, out any) error {
	var rd *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header.Set("Authorization", "Api-Key "+c.key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, req)
	if rec.Code >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, rec.Code, rec.Body.String())
	}
	if out != nil && rec.Code != http.StatusNoContent {
		return json.Unmarshal(rec.Body.Bytes(), out)
	}
	return nil
}

// buildSurvey creates a folder and a survey with the spec's elements and
// settings, through the same routes an owner calls.
func buildSurvey(c apiClient, spec surveySpec) (builtSurvey, error) {
	var folder struct {
		ID int64 `json:"id"`
	}
	if err := c.call("POST", "/api/folders/", map[string]any{"name": spec.Name}, &folder); err != nil {
		return builtSurvey{}, err
	}
	var sv builtSurvey
	if err := c.call("POST", "/api/v2/surveys/", map[string]any{"name": spec.Name, "folder_id": folder.ID, "language": spec.Language}, &sv); err != nil {
		return builtSurvey{}, err
	}
	for _, e := range spec.Elements {
		var got map[string]any
		if err := c.call("POST", fmt.Sprintf("/api/v2/surveys/%d/questions/", sv.ID), e, &got); err != nil {
			return builtSurvey{}, err
		}
		sv.Elements = append(sv.Elements, got)
	}
	if spec.Settings != nil {
		if err := c.call("PATCH", fmt.Sprintf("/api/surveys/%d/settings/", sv.ID), spec.Settings, nil); err != nil {
			return builtSurvey{}, err
		}
	}
	return sv, nil
}

// findSurveyByName finds a live survey of the key's account by name.
func findSurveyByName(c apiClient, name string) (builtSurvey, bool, error) {
	var folders []struct {
		Surveys []struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		} `json:"surveys"`
	}
	if err := c.call("GET", "/api/folders/", nil, &folders); err != nil {
		return builtSurvey{}, false, err
	}
	for _, f := range folders {
		for _, s := range f.Surveys {
			if s.Name == name {
				var sv builtSurvey
				err := c.call("GET", fmt.Sprintf("/api/v2/surveys/%d/", s.ID), nil, &sv)
				return sv, err == nil, err
			}
		}
	}
	return builtSurvey{}, false, nil
}

func choices(names ...string) []map[string]any {
	out := make([]map[string]any, len(names))
	for i, n := range names {
		out[i] = map[string]any{"name": n}
	}
	return out
}

// everyTypeElements are a welcome page, one question of each answerable
// type (all charted), and an appreciation page, in the survey's language.
func everyTypeElements(fa bool, base string) []map[string]any {
	t := func(en, f string) string {
		if fa {
			return f
		}
		return en
	}
	return []map[string]any{
		{"type": 1, "title": t("Welcome to the demo survey", "به پرسش‌نامهٔ نمونه خوش آمدید"),
			"description": t("It takes a minute.", "یک دقیقه طول می‌کشد."), "description_active": true},
		{"type": 2, "title": t("What is your name?", "نام شما چیست؟"), "answer_required": true, "max_length": 200},
		{"type": 3, "title": t("Which fruit do you like?", "کدام میوه را دوست دارید؟"),
			"choices": choices(t("Apple", "سیب"), t("Banana", "موز"), t("Cherry", "گیلاس")), "show_charts": true, "answer_required": true},
		{"type": 3, "title": t("Which colors do you like?", "کدام رنگ‌ها را دوست دارید؟"),
			"choices": choices(t("Red", "قرمز"), t("Green", "سبز"), t("Blue", "آبی")), "allow_multiple_select": true, "show_charts": true},
		{"type": 4, "title": t("Pick a picture", "یک تصویر انتخاب کنید"), "choices": []map[string]any{
			{"name": t("Sea", "دریا"), "image_url": base + pages.AssetPath("sea.svg")},
			{"name": t("Forest", "جنگل"), "image_url": base + pages.AssetPath("forest.svg")},
		}, "show_charts": true},
		{"type": 5, "title": t("Rank these", "این‌ها را رتبه‌بندی کنید"),
			"choices": choices(t("Price", "قیمت"), t("Quality", "کیفیت"), t("Speed", "سرعت")), "show_charts": true},
		{"type": 6, "title": t("How likely are you to recommend us?", "چقدر ما را پیشنهاد می‌کنید؟"), "scale_min": 0, "scale_max": 10,
			"left_label": t("Not at all", "اصلاً"), "right_label": t("Very", "خیلی"), "show_charts": true},
		{"type": 7, "title": t("Rate our service", "به خدمات ما امتیاز دهید"), "rating_max": 5, "show_charts": true},
		{"type": 10, "title": t("Your country", "کشور شما"), "choices": choices(t("Iran", "ایران"), t("Germany", "آلمان"), t("Other", "دیگر")), "show_charts": true},
		{"type": 12, "title": t("How was each part?", "هر بخش چطور بود؟"), "rows": []map[string]any{{"name": t("Food", "غذا")}, {"name": t("Service", "خدمات")}},
			"columns": []map[string]any{{"name": t("Good", "خوب")}, {"name": t("Bad", "بد")}}, "show_charts": true},
		{"type": 9, "title": t("Thank you!", "سپاسگزاریم!")},
	}
}

// demoSurvey finds the demo survey of the demo account, or creates it on
// the first run; base is the server's address, of the pictures.
func demoSurvey(c apiClient, base string) (builtSurvey, error) {
	sv, found, err := findSurveyByName(c, demoSurveyName)
	if err != nil || found {
		return sv, err
	}
	return buildSurvey(c, surveySpec{Name: demoSurveyName, Language: 4, Elements: everyTypeElements(false, base)})
}

// demoMemberEmail is the demo account's member, whom `make run` shares
// the demo survey's folder with as editor (contract section 19).
const demoMemberEmail = "member@example.com"

// demoMember makes the demo account's member, or finds it on an endpoint
// that kept its data and issues a fresh key (the old one is revoked), and
// shares the folder with them as editor, through the owner's routes. It
// answers the member's key: kept (the key a kept run printed) while it
// still works, else a new one.
func demoMember(c apiClient, folderID int64, kept string) (string, error) {
	var members []survey.Member
	if err := c.call("GET", "/api/members/", nil, &members); err != nil {
		return "", err
	}
	var sub int64
	for _, m := range members {
		if strings.EqualFold(m.Email, demoMemberEmail) {
			sub = m.SubUser
		}
	}
	var made struct {
		SubUser int64  `json:"sub_user"`
		APIKey  string `json:"api_key"`
	}
	if sub == 0 {
		if err := c.call("POST", "/api/members/", map[string]string{"email": demoMemberEmail, "first_name": "Demo", "last_name": "Member"}, &made); err != nil {
			return "", err
		}
	} else if kept != "" && (apiClient{h: c.h, key: kept}).call("GET", "/api/folders/", nil, nil) == nil {
		made.SubUser, made.APIKey = sub, kept
	} else if err := c.call("POST", fmt.Sprintf("/api/members/%d/key/", sub), nil, &made); err != nil {
		return "", err
	} else {
		made.SubUser = sub
	}
	share := []map[string]any{{"sub_user": made.SubUser, "role": survey.RoleEditor}}
	if err := c.call("PUT", fmt.Sprintf("/api/folders/%d/shared-with/", folderID), share, nil); err != nil {
		return "", err
	}
	return made.APIKey, nil
}
