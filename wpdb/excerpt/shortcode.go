package excerpt

import (
	"fmt"
	"strings"
)

// CoreShortcodes returns the shortcodes WordPress core registers
// (wp-includes/media.php and embed.php), which its excerpts strip on any
// site; a site's plugins register more.
func CoreShortcodes() []string {
	return []string{"wp_caption", "caption", "gallery", "playlist", "audio", "video", "embed"}
}

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

// shortcodeScan is WordPress 6.1's strip_shortcodes of one post for a list
// of registered tags, byte for byte, written as a scan rather than PCRE so
// that it can stop after the start of the post: the name prefilter,
// brackets inside HTML elements, comments and CDATA left alone,
// get_shortcode_regex's match, and "[[tag]]" kept as "[tag]" (the rules are
// in docs/design.md). What it must know of the whole post (which names
// follow a '[', where each tag's last "[/tag]" lies) comes from one pass,
// made when first needed. When whole is only the start of the post
// (startOnly), a name or closing tag not found there may lie further on,
// so every decision that needs the rest is unsure.
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
	bracket lastSearch
	closeIn []lastSearch
}

// lastSearch remembers the last answer to a search for ']' or a "[/tag]":
// the first hit at or after from is at, -1 when there is none; from < 0
// means not searched yet in this cut.
type lastSearch struct{ from, at int }

func newShortcodeScan(whole string, tags, closers []string) *shortcodeScan {
	return &shortcodeScan{whole: whole, tags: tags, closers: closers, closeIn: make([]lastSearch, len(tags))}
}

// newStartScan is newShortcodeScan of start, the start of a post whose
// rest was not read.
func newStartScan(start string, tags, closers []string) *shortcodeScan {
	sc := newShortcodeScan(start, tags, closers)
	sc.startOnly = true
	return sc
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
	sc.bracket = lastSearch{from: -1}
	for k := range sc.closeIn {
		sc.closeIn[k] = lastSearch{from: -1}
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
