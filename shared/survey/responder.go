package survey

import "time"

// States of a survey for its responders.
const (
	StateOpen    = "open"
	StateClosed  = "closed"
	StateStopped = "stopped"
)

// State is the survey's state for its responders at now: stopped by its
// owner, closed by its expiration date, or open.
func (s Survey) State(now time.Time) string {
	switch {
	case s.IsStopped:
		return StateStopped
	case s.Closed(now):
		return StateClosed
	}
	return StateOpen
}

// ResponderSurvey is a survey as its responders see it (contract section
// 11): what a form needs to show it, and nothing of its owner's. It has no
// id, no preview or report code, no counts, no codes, and its elements
// are the responder's view of them (no correct_choice).
type ResponderSurvey struct {
	URLSlug string `json:"url_slug"`
	Name    string `json:"name"`
	// Language is the survey's own (its default); Languages are all of
	// its languages, the default first, and ServedLanguage the one the
	// texts are in (contract section 24: the public API's ?lang=).
	Language       string   `json:"language"`
	Languages      []string `json:"languages"`
	ServedLanguage string   `json:"served_language"`
	Theme          Theme    `json:"theme"`
	State          string   `json:"state"`
	// Closed is true when the survey takes no response: closed, stopped
	// or full (contract section 25).
	Closed             bool            `json:"closed"`
	Welcome            []ElementView   `json:"welcome"`
	Questions          [][]ElementView `json:"questions"`
	Appreciations      []ElementView   `json:"appreciations"`
	HideNextButton     bool            `json:"hide_next_button"`
	HidePreviousButton bool            `json:"hide_previous_button"`
	HideProgressbar    bool            `json:"hide_progressbar"`
	RespondingDuration *string         `json:"responding_ duration"`
	// RespondingDurationType 2 times each question (contract section 15).
	RespondingDurationType int64 `json:"responding_duration_type"`
	CodeAuth               bool  `json:"code_auth"`
	// Variables are the names of the survey's query-string variables
	// (source 0): those the page carries from its address into a response.
	Variables []string `json:"variables"`
	// Settings are what a client needs of section 16's settings.
	Settings ResponderSettings `json:"settings"`
}

// ResponderView renders the survey for its responders at now, with its
// settings, its elements where the layout places them (questions as pages,
// as in the detail) and its variables' names. Its languages are the
// survey's own alone; a caller that applied a translation
// (Translations.Apply) names the survey's languages and the one served.
func (s Survey) ResponderView(now time.Time, set Settings, l Layout, elements map[int64]Element, vars []Variable) ResponderSurvey {
	lang, _ := LanguageCode(s.Language)
	v := ResponderSurvey{
		URLSlug: s.URLSlug, Name: s.Name, Language: lang, Languages: []string{lang}, ServedLanguage: lang, Theme: s.Theme, State: s.State(now),
		Welcome:        responderViews(l, l.Welcome, elements, false),
		Questions:      make([][]ElementView, 0, len(l.Questions)),
		Appreciations:  responderViews(l, l.Appreciations, elements, false),
		HideNextButton: set.HideNextButton, HidePreviousButton: set.HidePreviousButton,
		HideProgressbar: set.HideProgressbar, RespondingDuration: set.RespondingDuration, CodeAuth: set.CodeAuth,
		RespondingDurationType: set.RespondingDurationType,
		Variables:              make([]string, 0, len(vars)), Settings: set.Responder(),
	}
	if v.State == StateOpen && set.Full(s) {
		v.State = StateFull
	}
	v.Closed = v.State != StateOpen
	for _, page := range l.Pages() {
		v.Questions = append(v.Questions, responderViews(l, page, elements, true))
	}
	for _, x := range vars {
		if x.VariableSource != SourceLinks {
			v.Variables = append(v.Variables, x.Name)
		}
	}
	return v
}

// responderViews renders the elements of ids that exist, in order, as
// responders see them (Element.ResponderView: no answer key); questions
// carry their (empty) logic, which a form needs to show them.
func responderViews(l Layout, ids []int64, elements map[int64]Element, logic bool) []ElementView {
	out := make([]ElementView, 0, len(ids))
	for _, id := range ids {
		e, ok := elements[id]
		if !ok {
			continue
		}
		v := e.ResponderView(l)
		if logic {
			first := e.FirstRule()
			v.Logic = &first
		}
		out = append(out, v)
	}
	return out
}

// ResponseDeadline is when a response started at started must be in:
// the responding duration (HH:MM:SS) after it, with a grace of
// ResponseGrace for the network; ok is false when there is no duration.
func ResponseDeadline(started time.Time, duration *string) (deadline time.Time, ok bool) {
	if duration == nil || !ValidDuration(*duration) {
		return time.Time{}, false
	}
	d := *duration
	h := int(d[0]-'0')*10 + int(d[1]-'0')
	m := int(d[3]-'0')*10 + int(d[4]-'0')
	sec := int(d[6]-'0')*10 + int(d[7]-'0')
	return started.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second + ResponseGrace), true
}

// ResponseGrace is the time a response may arrive after its duration ended.
const ResponseGrace = 30 * time.Second
