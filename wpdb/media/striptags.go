package media

import "strings"

// stripTags is PHP's strip_tags($s) with no allowed tags, a port of the
// state machine of php_strip_tags_ex() (ext/standard/string.c): it is no
// HTML parser, and its quirks are WordPress's. "<" followed by whitespace
// is text; an unclosed tag swallows the rest of the string; quotes inside a
// tag hide its ">"; comments, "<!...>", "<?...?>" (PHP) and "<?xml" get
// their own states; NUL bytes go.
func stripTags(s string) string {
	if !strings.ContainsAny(s, "<>\x00") {
		return s
	}
	const (
		text    = iota // state 0
		tag            // 1: inside <...>
		php            // 2: inside <?...?>
		bang           // 3: inside <!...>
		comment        // 4: inside <!--...-->
	)
	var (
		out        = make([]byte, 0, len(s))
		state      = text
		depth      = 0
		inQuote    byte // in_q
		last       byte // lc
		brackets   = 0  // br
		xml        = false
		at         = func(i int) byte { return s[i] }
		nextIsSpce = func(i int) bool { return i+1 < len(s) && isCSpace(s[i+1]) }
		// closes is the test of a ">": a "<" nested in a tag takes it
		// first, and a quote hides it.
		closes = func() bool {
			if depth > 0 {
				depth--
				return false
			}
			return inQuote == 0
		}
		// quote is a quote mark opening or closing a quoted stretch.
		quote = func(c byte) {
			if inQuote == 0 {
				inQuote = c
			} else if c == inQuote {
				inQuote = 0
			}
		}
	)
	for p := 0; p < len(s); p++ {
		c := s[p]
		switch state {
		case text:
			switch c {
			case 0:
			case '<':
				if inQuote != 0 {
					break
				}
				if nextIsSpce(p) {
					out = append(out, c)
					break
				}
				last = '<'
				state = tag
			case '>':
				if closes() {
					out = append(out, c)
				}
			default:
				out = append(out, c)
			}
		case tag:
			switch c {
			case '<':
				if inQuote != 0 || nextIsSpce(p) {
					break
				}
				depth++
			case '>':
				if !closes() {
					break
				}
				last = '>'
				if xml && p >= 1 && at(p-1) == '-' {
					break
				}
				inQuote, state, xml = 0, text, false
			case '"', '\'':
				if p != 0 {
					quote(c)
				}
			case '!':
				// <! starts a comment, a doctype or the like.
				if p >= 1 && at(p-1) == '<' {
					state, last = bang, c
				}
			case '?':
				if p >= 1 && at(p-1) == '<' {
					brackets, state = 0, php
				}
			}
		case php:
			switch c {
			case '(':
				if last != '"' && last != '\'' {
					last = '('
					brackets++
				}
			case ')':
				if last != '"' && last != '\'' {
					last = ')'
					brackets--
				}
			case '>':
				if closes() && brackets == 0 && p >= 1 && last != '"' && at(p-1) == '?' {
					inQuote, state = 0, text
				}
			case '"', '\'':
				if p >= 1 && at(p-1) != '\\' {
					if last == c {
						last = 0
					} else if last != '\\' {
						last = c
					}
					if p != 0 {
						quote(c)
					}
				}
			case 'l', 'L':
				// "<?xml" is no PHP: back to a tag.
				if p > 4 && lower(at(p-1)) == 'm' && lower(at(p-2)) == 'x' && at(p-3) == '?' && at(p-4) == '<' {
					state, xml = tag, true
				}
			}
		case bang:
			switch c {
			case '>':
				if closes() {
					inQuote, state = 0, text
				}
			case '"', '\'':
				if p != 0 && at(p-1) != '\\' {
					quote(c)
				}
			case '-':
				if p >= 2 && at(p-1) == '-' && at(p-2) == '!' {
					state = comment
				}
			case 'E', 'e':
				// "<!DOCTYPE" is a tag.
				if p > 6 && strings.EqualFold(s[p-6:p], "doctyp") {
					state = tag
				}
			}
		case comment:
			if c == '>' && inQuote == 0 && p >= 2 && at(p-1) == '-' && at(p-2) == '-' {
				inQuote, state = 0, text
			}
		}
	}
	return string(out)
}

// isCSpace is C's isspace() in the C locale.
func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
