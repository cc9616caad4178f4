package excerpt

import "strings"

type matchResult int

const (
	noMatch matchResult = iota
	matched
	unsure // the answer lies past the end of a truncated content
)

// elementEnd returns where the HTML element, comment or CDATA section that
// starts with the '<' at p ends, as wp_html_split's regex cuts it: at the
// first "-->" after "<!--", "]]>" after "<![CDATA[", else '>', or the end
// of the post. ok is false when that end is past a truncated content.
func (sc *shortcodeScan) elementEnd(p int) (end int, ok bool) {
	s, closer, from := sc.s, ">", p+1
	switch {
	case strings.HasPrefix(s[p:], "<!--"):
		closer, from = "-->", p+2
	case strings.HasPrefix(s[p:], "<![CDATA["):
		closer, from = "]]>", p+9
	}
	if k := strings.Index(s[from:], closer); k >= 0 {
		return from + k + len(closer), true
	}
	return len(s), !sc.truncated
}

// find returns the first c ('[' or ']') outside HTML elements at or after
// i, which must itself be outside them; ok is false when there is none,
// with end where the scan could tell (the end of the content, or of what
// is sure in a truncated one).
func (sc *shortcodeScan) find(i int, c byte) (at int, ok bool, end int) {
	// Without a c ahead there is nothing to find, whatever the elements
	// hold: most posts are read no further than this.
	if strings.IndexByte(sc.s[i:], c) < 0 {
		return 0, false, len(sc.s)
	}
	stops := "<["
	if c == ']' {
		stops = "<]"
	}
	for {
		k := strings.IndexAny(sc.s[i:], stops)
		if k < 0 {
			return 0, false, len(sc.s)
		}
		i += k
		if sc.s[i] == c {
			return i, true, 0
		}
		e, sure := sc.elementEnd(i)
		if !sure {
			return 0, false, i
		}
		i = e
	}
}

func (sc *shortcodeScan) nextBracket(i int) (int, bool) {
	at, ok, end := sc.find(i, '[')
	if !ok {
		return end, false
	}
	return at, true
}

// closingBracket is find(i, ']') remembered: the scan asks it from every
// '[tag' (always outside elements, so every answer from an earlier i
// that is not past this one holds), and a post of many '[gallery' without
// a ']' must not be read once per tag.
func (sc *shortcodeScan) closingBracket(i int) (int, bool) {
	m := &sc.bracket
	if m.from < 0 || i < m.from || m.at >= 0 && m.at < i {
		at, ok, _ := sc.find(i, ']')
		if !ok {
			at = -1
		}
		*m = lastSearch{from: i, at: at}
	}
	return m.at, m.at >= 0
}

// matchAt tries get_shortcode_regex at the '[' at j.
func (sc *shortcodeScan) matchAt(j int) (end int, replacement string, m matchResult) {
	s := sc.s
	n := j + 1
	escaped := n < len(s) && s[n] == '['
	if escaped {
		n++
	}
	k, m := sc.tagAt(n)
	if m != matched {
		return 0, "", m
	}
	// Attributes run to the first ']' outside elements; a '/' right
	// before it makes the shortcode self-closing. The tag name holds no
	// '/', so s[b-1] is never part of it.
	b, ok := sc.closingBracket(n + len(sc.tags[k]))
	if !ok {
		return 0, "", sc.unsureIf()
	}
	end = b + 1
	if s[b-1] != '/' {
		if c, ok := sc.closingTag(k, end); ok {
			end = c + len(sc.closers[k])
		} else if sc.truncated && (sc.startOnly || sc.closerInWhole(k, end)) {
			// Without the rest of the post, a "[/tag]" may still follow
			// and make this shortcode enclose everything up to it.
			return 0, "", unsure
		}
	}
	if end == len(s) && sc.truncated {
		return 0, "", unsure
	}
	closed := end < len(s) && s[end] == ']'
	if closed {
		end++
	}
	switch {
	case escaped && closed:
		return end, s[j+1 : end-1], matched
	case escaped:
		return end, "[", matched
	case closed:
		return end, "]", matched
	}
	return end, "", matched
}

func (sc *shortcodeScan) unsureIf() matchResult {
	if sc.truncated {
		return unsure
	}
	return noMatch
}

// tagAt returns the index of the registered tag that starts at n, trying
// them in the order of the list, as PCRE tries the alternation.
func (sc *shortcodeScan) tagAt(n int) (int, matchResult) {
	s := sc.s
	for k, tag := range sc.tags {
		if !strings.HasPrefix(s[n:], tag) {
			if len(s)-n < len(tag) && strings.HasPrefix(tag, s[n:]) && sc.truncated {
				return 0, unsure
			}
			continue
		}
		after := n + len(tag)
		if after == len(s) {
			return 0, sc.unsureIf()
		}
		if isWordOrHyphen(s[after]) {
			continue
		}
		if isShortcodeNameByte(s[after]) {
			// Here the name the prefilter reads is longer than tag
			// ("[gallery.x]"): the tag is in the regex only if it stands
			// alone after a '[' elsewhere.
			if !sc.wholePass().named[k] {
				if sc.startOnly {
					return 0, unsure // the name may stand alone further on
				}
				continue
			}
		}
		return k, matched
	}
	return 0, noMatch
}

// wholePass reads the whole post once for what strip_shortcodes' prefilter
// sees, the names right after each '[' inside HTML or not, and for the last
// closing tag of each registered tag.
func (sc *shortcodeScan) wholePass() *shortcodeScan {
	if sc.passed {
		return sc
	}
	sc.passed = true
	sc.named = make([]bool, len(sc.tags))
	sc.lastCloser = make([]int, len(sc.tags))
	for k := range sc.lastCloser {
		sc.lastCloser[k] = -1
	}
	for p := 0; ; p++ {
		k := strings.IndexByte(sc.whole[p:], '[')
		if k < 0 {
			return sc
		}
		p += k
		rest := sc.whole[p+1:]
		if strings.HasPrefix(rest, "/") {
			for t, closer := range sc.closers {
				if strings.HasPrefix(sc.whole[p:], closer) {
					sc.lastCloser[t] = p
				}
			}
			continue
		}
		e := 0
		for e < len(rest) && isShortcodeNameByte(rest[e]) {
			e++
		}
		if e == len(rest) && sc.startOnly {
			return sc // the name may go on past the start
		}
		for t, tag := range sc.tags {
			if tag == rest[:e] {
				sc.named[t] = true
			}
		}
	}
}

// anyTagInContent is whether the prefilter lets strip_shortcodes go on.
func (sc *shortcodeScan) anyTagInContent() bool {
	for _, named := range sc.wholePass().named {
		if named {
			return true
		}
	}
	return false
}

// closerInWhole reports whether "[/tag]" for tag k starts in the whole post
// at or after i, inside HTML or not. Asked from a truncated cut, it tells
// whether the closing tag may lie past the cut.
func (sc *shortcodeScan) closerInWhole(k, i int) bool {
	return sc.wholePass().lastCloser[k] >= i
}

// closingTag returns the first "[/tag]" for tag k at or after i whose '['
// is outside HTML elements in the cut; i must be outside them too.
// Remembered like closingBracket.
func (sc *shortcodeScan) closingTag(k, i int) (int, bool) {
	m := &sc.closeIn[k]
	if m.from < 0 || i < m.from || m.at >= 0 && m.at < i {
		*m = lastSearch{from: i, at: sc.findClosingTag(sc.closers[k], i)}
	}
	return m.at, m.at >= 0
}

func (sc *shortcodeScan) findClosingTag(closer string, i int) int {
	k := strings.Index(sc.s[i:], closer)
	if k < 0 {
		return -1
	}
	k += i
	for {
		at, ok, _ := sc.find(i, '[')
		switch {
		case !ok:
			return -1
		case at == k:
			return k
		case at > k: // that one lies inside an element
			n := strings.Index(sc.s[at:], closer)
			if n < 0 {
				return -1
			}
			k, i = at+n, at
		default:
			i = at + 1
		}
	}
}
