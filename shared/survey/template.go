package survey

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Template is one entry of the public template catalog. Field order follows
// the specification, and is the order of the JSON the API answers.
type Template struct {
	ID               int64             `json:"id"`
	Score            int64             `json:"score"`
	IsGeneral        bool              `json:"is_general"`
	LongDescription  string            `json:"long_description"`
	ShortDescription string            `json:"short_description"`
	Title            string            `json:"title"`
	TitleColor       int64             `json:"title_color"`
	EmbeddingLink    string            `json:"embedding_link"`
	ThumbnailImage   string            `json:"thumbnail_image"`
	URLSlug          string            `json:"url_slug"`
	Categories       []int64           `json:"categories"`
	Industries       []json.RawMessage `json:"industries"`
	UsageGuide       string            `json:"usage_guide"`
	Language         int64             `json:"language"`
	Type             int64             `json:"type"`
	// SimilarTemplates is the expanded list on a detail response, and null
	// (nil) inside an expanded item and in list results.
	SimilarTemplates []Template `json:"similar_templates"`
	MetaDescription  *string    `json:"meta_description"`
	// SurveyURLSlug is the public slug of the template's survey (contract
	// section 17): its preview and embeddable page. Null when the template
	// names no survey.
	SurveyURLSlug *string `json:"survey_url_slug"`

	// SimilarIDs is what the catalog stores: the ids, in display order.
	SimilarIDs []int64 `json:"-"`
	// SurveyID is the catalog account's survey that a survey started from
	// the template copies (the catalog file's survey_id), or 0.
	SurveyID int64 `json:"-"`
}

// MaxSlugLength bounds a template or survey slug, in code points.
const MaxSlugLength = 200

// Bounds of a catalog entry, so that the catalog's answers fit (docs/api.md,
// "Answer sizes"): a detail is a template with its similar ones expanded,
// a list page up to 100 templates, so neither exceeds 101 templates of at
// most MaxTemplateBytes of JSON each, 3.2 MiB. The sample catalog's largest
// template is about 2 KiB.
const (
	MaxTemplateBytes    = 32 << 10 // JSON as answered, similar_templates null
	MaxSimilarTemplates = 100
)

// ValidSlug reports whether s is a slug: letters, digits and marks of any
// script, '-' and '_' (Django's unicode slugs), and also the zero-width
// non-joiner and joiner (U+200C, U+200D), which Persian words carry
// ("مهم‌ترین"). Anything else (control characters, '/', spaces, invalid
// UTF-8, overlong) cannot name a template, so lookups answer 404 without
// reading the store.
func ValidSlug(s string) bool {
	if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > MaxSlugLength {
		return false
	}
	for _, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '-' || r == '_' || r == '\u200c' || r == '\u200d') {
			return false
		}
	}
	return true
}

// ParseCatalog decodes a catalog file: a JSON array of templates whose
// similar_templates holds ids or objects with an id. It checks every template
// and every reference among them and returns EINVALID naming the template and
// field of the first problem; known holds ids already in the catalog that
// references may also name. Nothing is half-parsed: an error means no templates.
func ParseCatalog(data []byte, known map[int64]bool) ([]Template, error) {
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, Errorf(EINVALID, "catalog: not a JSON array of template objects: %v", err)
	}
	out := make([]Template, 0, len(raw))
	ids := map[int64]int{}
	slugs := map[string]int64{}
	for i, obj := range raw {
		t, err := parseTemplate(obj)
		if err != nil {
			return nil, Errorf(EINVALID, "catalog: template #%d%s: %v", i+1, describe(obj), err)
		}
		if j, dup := ids[t.ID]; dup {
			return nil, Errorf(EINVALID, "catalog: template #%d (id %d): field \"id\": duplicate of template #%d", i+1, t.ID, j+1)
		}
		if other, dup := slugs[t.URLSlug]; dup {
			return nil, Errorf(EINVALID, "catalog: template #%d (id %d): field \"url_slug\": %q is also the slug of template id %d", i+1, t.ID, t.URLSlug, other)
		}
		ids[t.ID] = i
		slugs[t.URLSlug] = t.ID
		out = append(out, t)
	}
	for i, t := range out {
		for _, sid := range t.SimilarIDs {
			if _, inFile := ids[sid]; !inFile && !known[sid] {
				return nil, Errorf(EINVALID, "catalog: template #%d (id %d): field \"similar_templates\": no template has id %d", i+1, t.ID, sid)
			}
			if sid == t.ID {
				return nil, Errorf(EINVALID, "catalog: template #%d (id %d): field \"similar_templates\": a template cannot be similar to itself", i+1, t.ID)
			}
		}
	}
	return out, nil
}

func describe(obj map[string]json.RawMessage) string {
	var id int64
	if json.Unmarshal(obj["id"], &id) == nil && id != 0 {
		return fmt.Sprintf(" (id %d)", id)
	}
	return ""
}

// templateField reads one field of a catalog object into dst. Required
// fields must be present and not null.
func templateField(obj map[string]json.RawMessage, name string, required bool, dst any) error {
	v, ok := obj[name]
	if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		if required {
			return fmt.Errorf("field %q: missing", name)
		}
		return nil
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return fmt.Errorf("field %q: wrong type: %s", name, strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

func parseTemplate(obj map[string]json.RawMessage) (Template, error) {
	var t Template
	fields := []struct {
		name     string
		required bool
		dst      any
	}{
		{"id", true, &t.ID},
		{"score", true, &t.Score},
		{"is_general", true, &t.IsGeneral},
		{"long_description", true, &t.LongDescription},
		{"short_description", true, &t.ShortDescription},
		{"title", true, &t.Title},
		{"title_color", true, &t.TitleColor},
		{"embedding_link", true, &t.EmbeddingLink},
		{"thumbnail_image", true, &t.ThumbnailImage},
		{"url_slug", true, &t.URLSlug},
		{"categories", true, &t.Categories},
		{"industries", false, &t.Industries},
		{"usage_guide", true, &t.UsageGuide},
		{"language", true, &t.Language},
		{"type", true, &t.Type},
		{"meta_description", false, &t.MetaDescription},
		{"survey_id", false, &t.SurveyID},
	}
	for _, f := range fields {
		if err := templateField(obj, f.name, f.required, f.dst); err != nil {
			return Template{}, err
		}
	}
	if t.ID <= 0 || t.ID > 1<<53 {
		return Template{}, fmt.Errorf("field \"id\": must be a positive integer, got %d", t.ID)
	}
	if t.SurveyID < 0 || t.SurveyID > 1<<53 {
		return Template{}, fmt.Errorf("field \"survey_id\": must be a positive integer, got %d", t.SurveyID)
	}
	if !ValidSlug(t.URLSlug) {
		return Template{}, fmt.Errorf("field \"url_slug\": %q is not a slug (letters, digits, '-' and '_', at most %d)", t.URLSlug, MaxSlugLength)
	}
	if strings.TrimSpace(t.Title) == "" {
		return Template{}, fmt.Errorf("field \"title\": may not be blank")
	}
	if t.ThumbnailImage != "" && !strings.HasPrefix(t.ThumbnailImage, "/media/") &&
		!strings.HasPrefix(t.ThumbnailImage, "https://") && !strings.HasPrefix(t.ThumbnailImage, "http://") {
		return Template{}, fmt.Errorf("field \"thumbnail_image\": %q is neither an absolute URL nor a /media/ path", t.ThumbnailImage)
	}
	if t.Industries == nil {
		t.Industries = []json.RawMessage{}
	}
	if t.Categories == nil {
		t.Categories = []int64{}
	}
	similar, ok := obj["similar_templates"]
	if ok && !bytes.Equal(bytes.TrimSpace(similar), []byte("null")) {
		var items []json.RawMessage
		if err := json.Unmarshal(similar, &items); err != nil {
			return Template{}, fmt.Errorf("field \"similar_templates\": want an array of ids or of objects with an id")
		}
		seen := map[int64]bool{}
		for k, item := range items {
			id, ok := similarID(item)
			if !ok {
				return Template{}, fmt.Errorf("field \"similar_templates\": item %d is neither an id nor an object with an id", k)
			}
			if !seen[id] {
				seen[id] = true
				t.SimilarIDs = append(t.SimilarIDs, id)
			}
		}
		if len(t.SimilarIDs) > MaxSimilarTemplates {
			return Template{}, fmt.Errorf("field \"similar_templates\": %d templates, at most %d", len(t.SimilarIDs), MaxSimilarTemplates)
		}
	}
	if n := t.JSONLen(); n > MaxTemplateBytes {
		return Template{}, fmt.Errorf("the template is %d bytes of JSON, at most %d (its texts are too long)", n, MaxTemplateBytes)
	}
	return t, nil
}

// JSONLen is the size of the template as the API answers it, its
// similar_templates null (0 if it does not encode).
func (t Template) JSONLen() int {
	t.SimilarTemplates = nil
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(t); err != nil {
		return 0
	}
	return buf.Len() - 1
}

// similarID reads one similar_templates item: an integer id, or an object
// whose "id" (exactly that key) is one.
func similarID(item json.RawMessage) (int64, bool) {
	var id int64
	if t := bytes.TrimSpace(item); len(t) > 0 && (t[0] == '-' || t[0] >= '0' && t[0] <= '9') {
		return id, json.Unmarshal(t, &id) == nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(item, &obj) != nil || obj == nil {
		return 0, false
	}
	raw, ok := obj["id"]
	if !ok {
		return 0, false
	}
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || !(t[0] == '-' || t[0] >= '0' && t[0] <= '9') {
		return 0, false
	}
	return id, json.Unmarshal(t, &id) == nil
}
