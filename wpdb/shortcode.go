package wpdb

import (
	"fmt"
	"strings"
)

// CoreShortcodes are the shortcodes WordPress core registers
// (wp-includes/media.php and class-wp-embed.php): the ones its excerpts
// strip on every site.
var CoreShortcodes = []string{"wp_caption", "caption", "gallery", "playlist", "audio", "video", "embed"}

// ValidateShortcode refuses a tag name WordPress's add_shortcode refuses:
// empty, or holding one of <>&/[] , a control character, a space or =.
func ValidateShortcode(tag string) error {
	if tag == "" || strings.IndexFunc(tag, notShortcodeNameRune) >= 0 {
		return fmt.Errorf("shortcode %q: a name holds none of <>&/[]= , spaces or control characters", tag)
	}
	return nil
}

func notShortcodeNameRune(r rune) bool { return r <= 0x20 || strings.ContainsRune(`<>&/[]=`, r) }

func isShortcodeNameByte(c byte) bool { return c > 0x20 && strings.IndexByte(`<>&/[]=`, c) < 0 }

// isWordOrHyphen is PCRE's [\w-] without the u flag: ASCII only.
func isWordOrHyphen(c byte) bool {
	return c == '_' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// stripShortcodes is WordPress's strip_shortcodes (wp-includes/shortcodes.php,
// 6.1) for the registered tags, written as a scan rather than PCRE:
//
//   - a tag is tried only where it appears right after a '[' as a whole
//     name somewhere in the content (the preg_match_all prefilter);
//   - brackets inside HTML elements and comments, as wp_html_split cuts
//     them, are not shortcodes (do_shortcodes_in_html_tags escapes them);
//   - get_shortcode_regex's match: '[', an optional second '[', the tag not
//     followed by a word character or '-', attributes up to the first ']',
//     then either "/]" (self-closing) or ']' and, when a "[/tag]" follows,
//     everything up to the first one; then an optional second ']';
//   - strip_shortcode_tag: "[[tag]]" becomes "[tag]", any other match is
//     removed with its enclosed content.
//
// It does not turn a literal "&#91;" or "&#93;" in the content into a
// bracket as unescape_invalid_shortcodes does; the excerpt decodes them to
// the same characters.
//
// It strips only content[:cut] when cut < len(content): the scan then stops
// before the first decision that depends on HTML after the cut, and
// complete is false. What it returned is always a prefix of what the whole
// post gives. Whether a closing tag or a name exists at all is looked up
// in the whole content, which is fast, so a shortcode that is never closed
// does not make the excerpt read the post.
func stripShortcodes(dst []byte, whole string, cut int, tags []string) (out []byte, complete bool) {
	content, truncated := whole[:cut], cut < len(whole)
	s := shortcodeScan{s: content, whole: whole, tags: tags, truncated: truncated}
	emitted := 0
	for i := 0; ; {
		j, ok := s.nextBracket(i)
		if !ok {
			return append(dst, content[emitted:j]...), j == len(content) && !truncated
		}
		end, replacement, m := s.matchAt(j)
		switch m {
		case unsure:
			return append(dst, content[emitted:j]...), false
		case noMatch:
			i = j + 1
			continue
		}
		dst = append(append(dst, content[emitted:j]...), replacement...)
		emitted, i = end, end
	}
}

type matchResult int

const (
	noMatch matchResult = iota
	matched
	unsure // the answer lies past the end of a truncated content
)

type shortcodeScan struct {
	s         string // what is stripped: whole, or a prefix of it
	whole     string
	tags      []string
	truncated bool
	names     map[string]bool // the prefilter's names, read only when needed
}

// elementEnd returns where the HTML element, comment or CDATA section that
// starts with the '<' at p ends, as wp_html_split's regex cuts it; ok is
// false when that end is past a truncated content.
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

var stopBytes = map[byte]string{'[': "<[", ']': "<]"}

// find returns the first c outside HTML elements at or after i; ok
// is false when there is none, with end where the scan could tell (the end
// of the content, or of what is sure in a truncated one).
func (sc *shortcodeScan) find(i int, c byte) (at int, ok bool, end int) {
	// Without a c ahead there is nothing to find, whatever the elements
	// hold: most posts are read no further than this.
	if strings.IndexByte(sc.s[i:], c) < 0 {
		return 0, false, len(sc.s)
	}
	for {
		k := strings.IndexAny(sc.s[i:], stopBytes[c])
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

// matchAt tries get_shortcode_regex at the '[' at j.
func (sc *shortcodeScan) matchAt(j int) (end int, replacement string, m matchResult) {
	s := sc.s
	n := j + 1
	escaped := n < len(s) && s[n] == '['
	if escaped {
		n++
	}
	tag, m := sc.tagAt(n)
	if m != matched {
		return 0, "", m
	}
	// Attributes run to the first ']' outside elements; a '/' right
	// before it makes the shortcode self-closing.
	b, ok, _ := sc.find(n+len(tag), ']')
	if !ok {
		return 0, "", sc.unsureIf()
	}
	end = b + 1
	if closer := "[/" + tag + "]"; (s[b-1] != '/' || b-1 < n+len(tag)) && strings.Contains(sc.whole[end:], closer) {
		if c, ok, _ := sc.findString(end, closer); ok {
			end = c + len(closer)
		} else if sc.truncated {
			return 0, "", unsure
		}
	}
	closed := end < len(s) && s[end] == ']'
	if end == len(s) && sc.truncated {
		return 0, "", unsure
	}
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

// tagAt returns the registered tag that starts at n, in the order of the
// list, as PCRE tries the alternation.
func (sc *shortcodeScan) tagAt(n int) (string, matchResult) {
	s := sc.s
	for _, tag := range sc.tags {
		if !strings.HasPrefix(s[n:], tag) {
			if len(s)-n < len(tag) && strings.HasPrefix(tag, s[n:]) && sc.truncated {
				return "", unsure
			}
			continue
		}
		after := n + len(tag)
		if after == len(s) {
			return "", sc.unsureIf()
		}
		if isWordOrHyphen(s[after]) {
			continue
		}
		if isShortcodeNameByte(s[after]) {
			// Here the name the prefilter reads is longer than tag: the
			// tag counts only if it stands alone after a '[' elsewhere.
			if !sc.nameInContent(tag) {
				continue
			}
		}
		return tag, matched
	}
	return "", noMatch
}

// nameInContent is strip_shortcodes' prefilter for one tag: whether some
// '[' in the content is followed by exactly that name.
func (sc *shortcodeScan) nameInContent(tag string) bool {
	if sc.names == nil {
		sc.names = map[string]bool{}
		for rest := sc.whole; ; {
			k := strings.IndexByte(rest, '[')
			if k < 0 {
				break
			}
			rest = rest[k+1:]
			e := 0
			for e < len(rest) && isShortcodeNameByte(rest[e]) {
				e++
			}
			if e > 0 {
				sc.names[rest[:e]] = true
			}
		}
	}
	return sc.names[tag]
}

// findString returns the first sub at or after i whose '[' is outside HTML
// elements.
func (sc *shortcodeScan) findString(i int, sub string) (int, bool, int) {
	for {
		k := strings.Index(sc.s[i:], sub)
		if k < 0 {
			return 0, false, len(sc.s)
		}
		at, ok, end := sc.find(i, '[')
		if !ok {
			return 0, false, end
		}
		if at == i+k {
			return at, true, 0
		}
		if at > i+k { // that occurrence lies inside an element
			i = at
			continue
		}
		i = at + 1
	}
}
