package pages

import "strings"

// A small minifier for the page's own scripts and stylesheet, run once
// when the assets load (the page's weight counts each byte: contract 14's
// phone). It only drops comments and whitespace, never renames or
// rewrites, and it copies strings, template literals and regular
// expression literals as they are:
//
//   - a run of whitespace without a line break goes when a side of it is
//     not a word character (a-z, 0-9, _, $, any non-ASCII), except
//     between + and + or - and - (a + +b is not a++b) and next to / (a
//     comment or a regular expression could form);
//   - a run with a line break keeps one line break (automatic semicolon
//     insertion reads them) unless the character before it is one of
//     ; { , ( [ (after which no semicolon is ever inserted) or the one
//     after it is } ) ] , ; (ditto), and the + - / rule above holds;
//   - // and /* */ comments go (a block comment counts as the whitespace
//     it spans).
//
// A / starts a regular expression when what precedes it cannot end an
// operand: nothing, one of ( , = : [ ! & | ? { } ; + - * % < > ~ ^, or
// the keywords return, typeof, case, in, of, void, delete, new, throw,
// else, do. The page's scripts are written within these rules; the
// tests run the minified bytes (node's cases, node --check of every
// script, the browser tests) and check that minifying is idempotent.
func minifyJS(src []byte) []byte {
	return minify(src, true)
}

// minifyCSS is minifyJS's rules for a stylesheet: comments and
// whitespace next to { } ; , > go; whitespace before a : stays (a
// descendant's :hover), strings are copied.
func minifyCSS(src []byte) []byte {
	return minify(src, false)
}

func isWord(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// regexKeywords are the words after which a / starts a regular expression.
var regexKeywords = map[string]bool{"return": true, "typeof": true, "case": true, "in": true, "of": true,
	"void": true, "delete": true, "new": true, "throw": true, "else": true, "do": true}

func minify(src []byte, js bool) []byte {
	out := make([]byte, 0, len(src))
	last := func() byte {
		if len(out) == 0 {
			return 0
		}
		return out[len(out)-1]
	}
	// regexAllowed: a / here starts a regular expression.
	regexAllowed := func() bool {
		c := last()
		if c == 0 || strings.IndexByte("(,=:[!&|?{};+-*%<>~^\n", c) >= 0 {
			return true
		}
		if !isWord(c) {
			return false
		}
		i := len(out)
		for i > 0 && isWord(out[i-1]) {
			i--
		}
		return regexKeywords[string(out[i:])]
	}
	pendingSpace, pendingLine := false, false
	flush := func(next byte) {
		if !pendingSpace && !pendingLine {
			return
		}
		prev := last()
		sticky := prev == '+' && next == '+' || prev == '-' && next == '-' || prev == '/' || next == '/'
		switch {
		case prev == 0:
		case pendingLine && js && !(strings.IndexByte(";{,([", prev) >= 0 || strings.IndexByte("})],;", next) >= 0):
			out = append(out, '\n')
		case sticky || isWord(prev) && isWord(next):
			out = append(out, ' ')
		case !js && !(strings.IndexByte("{};,>", prev) >= 0 || strings.IndexByte("{};,>", next) >= 0):
			out = append(out, ' ') // a CSS selector's descendant space, a value's separator
		}
		pendingSpace, pendingLine = false, false
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			pendingSpace = true
			i++
		case c == '\n':
			pendingLine = true
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(string(src[i+2:]), "*/")
			if end < 0 {
				end = len(src) - i - 2
			}
			if strings.IndexByte(string(src[i:i+2+end]), '\n') >= 0 {
				pendingLine = true
			} else {
				pendingSpace = true
			}
			i += 2 + end + 2
		case js && c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'' || js && c == '`':
			flush(c)
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(src))
			out = append(out, src[i:j]...)
			i = j
		case js && c == '/' && regexAllowed():
			flush(c)
			j, class := i+1, false
			for j < len(src) && (class || src[j] != '/') && src[j] != '\n' {
				switch src[j] {
				case '\\':
					j++
				case '[':
					class = true
				case ']':
					class = false
				}
				j++
			}
			j = min(j+1, len(src))
			out = append(out, src[i:j]...)
			i = j
		default:
			flush(c)
			out = append(out, c)
			i++
		}
	}
	if len(out) > 0 && js {
		out = append(out, '\n')
	}
	return out
}
