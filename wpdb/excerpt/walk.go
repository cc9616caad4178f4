package excerpt

import (
	"slices"
	"unicode"
	"unicode/utf8"

	nethtml "golang.org/x/net/html"
)

// visiblePrefix appends to dst a prefix of content, made valid UTF-8 and
// with a space before each block-level tag, whose visible text (what
// bluemonday's strict policy keeps) holds at least need non-space
// characters, or all of content. It cuts only after a whole token or inside
// a text token where nothing is split (see cutPoint), and returns how many
// bytes of content it read. It reads window bytes, then four times more,
// and so on, so a classic-editor post is not read to its end as one text
// token. With partial, content is only the start of what is shaped, and
// done is false when the prefix could depend on what follows.
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
		vis      visibility
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
			if vis.hidden() {
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
			vis.tag(tt, name)
		default: // comments, doctypes
			consumed += len(z.Raw())
			dst = append(dst, z.Raw()...)
		}
	}
}

// visibility is the state of bluemonday's sanitize loop (sanitize.go,
// v1.0.27) for a policy that allows no element, such as StrictPolicy: it
// drops a text token while skipElementContent is set or
// mostRecentlyStartedToken is script or style.
type visibility struct {
	skipping      bool   // skipElementContent
	skipCount     int64  // skippingElementsCount: a stray end tag takes it below 0
	mostRecentRaw string // mostRecentlyStartedToken when "script" or "style", else ""
}

// hidden reports whether bluemonday drops the text token that comes next.
func (v *visibility) hidden() bool { return v.skipping || v.mostRecentRaw != "" }

// tag updates v for a tag token of type tt named name. As in bluemonday's
// loop: script and style "continue" before setOfElementsToSkipContent is
// looked up, so skipsContent leaves them out; a self-closing tag changes
// nothing, so <script/> hides nothing though the tokenizer reads what
// follows it as raw text.
func (v *visibility) tag(tt nethtml.TokenType, name []byte) {
	switch tt {
	case nethtml.StartTagToken:
		v.mostRecentRaw = scriptOrStyle(name)
		if skipsContent(name) {
			v.skipping = true
			v.skipCount++
		}
	case nethtml.EndTagToken:
		if string(name) == v.mostRecentRaw {
			v.mostRecentRaw = ""
		}
		if skipsContent(name) {
			v.skipCount--
			if v.skipCount == 0 {
				v.skipping = false
			}
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
