package pages

import (
	"strconv"
	"strings"
)

// zeroOf is the digit zero a language writes its numbers from: Persian
// ۰-۹ (U+06F0), Arabic ٠-٩ (U+0660), else 0-9. A page shows every number
// people read (scales, counts, averages, ranks, the countdown) in the
// survey language's digits, as its title does.
func zeroOf(lang string) rune {
	switch lang {
	case "fa":
		return '۰'
	case "ar":
		return '٠'
	}
	return '0'
}

// localDigits writes the ASCII digits of s from zero, and a decimal point
// as the Arabic decimal separator (٫) where the digits are not Latin.
func localDigits(zero rune, s string) string {
	if zero == '0' {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= '0' && r <= '9':
			return zero + r - '0'
		case r == '.':
			return '٫'
		}
		return r
	}, s)
}

// n writes an integer people read, in the page's digits.
func (t texts) n(v int64) markup {
	return text(localDigits(t.Zero, strconv.FormatInt(v, 10)))
}

// dec writes a number with two decimals people read, in the page's digits.
func (t texts) dec(f float64) markup {
	return text(localDigits(t.Zero, strconv.FormatFloat(f, 'f', 2, 64)))
}

// pct writes a whole percent people read: ۴۰٪ in Persian and Arabic
// digits, 40% in Latin ones.
func (t texts) pct(v int64) markup {
	if t.Zero == '0' {
		return t.n(v) + "%"
	}
	return t.n(v) + "٪"
}

// comma is the separator of a list written in the page's script: the
// Arabic comma beside Persian or Arabic digits.
func (t texts) comma() markup {
	if t.Zero == '0' {
		return ", "
	}
	return "، "
}
