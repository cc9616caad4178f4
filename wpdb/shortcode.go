package wpdb

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ValidateShortcode refuses a tag name WordPress's add_shortcode refuses:
// empty, or holding one of <>&/[]= , a control character or a space
// (the class [<>&\/\[\]\x00-\x20=] of wp-includes/shortcodes.php).
func ValidateShortcode(tag string) error {
	if tag == "" || strings.IndexFunc(tag, notShortcodeNameRune) >= 0 {
		return fmt.Errorf("shortcode %q: a name holds none of <>&/[]= , spaces or control characters", tag)
	}
	return nil
}

func notShortcodeNameRune(r rune) bool { return r <= 0x20 || strings.ContainsRune(`<>&/[]=`, r) }

// isShortcodeNameByte is the byte class of strip_shortcodes' prefilter,
// [^<>&/\[\]\x00-\x20=]: PCRE without the u flag reads bytes, so every
// byte of a multi-byte character belongs to it.
func isShortcodeNameByte(c byte) bool {
	switch c {
	case '<', '>', '&', '/', '[', ']', '=':
		return false
	}
	return c > 0x20
}

// isWordOrHyphen is PCRE's [\w-] without the u flag: ASCII only.
func isWordOrHyphen(c byte) bool {
	return c == '_' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// shortcodeScan is WordPress's strip_shortcodes (wp-includes/shortcodes.php
// of 6.1, Debian's package, which the tests run) of one post for a list of
// registered tags, written as a scan rather than PCRE so that it can stop
// after the start of the post:
//
//   - it runs only when the post holds a '[' and, the prefilter, a tag is
//     tried only if it appears right after some '[' of the post (inside
//     HTML or not) as a whole name, preg_match_all of
//     [^<>&/\[\]\x00-\x20=]++; without one the post is returned as it is;
//   - do_shortcodes_in_html_tags, which strip_shortcodes calls with
//     $ignore_html true: in that mode it never parses attributes (the
//     wp_kses_attr_parse branch that runs shortcodes inside attribute
//     values is for do_shortcode), it only hides every '[' and ']' inside
//     HTML elements, comments and CDATA sections, as wp_html_split cuts
//     them, as &#91; and &#93; while the regex runs, and
//     unescape_invalid_shortcodes restores them. So a shortcode inside an
//     HTML attribute is never stripped, and a bracket inside an element
//     neither opens nor closes one; we skip the elements instead of
//     escaping them. We also keep what that dance leaves visible, though
//     the excerpt reads it the same except inside raw text such as <xmp>,
//     so that the strip equals WordPress's byte for byte: a literal "&#91;"
//     or "&#93;" comes out as "&#091;" or "&#093;" (the function's first
//     normalization), and one that forms only where a shortcode was cut
//     out ("&#9[gallery]1;") comes out as a bracket;
//   - get_shortcode_regex's match at a '[' outside elements: an optional
//     second '[', the first listed tag that is not followed by a word
//     character or '-', attributes up to the first ']' outside elements,
//     then either "/]" (self-closing) or ']' and, when a "[/tag]" follows
//     outside elements, everything up to the first one (so nested
//     same-name shortcodes end at the inner close); then an optional second
//     ']';
//   - strip_shortcode_tag: "[[tag]]" becomes "[tag]", any other match is
//     removed with its enclosed content, leaving an unpaired '[' or ']'.
//
// strip reads only whole[:cut]. What it must know of the whole post, which
// names follow a '[' and where the last "[/tag]" of each tag lies, comes
// from one pass over the post with strings.IndexByte, made the first time
// it is needed (a registered tag near the start) and kept for every cut.
//
// When whole is itself only the start of the post (startOnly, a bounded
// read of the database), that pass learns what the start holds and nothing
// of the rest: a name or closing tag found there is certain, one not found
// may lie further on. Every decision that needs the rest is then unsure.
type shortcodeScan struct {
	whole     string
	startOnly bool // whole is only the start of the post
	tags      []string
	closers   []string // "[/tag]" for each tag
	// What the whole post holds, per tag, once wholePass has run.
	passed     bool
	named      []bool // a '[' is followed by exactly the tag's name
	lastCloser []int  // where the last "[/tag]" starts, -1 if none
	s          string // whole[:cut], what strip reads
	truncated  bool   // cut < len(whole), or whole is only the start
	// Per cut: the next ']' and "[/tag]" outside elements in s.
	bracket memo
	closeIn []memo
}

// memo remembers a search: the first hit at or after from is at, -1 when
// there is none; from < 0 means not searched yet.
type memo struct{ from, at int }

func newShortcodeScan(whole string, tags, closers []string) *shortcodeScan {
	return &shortcodeScan{whole: whole, tags: tags, closers: closers, closeIn: make([]memo, len(tags))}
}

// newStartScan is newShortcodeScan of start, the start of a post whose
// rest was not read.
func newStartScan(start string, tags, closers []string) *shortcodeScan {
	sc := newShortcodeScan(start, tags, closers)
	sc.startOnly = true
	return sc
}

// stripShortcodes is strip_shortcodes of content[:cut] for tags, for tests.
func stripShortcodes(content string, cut int, tags []string) (string, bool) {
	return newShortcodeScan(content, tags, closingTags(tags)).strip(cut)
}

func closingTags(tags []string) []string {
	closers := make([]string, len(tags))
	for i, tag := range tags {
		closers[i] = "[/" + tag + "]"
	}
	return closers
}

// strip returns strip_shortcodes of the whole post when cut is its length
// (complete is then true). For a shorter cut it returns a prefix of that,
// stopping before the first decision that depends on bytes past the cut,
// before a character or a "&#91;" the cut splits; complete is then false.
func (sc *shortcodeScan) strip(cut int) (out string, complete bool) {
	sc.s, sc.truncated = sc.whole[:cut], cut < len(sc.whole) || sc.startOnly
	sc.bracket = memo{from: -1}
	for k := range sc.closeIn {
		sc.closeIn[k] = memo{from: -1}
	}
	var b strings.Builder // empty until something is cut out
	var joins []int       // where, in b, something was cut out or put in
	emitted, stop := 0, len(sc.s)
	for i := 0; ; {
		j, ok := sc.nextBracket(i)
		if !ok {
			stop = j
			break
		}
		end, replacement, m := sc.matchAt(j)
		if m == unsure {
			stop = j
			break
		}
		if m == noMatch {
			i = j + 1
			continue
		}
		if joins == nil {
			b.Grow(cut)
		}
		b.WriteString(sc.s[emitted:j])
		joins = append(joins, b.Len())
		b.WriteString(replacement)
		joins = append(joins, b.Len())
		emitted, i = end, end
	}
	complete = stop == len(sc.s) && !sc.truncated
	if joins == nil {
		out = sc.s[:stop] // the usual case: nothing cut out, no copy
	} else {
		b.WriteString(sc.s[emitted:stop])
		out = b.String()
	}
	if !complete {
		out = trimUnfinished(out)
	}
	return sc.escapedBrackets(out, joins), complete
}

// escapedBrackets rewrites each "&#91;" and "&#93;" of a stripped out as
// strip_shortcodes leaves it. When the post holds a registered tag, a
// literal one (within one piece of the post) becomes "&#091;" or "&#093;",
// the normalization do_shortcodes_in_html_tags does first; one that formed
// across a cut-out shortcode (joins) becomes a bracket, as
// unescape_invalid_shortcodes turns it. Without a registered tag the post
// is returned as it is.
func (sc *shortcodeScan) escapedBrackets(out string, joins []int) string {
	var b strings.Builder
	last := 0
	for i := 0; ; {
		k := strings.Index(out[i:], "&#9")
		if k < 0 {
			break
		}
		p := i + k
		i = p + 1
		if p+5 > len(out) || out[p+3] != '1' && out[p+3] != '3' || out[p+4] != ';' {
			continue
		}
		if joins == nil && !sc.anyTagInContent() {
			if sc.startOnly {
				// A tag named further on would make this "&#091;": the
				// stripped start is sure only up to here.
				return out[:p]
			}
			return out
		}
		for len(joins) > 0 && joins[0] <= p {
			joins = joins[1:]
		}
		replacement := "&#0" + out[p+2:p+5]
		if len(joins) > 0 && joins[0] < p+5 {
			replacement = "["
			if out[p+3] == '3' {
				replacement = "]"
			}
		}
		b.WriteString(out[last:p])
		b.WriteString(replacement)
		last, i = p+5, p+5
	}
	if last == 0 {
		return out
	}
	b.WriteString(out[last:])
	return b.String()
}

// trimUnfinished drops the end of a stripped prefix that the rest of the
// post could still change: a start of "&#91;" or "&#93;", which
// escapedBrackets rewrites, and a character the cut split, which the walk
// would read as invalid UTF-8.
func trimUnfinished(s string) string {
	if i := strings.LastIndexByte(s, '&'); i >= 0 && len(s)-i < len("&#91;") && (strings.HasPrefix("&#91;", s[i:]) || strings.HasPrefix("&#93;", s[i:])) {
		s = s[:i]
	}
	return trimSplitRune(s)
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
		*m = memo{from: i, at: at}
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
		*m = memo{from: i, at: sc.findClosingTag(sc.closers[k], i)}
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
