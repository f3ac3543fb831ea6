package survey

import (
	"encoding/json"
	"math"
)

// ResponderSettings are the settings a responder's client needs to behave
// as the hosted page does (contract section 16): the public view's
// `settings`.
type ResponderSettings struct {
	CaptchaNeeded                   bool    `json:"captcha_needed"`
	NoSpam                          bool    `json:"no_spam"`
	EditResponseEnabled             bool    `json:"edit_response_enabled"`
	LocationIsActive                bool    `json:"location_is_active"`
	LocationIsRequired              bool    `json:"location_is_required"`
	LocationDescription             *string `json:"location_description"`
	PrivacyPreservingMessageEnabled bool    `json:"privacy_preserving_message_enabled"`
	BrandingRemoval                 bool    `json:"branding_removal"`
	// PartialResponses tells the page to send partials (contract section 20).
	PartialResponses bool `json:"partial_responses"`
	// Sign-in (section 18), so that a client knows before it asks.
	ServiceAuth        bool     `json:"service_auth"`
	PhoneNumberAuth    bool     `json:"phone_number_auth"`
	ServiceAuthDomains []string `json:"service_auth_domains"`
	AuthDescription    *string  `json:"auth_description"`
}

// Responder is what the public view's settings say of set.
func (set Settings) Responder() ResponderSettings {
	return ResponderSettings{
		CaptchaNeeded: set.CaptchaNeeded, NoSpam: set.NoSpam, EditResponseEnabled: set.EditResponseEnabled,
		LocationIsActive: set.LocationIsActive, LocationIsRequired: set.LocationIsActive && set.LocationIsRequired,
		LocationDescription:             set.LocationDescription,
		PrivacyPreservingMessageEnabled: set.PrivacyPreservingMessageEnabled, BrandingRemoval: set.BrandingRemoval,
		PartialResponses: set.PartialResponses,
		ServiceAuth:      set.ServiceAuth, PhoneNumberAuth: set.PhoneNumberAuth,
		ServiceAuthDomains: append([]string{}, set.ServiceAuthDomains...), AuthDescription: set.AuthDescription,
	}
}

// Location is where a responder was, as the browser told it.
type Location struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	AccuracyM float64 `json:"accuracy_m"`
}

// Refusals of a submission's location (contract section 16).
var (
	ErrLocationRequired = FieldError("location", "This survey needs your location.")
	ErrLocationInvalid  = FieldError("location", `Send {"latitude": -90..90, "longitude": -180..180, "accuracy_m": >= 0}.`)
)

// CheckLocation reads a submission's location under the survey's
// settings: nil (and nothing stored) when the survey does not collect it;
// null or absent is refused when it is required.
func CheckLocation(set Settings, raw json.RawMessage) (*Location, error) {
	if !set.LocationIsActive {
		return nil, nil
	}
	if len(raw) == 0 || string(raw) == "null" {
		if set.LocationIsRequired {
			return nil, ErrLocationRequired
		}
		return nil, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, ErrLocationInvalid
	}
	num := func(k string, lo, hi float64) (float64, bool) {
		var f float64
		v, ok := m[k]
		if !ok || json.Unmarshal(v, &f) != nil || math.IsNaN(f) || f < lo || f > hi {
			return 0, false
		}
		return f, true
	}
	lat, ok1 := num("latitude", -90, 90)
	lon, ok2 := num("longitude", -180, 180)
	acc, ok3 := num("accuracy_m", 0, math.MaxFloat64)
	if !ok1 || !ok2 || !ok3 {
		return nil, ErrLocationInvalid
	}
	return &Location{Latitude: lat, Longitude: lon, AccuracyM: acc}, nil
}

// ResponderDetails are where a response came from: the source IP API
// Gateway saw and the browser's User-Agent. A survey with
// hidden_responder_details stores neither.
type ResponderDetails struct {
	IP        string `json:"ip"`
	UserAgent string `json:"user_agent"`
}

// MaxUserAgent bounds a stored User-Agent, in bytes.
const MaxUserAgent = 512

// DetailsOf are the responder details a response of a survey with set
// stores: nil under hidden_responder_details.
func DetailsOf(set Settings, ip, userAgent string) *ResponderDetails {
	if set.HiddenResponderDetails {
		return nil
	}
	if len(userAgent) > MaxUserAgent {
		userAgent = userAgent[:MaxUserAgent]
	}
	return &ResponderDetails{IP: ip, UserAgent: userAgent}
}

// Refusals of section 16's responder rules.
var (
	// ErrAlreadyResponded answers a second response of one responder to a
	// no_spam survey.
	ErrAlreadyResponded = Errorf(EFORBIDDEN, "You have already responded to this survey.")
	// ErrNeedsCookies answers a no_spam submission whose responder cookie
	// is missing or is not its session's.
	ErrNeedsCookies = Errorf(EINVALID, "This survey needs cookies to accept your response.")
)
