package wpdb

import (
	"html"
	"io"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/microcosm-cc/bluemonday"
	nethtml "golang.org/x/net/html"
)

// excerptRunes is how many characters of text a post's content keeps, as the
// PHP original did (it cut bytes; we cut characters so UTF-8 stays whole).
const excerptRunes = 200

// Excerpter turns a post's HTML content into the plain-text excerpt the
// JSON endpoint returns. It is safe for concurrent use.
//
// The excerpt is, by definition, what this pipeline gives for the whole post:
//
//  0. the shortcodes given to NewExcerpter are stripped, as WordPress's
//     strip_shortcodes strips the registered ones before it shapes an
//     excerpt (see shortcodeScan);
//  1. invalid UTF-8 is replaced with U+FFFD (strings.ToValidUTF8), so no
//     database byte can make the JSON invalid;
//  2. a space is put before every block-level tag (p, li, br, td, h1…), so
//     "<p>a</p><p>b</p>" reads "a b" while "<b>un</b>usual" stays "unusual"
//     and "<a>link</a>." stays "link." (bluemonday's AddSpaceWhenStrippingTag
//     would space every tag and break both);
//  3. bluemonday's strict policy removes all markup, comments (Gutenberg's
//     "<!-- wp:paragraph -->") and the content of script, style, title,
//     iframe, noscript, object and the like;
//  4. html.UnescapeString turns bluemonday's escaped text back into plain
//     text ("a & b", not "a &amp; b"); the template escapes it again;
//  5. runs of white space are collapsed to one space and the ends trimmed,
//     as WordPress's excerpts do, so the 200 characters carry text. White
//     space is unicode.IsSpace, which includes U+00A0: editors leave
//     "&nbsp;" in empty paragraphs and after sentences, and on a one-line
//     excerpt there is no line break for it to prevent, only characters to
//     waste and invisible "spaces" that trimming would otherwise miss;
//  6. the text is cut to its first 200 characters (runes, never bytes) and
//     "..." is always appended.
//
// Excerpt does not run that pipeline over the whole post: its cost would grow
// with the post. It walks the HTML with the same tokenizer bluemonday uses,
// mirroring bluemonday's rules for what is visible, and stops once the text
// seen must already hold 200 characters after collapsing. Only that prefix is
// sanitized. The fuzz test FuzzExcerpt checks the result is identical, and
// TestExcerptDependencyVersions fails when bluemonday or x/net is upgraded.
// Its cost grows with the markup before those 200 characters, not with the
// post: only a post that opens with a huge script, style or tag costs in
// proportion to it, as that token must be read to its end.
type Excerpter struct {
	policy *bluemonday.Policy
	// shortcodes are stripped, as WordPress's excerpts strip its registered
	// ones, before the pipeline runs: see shortcodeScan. closers are their
	// "[/tag]".
	shortcodes, closers []string
	// window is how many bytes of a post the walk first reads; it reads four
	// times more each time that is not enough. Tests make it tiny.
	window int
	// bufs recycles the prefix buffers; they reach a few KB per call.
	bufs sync.Pool
}

// NewExcerpter returns an Excerpter built on bluemonday's strict policy
// that first strips the shortcodes whose tags are listed, as WordPress's
// strip_shortcodes strips the registered ones; nil strips none. The tags
// are tried in the order given, as WordPress tries them in the order they
// were registered, and should each pass [ValidateShortcode].
func NewExcerpter(shortcodes []string) *Excerpter {
	return &Excerpter{
		policy:     bluemonday.StrictPolicy(),
		shortcodes: slices.Clone(shortcodes),
		closers:    closingTags(shortcodes),
		// The tokenizer reads 4 KB at a time anyway.
		window: 4 << 10,
		bufs:   sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }},
	}
}

// Excerpt returns the text of content with markup removed, entities decoded,
// white space collapsed, cut to its first 200 characters, and "..." appended.
// Empty content gives "...".
func (e *Excerpter) Excerpt(content string) string {
	excerpt, _ := e.excerpt(content, true)
	return excerpt
}

// excerptStart returns Excerpt of a post of which only start, a prefix of
// its bytes, was read: the Store reads a bounded prefix of post_content.
// decided is false when the rest of the post could change the excerpt:
// start holds too little visible text, or it ends inside a token the walk
// needs whole, or a shortcode opened in it may close further on (see
// shortcodeScan's startOnly). When decided is true the excerpt is exactly
// Excerpt of the whole post, whatever its rest holds.
func (e *Excerpter) excerptStart(start string) (excerpt string, decided bool) {
	return e.excerpt(start, false)
}

// excerpt is Excerpt when whole is true, and excerptStart when it is not.
func (e *Excerpter) excerpt(content string, whole bool) (string, bool) {
	bp := e.bufs.Get().(*[]byte)
	var prefix []byte
	var done bool
	if len(e.shortcodes) > 0 {
		prefix, done = e.strippedPrefix(bp, content, whole)
	} else {
		if !whole {
			// A character the read split would read as invalid UTF-8.
			content = trimSplitRune(content)
		}
		prefix, _, done = visiblePrefix((*bp)[:0], content, excerptRunes, e.window, !whole)
	}
	var text string
	if done {
		text = html.UnescapeString(e.policy.Sanitize(string(prefix)))
	}
	// Very large prefixes (a post made of one huge script) are not kept.
	if cap(prefix) <= 64<<10 {
		*bp = prefix[:0]
		e.bufs.Put(bp)
	}
	if !done {
		return "", false
	}
	return collapseAndCut(text, excerptRunes), true
}

// strippedPrefix is visiblePrefix of content with its shortcodes stripped.
// Like the walk, it strips only the start of the post, four times longer
// each time the walk needs more, so its cost grows with the start of the
// post and not with the post. A post without '[' near its start is not
// copied; one whose start holds a shortcode pays once for a search of the
// whole post for its closing tag (see shortcodeScan). When content is not
// the whole post, done is false when its end is reached undecided.
func (e *Excerpter) strippedPrefix(bp *[]byte, content string, whole bool) (_ []byte, done bool) {
	sc := newShortcodeScan(content, e.shortcodes, e.closers)
	if !whole {
		sc = newStartScan(content, e.shortcodes, e.closers)
	}
	for limit := max(e.window, 1); ; limit *= 4 {
		stripped, complete := sc.strip(min(limit, len(content)))
		// A stripped cut is a prefix of the stripped post: the walk reads
		// its end as it reads the end of a window, as not the end.
		prefix, _, done := visiblePrefix((*bp)[:0], stripped, excerptRunes, e.window, !complete)
		// A whole post is complete once limit reaches its end, and the
		// walk then always decides.
		if done || limit >= len(content) {
			return prefix, done
		}
	}
}

// collapseAndCut collapses white-space runs in text to one space, trims the
// ends, keeps the first n runes and appends "...".
func collapseAndCut(text string, n int) string {
	var b strings.Builder
	b.Grow(min(len(text), n*utf8.UTFMax) + len("..."))
	kept, space := 0, false
	for _, r := range text {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && kept > 0 {
			if kept == n {
				break
			}
			b.WriteByte(' ')
			kept++
		}
		space = false
		if kept == n {
			break
		}
		b.WriteRune(r)
		kept++
	}
	b.WriteString("...")
	return b.String()
}

// visiblePrefix appends to dst a prefix of content, made valid UTF-8 and with
// a space before each block-level tag, whose visible text holds at least
// need non-space characters, or all of content when it holds fewer. Visible
// means what bluemonday's strict policy keeps; the prefix is cut only after a
// whole token, or inside a visible text token where no character reference
// or character is split (see cutPoint). It also returns how many bytes of
// content it read.
//
// It reads at most window bytes, then four times more, and so on, so that a
// classic-editor post (no tags, paragraphs split by blank lines) is not read
// to its end as one text token.
//
// When partial is true, content is only the start of what is shaped (a
// stripped cut of a post, which must end on a whole character): done is
// then false when the prefix could depend on what follows.
func visiblePrefix(dst []byte, content string, need, window int, partial bool) (_ []byte, read int, done bool) {
	base := len(dst)
	window = max(window, 1)
	for {
		dst, read, done = walkPrefix(dst[:base], content, need, window, read, partial)
		if done || partial && window >= len(content) {
			return dst, read, done
		}
		window *= 4
	}
}

// walkPrefix is visiblePrefix reading at most about limit bytes of content.
// It reports false when those were not enough to decide; read accumulates
// the bytes read over the attempts.
func walkPrefix(dst []byte, content string, need, limit, read int, partial bool) (_ []byte, _ int, done bool) {
	r := validUTF8Reader{s: content, limit: limit}
	z := nethtml.NewTokenizer(&r)
	var (
		seen     int // non-space visible characters so far, a lower bound
		consumed int // bytes of the tokens so far, out of r.out
		// The three below are the state of bluemonday's sanitize loop
		// (sanitize.go, v1.0.27) for a policy that allows no element, such
		// as StrictPolicy: it drops a text token while skipElementContent is
		// set or mostRecentlyStartedToken is script or style.
		skipping      bool   // skipElementContent
		skipCount     int64  // skippingElementsCount: a stray end tag takes it below 0
		mostRecentRaw string // mostRecentlyStartedToken when "script" or "style", else ""
	)
	for {
		switch tt := z.Next(); tt {
		case nethtml.ErrorToken:
			// EOF: the reader and the tokenizer have no other error without
			// SetMaxBuf; bluemonday stops at the same token. Only the true
			// end of content is the end.
			return dst, read + r.pos, r.pos == len(content) && !partial
		case nethtml.TextToken:
			// Copied before Text, which decodes in the tokenizer's buffer.
			raw := z.Raw()
			consumed += len(raw)
			start := len(dst)
			dst = append(dst, raw...)
			if skipping || mostRecentRaw != "" {
				continue
			}
			n := countNonSpace(z.Text())
			if seen+n < need {
				seen += n
				continue
			}
			// A cut before white space holds even if the limit truncated
			// this token; keeping the whole token needs the whole token.
			if j, ok := cutPoint(dst[start:], need-seen); ok {
				return dst[:start+j], read + r.pos, true
			}
			// A text token ends at a "<" the tokenizer has read past, or at
			// the end of what the reader gave.
			truncated := consumed == r.out && (r.pos < len(content) || partial)
			return dst, read + r.pos, !truncated
		case nethtml.StartTagToken, nethtml.EndTagToken, nethtml.SelfClosingTagToken:
			start := len(dst)
			dst = append(dst, z.Raw()...)
			consumed += len(dst) - start
			name, _ := z.TagName()
			dst = spaceBlock(dst, start, name)
			// As in bluemonday's loop: script and style "continue" before
			// setOfElementsToSkipContent is looked up, so skipsContent leaves
			// them out; a self-closing tag changes nothing, so <script/> hides
			// nothing though the tokenizer reads what follows it as raw text.
			switch tt {
			case nethtml.StartTagToken:
				mostRecentRaw = scriptOrStyle(name)
				if skipsContent(name) {
					skipping = true
					skipCount++
				}
			case nethtml.EndTagToken:
				if string(name) == mostRecentRaw {
					mostRecentRaw = ""
				}
				if skipsContent(name) {
					skipCount--
					if skipCount == 0 {
						skipping = false
					}
				}
			}
		default: // comments, doctypes
			consumed += len(z.Raw())
			dst = append(dst, z.Raw()...)
		}
	}
}

// scriptOrStyle returns name if it is "script" or "style", else "": the
// constants keep mostRecentRaw from allocating on every start tag.
func scriptOrStyle(name []byte) string {
	switch string(name) {
	case "script":
		return "script"
	case "style":
		return "style"
	}
	return ""
}

// spaceBlock inserts a space at dst[at] when name is a block-level element.
func spaceBlock(dst []byte, at int, name []byte) []byte {
	if isBlockElement(name) {
		return slices.Insert(dst, at, ' ')
	}
	return dst
}

// isBlockElement reports whether the element named name (lower case) breaks
// the text flow, so that removing it must leave a space between words.
func isBlockElement(name []byte) bool {
	switch string(name) {
	case "address", "article", "aside", "blockquote", "br", "caption",
		"dd", "details", "dialog", "div", "dl", "dt", "fieldset",
		"figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4",
		"h5", "h6", "header", "hgroup", "hr", "legend", "li", "main", "nav",
		"ol", "p", "pre", "section", "summary", "table", "tbody", "td",
		"tfoot", "th", "thead", "tr", "ul":
		return true
	}
	return false
}

// skipsContent reports whether name is in the skip set bluemonday's strict
// policy counts with skippingElementsCount: the list in policy.go's
// addDefaultSkipElementContent (v1.0.27) less script and style, which the
// sanitize loop hides through mostRecentlyStartedToken instead.
func skipsContent(name []byte) bool {
	switch string(name) {
	case "frame", "frameset", "iframe", "noembed", "noframes", "noscript",
		"nostyle", "object", "title":
		return true
	}
	return false
}

// countNonSpace counts the runes of text that are not white space.
func countNonSpace(text []byte) int {
	n := 0
	for len(text) > 0 {
		c := text[0]
		if c < utf8.RuneSelf {
			if !isASCIISpace(c) && c != '\v' {
				n++
			}
			text = text[1:]
			continue
		}
		r, size := utf8.DecodeRune(text)
		if !unicode.IsSpace(r) {
			n++
		}
		text = text[size:]
	}
	return n
}

// cutPoint returns an offset in raw (the raw bytes of a text token) before
// which at least need non-space characters are certain to be decoded. It
// counts nothing for what may be a character reference ("&", "#", "x",
// letters and digits, ";"), as that may decode to white space or to nothing
// of its own, and never cuts inside one or inside a UTF-8 sequence: the text
// of raw[:j] is then a prefix of the text of raw (even "&amp" at the end
// decodes as it does before any non-alphanumeric byte).
func cutPoint(raw []byte, need int) (int, bool) {
	n := 0
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '&':
			i++
			if i < len(raw) && raw[i] == '#' {
				i++
				if i < len(raw) && (raw[i] == 'x' || raw[i] == 'X') {
					i++
				}
			}
			for i < len(raw) && isAlnum(raw[i]) {
				i++
			}
			if i < len(raw) && raw[i] == ';' {
				i++
			}
			continue
		case c < utf8.RuneSelf:
			if !isASCIISpace(c) && c != '\v' {
				n++
			}
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if !unicode.IsSpace(r) {
				n++
			}
			i += size
		}
		if n >= need {
			return i, true
		}
	}
	return 0, false
}

// isASCIISpace reports whether c is white space to HTML (and to Go).
func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

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
