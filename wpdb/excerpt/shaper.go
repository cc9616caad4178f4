package excerpt

import (
	"html"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/microcosm-cc/bluemonday"
)

// excerptRunes is how many characters of text a post's content keeps, as the
// PHP original did (it cut bytes; we cut characters so UTF-8 stays whole).
const excerptRunes = 200

// WindowBytes is how many bytes of a post the walk reads first, the HTML
// tokenizer's own read size; it reads four times more each time that is
// not enough. A start of a post at least this long decides the excerpt of
// every post whose first window holds its 200 characters: a block-editor
// post's opening blocks and first paragraphs, a classic post's first
// paragraphs. A caller that reads a bounded start should read at least
// this much.
const WindowBytes = 4 << 10

// Shaper turns a post's HTML content into the plain-text excerpt the JSON
// endpoint returns. It is safe for concurrent use.
//
// The excerpt is what this pipeline gives for the whole post: strip the
// shortcodes given to New; make the UTF-8 valid; space every block-level
// tag; remove all markup with bluemonday's strict policy; unescape the text;
// collapse white space, U+00A0 included; keep 200 characters and append
// "...". Excerpt gives the same without running it over the whole post: it
// walks the HTML with bluemonday's tokenizer and sanitizes only the prefix
// that must hold those 200 characters, so its cost grows with the markup
// before them, not with the post. docs/design.md gives each step's reason.
type Shaper struct {
	policy *bluemonday.Policy
	// shortcodes are stripped, as WordPress's excerpts strip its registered
	// ones, before the pipeline runs: see shortcodeScan. closers are their
	// "[/tag]".
	shortcodes, closers []string
	// window is how many bytes of a post the walk first reads: WindowBytes.
	window int
	// bufs recycles the prefix buffers; they reach a few KB per call.
	bufs sync.Pool
}

// New returns a Shaper built on bluemonday's strict policy that first
// strips the shortcodes whose tags are listed, as WordPress's
// strip_shortcodes strips the registered ones; nil strips none. The tags
// are tried in the order given, as WordPress tries them in the order they
// were registered, and should each pass [ValidateShortcode].
func New(shortcodes []string) *Shaper {
	return &Shaper{
		policy:     bluemonday.StrictPolicy(),
		shortcodes: slices.Clone(shortcodes),
		closers:    closingTags(shortcodes),
		window:     WindowBytes,
		bufs:       sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }},
	}
}

// Excerpt returns the text of content, the whole of a post, with markup
// removed, entities decoded, white space collapsed, cut to its first 200
// characters, and "..." appended. Empty content gives "...".
func (sh *Shaper) Excerpt(content string) string {
	excerpt, _ := sh.excerpt(content, true)
	return excerpt
}

// FromStart returns the Excerpt of a post of which only start, a prefix
// of its bytes, was read. decided is false when the rest of the post could
// change the excerpt: start holds too little visible text, or it ends
// inside a token the walk needs whole, or a shortcode opened in it may
// close further on (see shortcodeScan's startOnly); the caller must then
// read the whole post and call Excerpt. When decided is true the excerpt
// is exactly Excerpt of the whole post, whatever its rest holds.
func (sh *Shaper) FromStart(start string) (excerpt string, decided bool) {
	return sh.excerpt(start, false)
}

// excerpt is Excerpt when whole is true, and FromStart when it is not.
func (sh *Shaper) excerpt(content string, whole bool) (string, bool) {
	bp := sh.bufs.Get().(*[]byte)
	var prefix []byte
	var done bool
	if len(sh.shortcodes) > 0 {
		prefix, done = sh.strippedPrefix(bp, content, whole)
	} else {
		if !whole {
			// A character the read split would read as invalid UTF-8.
			content = trimSplitRune(content)
		}
		prefix, _, done = visiblePrefix((*bp)[:0], content, excerptRunes, sh.window, !whole)
	}
	var text string
	if done {
		text = html.UnescapeString(sh.policy.Sanitize(string(prefix)))
	}
	// Very large prefixes (a post made of one huge script) are not kept.
	if cap(prefix) <= 64<<10 {
		*bp = prefix[:0]
		sh.bufs.Put(bp)
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
func (sh *Shaper) strippedPrefix(bp *[]byte, content string, whole bool) (_ []byte, done bool) {
	sc := newShortcodeScan(content, sh.shortcodes, sh.closers)
	if !whole {
		sc = newStartScan(content, sh.shortcodes, sh.closers)
	}
	for limit := max(sh.window, 1); ; limit *= 4 {
		stripped, complete := sc.strip(min(limit, len(content)))
		// A stripped cut is a prefix of the stripped post: the walk reads
		// its end as it reads the end of a window, as not the end.
		prefix, _, done := visiblePrefix((*bp)[:0], stripped, excerptRunes, sh.window, !complete)
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
