package wpdb

import (
	"fmt"
	"strings"
)

// The small part of PHP's lexer that reading wp-config.php needs: strings,
// variables, identifiers and punctuation, with comments skipped. It knows
// enough that a "//" or "#" inside a string, or a define() inside a comment,
// is not mistaken for code.

type tokKind int

const (
	tokPunct tokKind = iota
	tokIdent
	tokVar
	tokString // text holds the decoded value
	tokOther  // numbers and anything else a define() might hold
)

type token struct {
	kind tokKind
	text string
}

func (t token) is(punct string) bool { return t.kind == tokPunct && t.text == punct }

// maxTokens bounds the work on hostile input; a real wp-config.php has a few
// hundred tokens.
const maxTokens = 1 << 20

func lexPHP(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		if len(toks) > maxTokens {
			return nil, fmt.Errorf("file is too large")
		}
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '#' && !strings.HasPrefix(src[i:], "#["), strings.HasPrefix(src[i:], "//"):
			// A line comment ends at the newline (or at ?>, which we treat as
			// text: it does not matter for the settings we read).
			if end := strings.IndexByte(src[i:], '\n'); end >= 0 {
				i += end + 1
			} else {
				i = len(src)
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("unterminated /* comment")
			}
			i += 2 + end + 2
		case c == '\'' || c == '"':
			s, n, err := lexString(src[i:])
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tokString, s})
			i += n
		case c == '$' || isIdentByte(c):
			j := i + 1
			for j < len(src) && isIdentByte(src[j]) {
				j++
			}
			kind := tokIdent
			if c == '$' {
				kind = tokVar
			} else if c >= '0' && c <= '9' {
				kind = tokOther
			}
			toks = append(toks, token{kind, src[i:j]})
			i = j
		default:
			toks = append(toks, token{tokPunct, src[i : i+1]})
			i++
		}
	}
	return toks, nil
}

// isVarStart reports whether c after a $ in a double-quoted string makes
// PHP interpolate: a variable name's first byte, or { for ${name}.
func isVarStart(c byte) bool {
	return c == '{' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// lexString decodes the PHP string literal at the start of s and returns it
// with the number of bytes it spans. Single quotes know only \' and \\;
// double quotes know the common escapes. A double-quoted string that would
// interpolate a variable is refused rather than guessed at.
func lexString(s string) (string, int, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q:
			return b.String(), i + 1, nil
		case c == '\\' && i+1 < len(s):
			next := s[i+1]
			if q == '\'' {
				if next == '\'' || next == '\\' {
					b.WriteByte(next)
					i++
				} else {
					b.WriteByte(c)
				}
				continue
			}
			if r := strings.IndexByte(`"\$ntrvfe`, next); r >= 0 {
				b.WriteByte("\"\\$\n\t\r\v\f\x1b"[r])
				i++
			} else {
				b.WriteByte(c)
			}
		case c == '$' && q == '"' && i+1 < len(s) && isVarStart(s[i+1]):
			return "", 0, fmt.Errorf("double-quoted string uses PHP variable interpolation ($%c...); use single quotes", s[i+1])
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, fmt.Errorf("unterminated string literal")
}
