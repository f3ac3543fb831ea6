package responding

import (
	"surveyservice/shared/sending"
	"surveyservice/shared/survey"
)

// ErrSignIn answers a submission whose session lacks a proof the survey
// asks for (contract section 18), including a session started before the
// method was turned on.
var ErrSignIn = survey.Errorf(survey.EFORBIDDEN, "Sign in to respond to this survey.")

// SignedIn is what a session's proofs give a response on a survey with
// settings set: the respondent the response stores (the proofs of the
// methods that are on; nil when none is) and the identities it claims,
// one response each (store.Submission.Identities). A session without a
// proof the survey needs, or whose email the survey's
// service_auth_domains no longer admit, answers ErrSignIn (403).
func SignedIn(set survey.Settings, sess Session) (*survey.Respondent, []string, error) {
	var r survey.Respondent
	var identities []string
	if set.ServiceAuth {
		if sess.Email == "" {
			return nil, nil, ErrSignIn
		}
		if _, err := EmailIdentity(sess.Email, set.ServiceAuthDomains); err != nil {
			return nil, nil, ErrSignIn
		}
		r.Email = sess.Email
		if set.ServiceAuthNoSpam {
			identities = append(identities, IdentityKey(ChannelEmail, EmailPerson(sess.Email)))
		}
	}
	if set.PhoneNumberAuth {
		if sess.Phone == "" {
			return nil, nil, ErrSignIn
		}
		r.Phone = sess.Phone
		if set.PhoneNumberAuthIsUnique {
			identities = append(identities, IdentityKey(ChannelSMS, sess.Phone))
		}
	}
	if r == (survey.Respondent{}) {
		return nil, nil, nil
	}
	return &r, identities, nil
}

// Admission is who a session responds as (contract section 18): the
// respondent a response stores, the identities it claims (one response
// each) and what the store must still find as of the write: the number
// on the survey's list, the code among the survey's codes.
type Admission struct {
	Respondent  *survey.Respondent
	Identities  []string
	ListedPhone string
	Code        string
}

// Admit is the one decision of whether a session may respond at all,
// shared by a submission (Build) and a partial (SavePartial, section 18
// as amended: a partial needs what a submission needs): the proofs of
// every sign-in method that is on (ErrSignIn, 403) and, with code_auth,
// a code (survey.ErrCodeRefused). The stored conditions it names (the
// number still listed, the code still the survey's) are checked by the
// submission's transaction, and by a partial's reads (admitStored).
func Admit(set survey.Settings, sess Session) (Admission, error) {
	respondent, identities, err := SignedIn(set, sess)
	if err != nil {
		return Admission{}, err
	}
	if set.CodeAuth && sess.Code == "" {
		return Admission{}, survey.ErrCodeRefused
	}
	a := Admission{Respondent: respondent, Identities: identities}
	if set.PhoneNumbersLimited && respondent != nil {
		a.ListedPhone = respondent.Phone
	}
	if set.CodeAuth {
		a.Code = sess.Code
	}
	return a, nil
}

// The channels a code is sent by (contract section 18).
const (
	ChannelEmail = sending.ChannelEmail
	ChannelSMS   = sending.ChannelSMS
)

// IdentityKey names a proven identity as the store claims it: the
// channel's kind and the identity, so that an address and a number never
// name one claim.
func IdentityKey(channel, identity string) string {
	if channel == ChannelSMS {
		return "phone:" + identity
	}
	return "email:" + identity
}

// channelUsed reports whether a survey signs in by channel.
func channelUsed(set survey.Settings, channel string) bool {
	return channel == ChannelEmail && set.ServiceAuth || channel == ChannelSMS && set.PhoneNumberAuth
}
