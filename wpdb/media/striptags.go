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
	st := tagStripper{s: s, out: make([]byte, 0, len(s))}
	for p := 0; p < len(s); p++ {
		switch st.state {
		case inText:
			st.text(p)
		case inTag:
			st.tag(p)
		case inPHP:
			st.php(p)
		case inBang:
			st.bang(p)
		case inComment:
			st.comment(p)
		}
	}
	return string(st.out)
}

// The states of php_strip_tags_ex(), numbered as there.
const (
	inText    = iota // 0
	inTag            // 1: inside <...>
	inPHP            // 2: inside <?...?>
	inBang           // 3: inside <!...>
	inComment        // 4: inside <!--...-->
)

// tagStripper is the state of php_strip_tags_ex() over s; each method
// reads the byte s[p] in the state it is named after.
type tagStripper struct {
	s        string
	out      []byte
	state    int
	depth    int  // "<" nested in a tag, each taking a ">" first
	inQuote  byte // in_q
	last     byte // lc
	brackets int  // br
	xml      bool // in "<?xml", read as a tag
}

func (st *tagStripper) text(p int) {
	switch c := st.s[p]; c {
	case 0:
	case '<':
		if st.inQuote != 0 {
			break
		}
		if st.nextIsSpace(p) {
			st.out = append(st.out, c)
			break
		}
		st.last = '<'
		st.state = inTag
	case '>':
		if st.closes() {
			st.out = append(st.out, c)
		}
	default:
		st.out = append(st.out, c)
	}
}

func (st *tagStripper) tag(p int) {
	switch c := st.s[p]; c {
	case '<':
		if st.inQuote != 0 || st.nextIsSpace(p) {
			break
		}
		st.depth++
	case '>':
		if !st.closes() {
			break
		}
		st.last = '>'
		if st.xml && p >= 1 && st.s[p-1] == '-' {
			break
		}
		st.inQuote, st.state, st.xml = 0, inText, false
	case '"', '\'':
		if p != 0 {
			st.quote(c)
		}
	case '!':
		// <! starts a comment, a doctype or the like.
		if p >= 1 && st.s[p-1] == '<' {
			st.state, st.last = inBang, c
		}
	case '?':
		if p >= 1 && st.s[p-1] == '<' {
			st.brackets, st.state = 0, inPHP
		}
	}
}

func (st *tagStripper) php(p int) {
	s := st.s
	switch c := s[p]; c {
	case '(':
		if st.last != '"' && st.last != '\'' {
			st.last = '('
			st.brackets++
		}
	case ')':
		if st.last != '"' && st.last != '\'' {
			st.last = ')'
			st.brackets--
		}
	case '>':
		if st.closes() && st.brackets == 0 && p >= 1 && st.last != '"' && s[p-1] == '?' {
			st.inQuote, st.state = 0, inText
		}
	case '"', '\'':
		if p >= 1 && s[p-1] != '\\' {
			if st.last == c {
				st.last = 0
			} else if st.last != '\\' {
				st.last = c
			}
			if p != 0 {
				st.quote(c)
			}
		}
	case 'l', 'L':
		// "<?xml" is no PHP: back to a tag.
		if p > 4 && lower(s[p-1]) == 'm' && lower(s[p-2]) == 'x' && s[p-3] == '?' && s[p-4] == '<' {
			st.state, st.xml = inTag, true
		}
	}
}

func (st *tagStripper) bang(p int) {
	s := st.s
	switch c := s[p]; c {
	case '>':
		if st.closes() {
			st.inQuote, st.state = 0, inText
		}
	case '"', '\'':
		if p != 0 && s[p-1] != '\\' {
			st.quote(c)
		}
	case '-':
		if p >= 2 && s[p-1] == '-' && s[p-2] == '!' {
			st.state = inComment
		}
	case 'E', 'e':
		// "<!DOCTYPE" is a tag.
		if p > 6 && strings.EqualFold(s[p-6:p], "doctyp") {
			st.state = inTag
		}
	}
}

func (st *tagStripper) comment(p int) {
	s := st.s
	if s[p] == '>' && st.inQuote == 0 && p >= 2 && s[p-1] == '-' && s[p-2] == '-' {
		st.inQuote, st.state = 0, inText
	}
}

// nextIsSpace reports whether the byte after s[p] is white space: a "<"
// before it is text.
func (st *tagStripper) nextIsSpace(p int) bool {
	return p+1 < len(st.s) && isCSpace(st.s[p+1])
}

// closes is the test of a ">": a "<" nested in a tag takes it first, and
// a quote hides it.
func (st *tagStripper) closes() bool {
	if st.depth > 0 {
		st.depth--
		return false
	}
	return st.inQuote == 0
}

// quote takes a quote mark opening or closing a quoted stretch.
func (st *tagStripper) quote(c byte) {
	if st.inQuote == 0 {
		st.inQuote = c
	} else if c == st.inQuote {
		st.inQuote = 0
	}
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
