package survey

import (
	"fmt"
	"net/mail"
	"strings"
	"unicode/utf8"
)

// Messages of bad recipients, as the notifications routes answer them.
const (
	MsgInvalidEmail = "Enter a valid email address."
	MsgInvalidPhone = "Enter a valid mobile number."
)

// RecipientProblem checks one recipient of an email (SendingEmail) or SMS
// (SendingSMS) notification and answers it in its stored form (an address
// lower-cased; a number in E.164, its 00 form read as +), or the message
// of why it is refused.
func RecipientProblem(method int64, raw string) (string, string) {
	s := strings.TrimSpace(raw)
	if strings.IndexByte(s, 0) >= 0 { // section 3: as every string field
		return "", MsgNullCharacter
	}
	if method == SendingSMS {
		if n, ok := e164(s); ok {
			return n, ""
		}
		return "", MsgInvalidPhone
	}
	if a, ok := emailAddress(s); ok {
		return a, ""
	}
	return "", MsgInvalidEmail
}

// e164 reads "+" or "00", a digit 1-9, then 7-14 digits (contract section
// 18's E.164). The full normaliser of responders' numbers (spaces,
// national forms, Persian digits) is section 18's.
func e164(s string) (string, bool) {
	switch {
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	case strings.HasPrefix(s, "00"):
		s = s[2:]
	default:
		return "", false
	}
	if len(s) < 8 || len(s) > 15 || s[0] < '1' || s[0] > '9' {
		return "", false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return "+" + s, true
}

// emailAddress accepts a bare address (no display name) with a dotted
// domain, at most 254 characters, and answers it lower-cased.
func emailAddress(s string) (string, bool) {
	if s == "" || len(s) > 254 || strings.ContainsAny(s, " <>\"") {
		return "", false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return "", false
	}
	at := strings.LastIndexByte(s, '@')
	domain := s[at+1:]
	if at < 1 || !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") {
		return "", false
	}
	return strings.ToLower(s), true
}

// notificationTexts are the subject and body of a new response's
// notification, by survey language: %[1]s is the survey's name, %[2]s the
// link to the response.
var notificationTexts = map[string][2]string{
	"en": {"New response to “%[1]s”", "Your survey “%[1]s” has a new response:\n%[2]s"},
	"fa": {"پاسخ جدید به «%[1]s»", "پرسش‌نامهٔ «%[1]s» پاسخ جدیدی دریافت کرد:\n%[2]s"},
	"ar": {"ردّ جديد على «%[1]s»", "تلقّى استبيانك «%[1]s» ردًّا جديدًا:\n%[2]s"},
	"tr": {"“%[1]s” için yeni yanıt", "“%[1]s” anketinize yeni bir yanıt geldi:\n%[2]s"},
}

// maxNameInSMS bounds the survey's name in an SMS, so that the message
// stays within a few segments.
const maxNameInSMS = 60

// NotificationText is the message telling of a new response of a survey
// in its language (fa, ar, tr, en; another reads as en), naming the survey
// and linking to the response. An SMS (sms) has no subject and names the
// survey shortened to 60 characters.
func NotificationText(language int64, surveyName, link string, sms bool) (subject, body string) {
	code, _ := LanguageCode(language)
	t, ok := notificationTexts[code]
	if !ok {
		t = notificationTexts["en"]
	}
	name := surveyName
	if sms && utf8.RuneCountInString(name) > maxNameInSMS {
		name = string([]rune(name)[:maxNameInSMS-1]) + "…"
	}
	body = fmt.Sprintf(t[1], name, link)
	if sms {
		return "", body
	}
	return fmt.Sprintf(t[0], surveyName), body
}
