package survey

import "unicode"

// PhoneInvalidMessage is the message a number that does not normalise
// answers under its field (section 18): the send's `address`, a phone list's
// item.
const PhoneInvalidMessage = "Enter a valid mobile number."

// maxPhoneInput bounds the text NormalizePhone reads: a number written with
// every separator it may carry is far shorter, and the bound keeps a hostile
// list of 5000 items cheap.
const maxPhoneInput = 64

// NormalizePhone reads a mobile number as section 18 accepts it and answers
// it in E.164 (`+`, a digit 1-9, then 7-14 digits), or false. Spaces
// (any Unicode space), dashes (any Unicode dash: an en dash as a word
// processor writes it), parentheses and the invisible direction marks a
// number copied out of Persian or Arabic text carries (Unicode's
// Bidi_Control: U+200E, U+202A-U+202E, U+2066-U+2069, ...) are dropped
// first; Persian
// (۰-۹) and Arabic-Indic (٠-٩) digits read as digits; `00` stands for `+`;
// on a survey whose language is fa, Iran's national mobile form `09` then 9
// digits reads as `+989...`. It is the one normaliser of numbers, so that a
// number on a survey's list and the number a responder proves compare equal.
func NormalizePhone(s, language string) (string, bool) {
	if len(s) > maxPhoneInput {
		return "", false
	}
	b := make([]byte, 0, 16)
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || unicode.IsSpace(r) || unicode.Is(unicode.Pd, r) || unicode.Is(unicode.Bidi_Control, r):
			continue
		case r >= '0' && r <= '9':
			b = append(b, byte(r))
		case r >= '۰' && r <= '۹':
			b = append(b, byte('0'+(r-'۰')))
		case r >= '٠' && r <= '٩':
			b = append(b, byte('0'+(r-'٠')))
		case r == '+':
			b = append(b, '+')
		default:
			return "", false
		}
	}
	var digits []byte
	switch {
	case len(b) > 0 && b[0] == '+':
		digits = b[1:]
	case len(b) > 2 && b[0] == '0' && b[1] == '0':
		digits = b[2:]
	case language == "fa" && len(b) == 11 && b[0] == '0' && b[1] == '9':
		digits = append([]byte("98"), b[1:]...)
	default:
		return "", false
	}
	if len(digits) < 8 || len(digits) > 15 || digits[0] == '0' {
		return "", false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return "+" + string(digits), true
}
