// Package mobile decides which numbers SMS may be sent to (contract
// section 18 as amended): mobile numbers of a real country, as the
// numbering plans of libphonenumber (its Go port, nyaruka/phonenumbers)
// type them. Its metadata is large, so only the functions that accept
// numbers import it (responders, settings, webhooks), never shared/survey.
package mobile

import (
	"github.com/nyaruka/phonenumbers"
)

// Admits reports whether an E.164 number (survey.NormalizePhone's form) is
// one a message may be sent to: valid in a real country's numbering plan
// (not a non-geographic, "001", range: +800 toll-free, +808 shared-cost,
// +870 Inmarsat, +881 satellite, +882 and +883 international networks,
// +888, nor an unassigned code such as +979 premium) and typed MOBILE or
// FIXED_LINE_OR_MOBILE. The latter is admitted because some plans do not
// tell mobile and fixed numbers apart (the North American plan: every
// +1 number, including Canada's and the United States' mobiles, types as
// FIXED_LINE_OR_MOBILE); refusing it would refuse those countries
// whole. Toll-free, premium-rate, shared-cost, VoIP, pager, personal and
// UAN numbers (+1 900, +44 909, +1 800) type otherwise and are refused.
func Admits(e164 string) bool {
	if len(e164) < 2 || e164[0] != '+' {
		return false
	}
	n, err := phonenumbers.Parse(e164, "")
	if err != nil || !phonenumbers.IsValidNumber(n) {
		return false
	}
	region := phonenumbers.GetRegionCodeForNumber(n)
	if region == "" || region == phonenumbers.UNKNOWN_REGION || region == "001" {
		return false
	}
	switch phonenumbers.GetNumberType(n) {
	case phonenumbers.MOBILE, phonenumbers.FIXED_LINE_OR_MOBILE:
		return true
	}
	return false
}
