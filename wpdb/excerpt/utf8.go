package excerpt

import (
	"io"
	"unicode/utf8"
)

// validUTF8Reader reads s with each run of invalid UTF-8 bytes replaced by
// one U+FFFD, exactly as strings.ToValidUTF8(s, "\uFFFD"), without scanning
// more of s than the tokenizer asks for, and ends (io.EOF) at the first whole
// character at or after s[limit].
type validUTF8Reader struct {
	s     string
	limit int
	pos   int  // bytes of s read
	out   int  // bytes given out
	bad   bool // the last byte read was invalid, so its U+FFFD is written
}

func (r *validUTF8Reader) Read(p []byte) (int, error) {
	end := min(len(r.s), r.limit)
	if r.pos >= end {
		return 0, io.EOF
	}
	// Posts are almost always valid UTF-8: copy whole characters at once.
	end = min(end, r.pos+len(p))
	for i := 0; i < utf8.UTFMax-1 && end < len(r.s) && end > r.pos && !utf8.RuneStart(r.s[end]); i++ {
		end--
	}
	if end > r.pos && utf8.ValidString(r.s[r.pos:end]) {
		n := copy(p, r.s[r.pos:end])
		r.pos = end
		r.out += n
		r.bad = false
		return n, nil
	}
	n := 0
	for n < len(p) && r.pos < len(r.s) && r.pos < r.limit {
		c := r.s[r.pos]
		if c < utf8.RuneSelf {
			p[n] = c
			n++
			r.pos++
			r.bad = false
			continue
		}
		ru, size := utf8.DecodeRuneInString(r.s[r.pos:])
		if ru == utf8.RuneError && size == 1 {
			if !r.bad {
				if len(p)-n < len("\uFFFD") {
					break
				}
				n += copy(p[n:], "\uFFFD")
				r.bad = true
			}
			r.pos++
			continue
		}
		if len(p)-n < size {
			break
		}
		n += copy(p[n:], r.s[r.pos:r.pos+size])
		r.pos += size
		r.bad = false
	}
	r.out += n
	return n, nil
}

// trimSplitRune drops a character split by the end of s.
func trimSplitRune(s string) string {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				s = s[:i]
			}
			break
		}
	}
	return s
}
