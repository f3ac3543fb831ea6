package survey

import (
	"net/url"
	"strings"
)

// ElementType is what an element is. The names are the contract's (section
// 6); the type decides which of a survey's three lists holds the element.
type ElementType int64

// The element types.
const (
	TypeWelcome        ElementType = 1
	TypeText           ElementType = 2
	TypeMultipleChoice ElementType = 3
	TypePictureChoice  ElementType = 4
	TypeRanking        ElementType = 5
	TypeOpinionScale   ElementType = 6
	TypeRating         ElementType = 7
	TypeGroup          ElementType = 8
	TypeAppreciation   ElementType = 9
	TypeDropdown       ElementType = 10
	TypeFileUpload     ElementType = 11
	TypeMatrix         ElementType = 12
	TypeStatement      ElementType = 13
)

var elementTypeNames = map[ElementType]string{
	TypeWelcome: "welcome page", TypeText: "text", TypeMultipleChoice: "multiple choice",
	TypePictureChoice: "picture choice", TypeRanking: "ranking", TypeOpinionScale: "opinion scale",
	TypeRating: "rating", TypeGroup: "question group", TypeAppreciation: "appreciation page",
	TypeDropdown: "dropdown", TypeFileUpload: "file upload", TypeMatrix: "matrix", TypeStatement: "statement",
}

// Valid reports whether t is one of the thirteen types.
func (t ElementType) Valid() bool { _, ok := elementTypeNames[t]; return ok }

// String is the type's name.
func (t ElementType) String() string { return elementTypeNames[t] }

// List is one of a survey's three ordered lists of elements.
type List int

// The lists, in the order a survey shows them.
const (
	ListWelcome List = iota
	ListQuestions
	ListAppreciations
)

// List is the list an element of type t belongs to: welcome pages, the
// questions (groups and their members included), or appreciation pages.
func (t ElementType) List() List {
	switch t {
	case TypeWelcome:
		return ListWelcome
	case TypeAppreciation:
		return ListAppreciations
	}
	return ListQuestions
}

// Element limits, from the specification.
const (
	MaxElementTitle           = 1500
	MaxElementHTMLTitle       = 3000
	MaxElementImageName       = 500
	MaxElementVideoURL        = 500
	MaxElementImagePath       = 2000
	MaxElementDescription     = 2500
	MaxElementHTMLDescription = 5000
	MaxElementEnterText       = 80
	MaxLinkButtonText         = 100
	MaxLinkURL                = 2000
	// MaxElements bounds one survey, so that its layout stays one small item.
	MaxElements = 1000
)

// Element is a question, a question group, a welcome page or an
// appreciation page. Its place (order, list, group) is kept by the survey's
// Layout, not here.
type Element struct {
	ID                     int64       `json:"id"`
	Title                  string      `json:"title"`
	HTMLTitle              string      `json:"html_title"`
	Type                   ElementType `json:"type"`
	ImageVideoActive       bool        `json:"image_video_active"`
	ImageOrVideo           int64       `json:"image_or_video"`
	ImagePath              *string     `json:"image_path"`
	ImageName              string      `json:"image_name"`
	VideoURL               *string     `json:"video_url"`
	ShowCharts             bool        `json:"show_charts"`
	DescriptionTextActive  bool        `json:"description_text_active"`
	DescriptionText        string      `json:"description_text"`
	HTMLDescriptionText    string      `json:"html_description_text"`
	QuestionNumberIsHidden bool        `json:"question_number_is_hidden"`
	RespondingDuration     *string     `json:"responding_duration"`
	TitleActive            bool        `json:"title_active"`
	DescriptionActive      bool        `json:"description_active"`
	Description            string      `json:"description"`
	EnterText              string      `json:"enter_text"`
	AllowMultipleSelect    bool        `json:"allow_multiple_select"`
	MaxSelectableChoices   int64       `json:"max_selectable_choices"`
	MinSelectableChoices   int64       `json:"min_selectable_choices"`
	VerticalChoices        bool        `json:"vertical_choices"`
	AnswerRequired         bool        `json:"answer_required"`
	Randomize              bool        `json:"randomize"`
	// The answer's shape (contract section 10); each field belongs to
	// some types only (see FieldTypes) and keeps its default elsewhere.
	Choices    []ChoiceItem `json:"choices,omitempty"`
	Rows       []NamedItem  `json:"rows,omitempty"`
	Columns    []NamedItem  `json:"columns,omitempty"`
	ScaleMin   int64        `json:"scale_min"`
	ScaleMax   int64        `json:"scale_max"`
	LeftLabel  *string      `json:"left_label,omitempty"`
	RightLabel *string      `json:"right_label,omitempty"`
	RatingMax  int64        `json:"rating_max"`
	// IconType is how a rating's steps are drawn (IconStar...); elements
	// stored before it read as stars.
	IconType  int64 `json:"icon_type"`
	MaxLength int64 `json:"max_length"`
	// CorrectChoice is the id of one of Choices (a quiz's key), or nil.
	CorrectChoice *int64 `json:"correct_choice,omitempty"`
	// Conditions are the element's display rules (contract section 15):
	// only elements of the questions list carry them.
	Conditions []Condition `json:"conditions,omitempty"`
	// A file-upload question's limits (contract section 16): 0 and nil
	// are the defaults (FileRules), so elements stored before them read
	// as the defaults.
	MaxFileSizeMB    int64    `json:"max_file_size_mb,omitempty"`
	AllowedFileTypes []string `json:"allowed_file_types,omitempty"`
	Appreciation
	// LinkSetBy is who last set the appreciation page's link (contract
	// section 19 as amended): 0 the owner, a sub_user a member, nil not
	// known (stored before it was kept). The hosted page prints the
	// linked survey's address only where its setter reaches that survey
	// (LinkShown). Stored, never shown (views clear it).
	LinkSetBy *int64 `json:"link_set_by,omitempty"`
}

// LinkShown decides whether the hosted page may print the address of the
// survey (in folder target) the appreciation link names, for an element
// of a survey in folder source (contract section 19 as amended: never an
// address its setter could not have set): set by the owner, yes; by a
// member, when they still reach the target (reaches, asked only then);
// of an unknown setter, when the target is in the source's own folder
// (whoever may edit the source reaches it).
func (e Element) LinkShown(source, target int64, reaches func(sub int64) (bool, error)) (bool, error) {
	switch {
	case e.LinkSetBy == nil:
		return source == target, nil
	case *e.LinkSetBy == 0:
		return true, nil
	}
	return reaches(*e.LinkSetBy)
}

// Appreciation holds the fields only appreciation pages (type 9) show.
type Appreciation struct {
	ShareLinkActive bool   `json:"share_link_active"`
	IsDefault       bool   `json:"is_default"`
	LinkActive      bool   `json:"link_active"`
	LinkButtonText  string `json:"link_button_text"`
	LinkType        int64  `json:"link_type"`
	Link            *int64 `json:"link"`
	ReloadActive    bool   `json:"reload_active"`
	ReloadTime      int64  `json:"reload_time"`
	// LinkURL is the button's address when LinkType is LinkTypeURL
	// (contract section 16).
	LinkURL *string `json:"link_url"`
}

// The appreciation page's link types (contract section 16): its button
// opens LinkURL, or the page of the survey whose id is Link.
const (
	LinkTypeURL    = 1
	LinkTypeSurvey = 2
)

// Defaults of the answer fields (contract section 10).
const (
	DefaultScaleMin  = 0
	DefaultScaleMax  = 10
	DefaultRatingMax = 5
	DefaultMaxLength = 5000
)

// A rating's icon_type (contract section 21, as Porsline's clients send
// it: mindcloud-inc/universal-api-reference, apis/p/porsline update-question).
const (
	IconStar   = 1
	IconHeart  = 2
	IconThumb  = 3
	IconNumber = 4
)

// NewElement is an element of type t with every default of the contract.
func NewElement(t ElementType) Element {
	return Element{
		Type: t, ImageOrVideo: 1, ShowCharts: true, TitleActive: true,
		ScaleMin: DefaultScaleMin, ScaleMax: DefaultScaleMax, RatingMax: DefaultRatingMax,
		IconType: IconStar, MaxLength: DefaultMaxLength,
		Appreciation: Appreciation{LinkType: 1},
	}
}

// Answerable reports whether elements of type t take an answer: text,
// multiple and picture choice, ranking, opinion scale, rating, dropdown,
// matrix, and file upload (an upload id, contract section 16).
// Welcome and appreciation pages, groups and statements take none.
func (t ElementType) Answerable() bool {
	switch t {
	case TypeText, TypeMultipleChoice, TypePictureChoice, TypeRanking, TypeOpinionScale, TypeRating,
		TypeDropdown, TypeFileUpload, TypeMatrix:
		return true
	}
	return false
}

// ElementView is an element as the API shows it: the element's own fields,
// related_group and order from the layout, and, for an appreciation page
// only, the appreciation fields; questions in a survey detail also carry
// their (empty) logic. The owner's view carries the answer key
// (correct_choice, the choice object); the responder's view has no such key
// at all.
type ElementView struct {
	ElementFields
	RelatedGroup *int64 `json:"related_group"`
	// The answer's shape shows every key, empty or null where the type has
	// none, where the stored element leaves them out.
	Choices    []ChoiceItem `json:"choices"`
	Rows       []NamedItem  `json:"rows"`
	Columns    []NamedItem  `json:"columns"`
	LeftLabel  *string      `json:"left_label"`
	RightLabel *string      `json:"right_label"`
	// Steps is rating_max under the name Porsline's clients read
	// (omidrah/porsline's Question.Steps, contract section 21).
	Steps int64 `json:"steps"`
	// The file-upload limits as they apply (the defaults where unset).
	MaxFileSizeMB    int64    `json:"max_file_size_mb"`
	AllowedFileTypes []string `json:"allowed_file_types"`
	*AnswerKey
	Order int `json:"order"`
	*Appreciation
	*Logic
	// Conditions shows the rules of an element of the questions list, []
	// when it has none; other elements have no such key.
	Conditions *[]Condition `json:"conditions,omitempty"`
}

// ElementFields puts the element one level down in its view, so that the
// view's own fields (the answer's shape, the answer key, the appreciation
// page's fields) hide the stored element's of the same name, in Go and in
// JSON, which both take the shallower field.
type ElementFields struct{ Element }

// AnswerKey holds what only a survey's owner may see of an element: a nil
// *AnswerKey leaves its fields out of the JSON altogether.
type AnswerKey struct {
	// CorrectChoice is the correct choice object, or null.
	CorrectChoice *ChoiceItem `json:"correct_choice"`
}

// Logic is a question's display logic in a survey detail: its first
// rule's second operand and operators (null without rules), as the seed
// shows them.
type Logic struct {
	SecondOperand      *Operand `json:"second_operand"`
	LogicalOperator    *int64   `json:"logical_operator"`
	ArithmeticOperator *int64   `json:"arithmetic_operator"`
}

// View renders the element at its place in the layout, as its owner sees
// it: correct_choice included.
func (e Element) View(l Layout) ElementView {
	v := e.view(l)
	v.AnswerKey = &AnswerKey{CorrectChoice: e.correctChoice()}
	return v
}

// ResponderView renders the element as a responder sees it: View without
// the answer key (no correct_choice key at all).
func (e Element) ResponderView(l Layout) ElementView { return e.view(l) }

// correctChoice is the choice CorrectChoice names, or nil (also when that
// choice no longer exists).
func (e Element) correctChoice() *ChoiceItem {
	if e.CorrectChoice == nil {
		return nil
	}
	if c, ok := e.Choice(*e.CorrectChoice); ok {
		return &c
	}
	return nil
}

func (e Element) view(l Layout) ElementView {
	e.LinkSetBy = nil
	v := ElementView{
		ElementFields: ElementFields{e}, RelatedGroup: l.GroupOf(e.ID),
		Choices: nonNil(e.Choices), Rows: nonNil(e.Rows), Columns: nonNil(e.Columns),
		LeftLabel: e.LeftLabel, RightLabel: e.RightLabel, Order: l.Order(e.ID), Steps: e.RatingMax,
	}
	v.MaxFileSizeMB, v.AllowedFileTypes = e.FileRules()
	if e.Type == TypeAppreciation {
		a := e.Appreciation
		v.Appreciation = &a
	}
	if e.Type.List() == ListQuestions {
		rules := nonNil(e.Conditions)
		v.Conditions = &rules
	}
	return v
}

// ValidDuration reports whether s is a duration HH:MM:SS: hours 00-99,
// minutes and seconds 00-59, two digits each.
func ValidDuration(s string) bool {
	if len(s) != 8 || s[2] != ':' || s[5] != ':' {
		return false
	}
	for _, i := range []int{0, 1, 3, 4, 6, 7} {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s[3] <= '5' && s[6] <= '5'
}

// ValidHTTPURL reports whether s is an absolute http or https URL with a
// host and no spaces or control characters.
func ValidHTTPURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return false
	}
	return !strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f })
}
