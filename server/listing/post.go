package listing

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/microcosm-cc/bluemonday"
	"github.com/wploadmore/wploadmore/blog"
)

// Post is one post as readers get it: the JSON endpoint encodes it as one
// record, and the mustache template renders it, on the page and in the
// browser, under the same names.
//
// The first five fields are the PHP script's record. Their names, order and
// values are the drop-in promise to old clients and never change; fields
// added later go after them.
type Post struct {
	ID      uint64 `json:"ID"`
	Title   string `json:"post_title"`
	Excerpt string `json:"post_content"` // the PHP script's 200-character text
	Name    string `json:"post_name"`
	Date    string `json:"post_date"` // as stored

	// TitleText is post_title as readers read it: plain text, never markup.
	TitleText string `json:"title"`
	// LocalDate is post_date in the site's date format ("June 30, 2024").
	LocalDate string `json:"date"`
	// DateTime is post_date for <time datetime>: "2024-06-30T18:00:00",
	// the site's local time as stored, with no zone.
	DateTime string `json:"datetime"`
	// Protected is set for a post with a password: its post_content is the
	// empty excerpt ("..."), since nothing of its content is read, and the
	// page shows WordPress's own message in place of the excerpt.
	Protected bool `json:"protected"`
	// Link is the post's permalink, as get_permalink() builds it; left out
	// when the site's address is unknown (a posts table with no options).
	Link string `json:"link,omitempty"`
	// Image is the featured image as wp_get_attachment_image() renders it
	// at the site's image size; left out when the post has none, and for a
	// protected post, whose image WordPress's own themes hide behind the
	// password.
	Image *Image `json:"image,omitempty"`

	// Record is the post as one JSON record, made with the post: a cached
	// post is encoded once, not once per answer. See WriteJSON.
	Record []byte `json:"-"`
}

// Format turns stored posts into Posts the way the site shows them, by the
// site's settings as last set. Each post is formatted once for as long as
// neither it nor the site's format changes, and kept (see formattedPosts):
// a head read again every second formats only the posts that changed. It
// is safe for concurrent use.
type Format struct {
	site atomic.Pointer[Site]
	text htmlText
	kept *formattedPosts

	mu       sync.Mutex // serializes Set
	versions uint64     // under mu: the latest site's format version
}

// NewFormat returns a Format that shows posts by site until Set changes it.
func NewFormat(site Site) *Format {
	f := &Format{text: newHTMLText(), kept: newFormattedPosts(formattedPostsBytes)}
	f.Set(site)
	return f
}

// Set makes later posts follow site: a changed permalink structure or
// uploads address shows in every page read after it.
func (f *Format) Set(site Site) {
	site.pageKey = site.makePageKey()
	f.mu.Lock()
	defer f.mu.Unlock()
	if old := f.site.Load(); old != nil && sameFormat(old, &site) {
		site.formatVersion = old.formatVersion
	} else {
		f.versions++
		site.formatVersion = f.versions
	}
	f.site.Store(&site)
}

// Site is the site as last set, which the posts formatted now follow.
func (f *Format) Site() *Site { return f.site.Load() }

// Posts formats posts, each with its JSON record, or recalls the ones
// formatted before from the same post under the same site format. Its
// error, from the JSON encoder, names the post it could not encode.
func (f *Format) Posts(posts []blog.Post) ([]Post, error) { return f.posts(posts, true) }

// posts is Posts, keeping the posts it formats only when keep is set: a
// Cache keeps its heads' posts, which it reads again every ttl, and not
// those of the deep pages a flood asks for once, which would push them out.
func (f *Format) posts(posts []blog.Post, keep bool) ([]Post, error) {
	site := f.site.Load()
	views := make([]Post, len(posts))
	missing := f.kept.recall(posts, site.formatVersion, views)
	if len(missing) == 0 {
		return views, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Not HTML-escaped: the JSON holds "a & b" as the notes promise, and
	// it is served as application/json with nosniff, never as markup.
	enc.SetEscapeHTML(false)
	for _, i := range missing {
		p := &posts[i]
		v := &views[i]
		*v = Post{ID: p.ID, Title: p.Title, Excerpt: p.Excerpt, Name: p.Name, Date: p.Date,
			TitleText: f.text.plain(p.Title), Protected: p.Protected}
		if p.Protected {
			// WordPress's protected_title_format, as the_title() shows it.
			v.TitleText = site.words.protectedTitle(v.TitleText)
		}
		v.LocalDate, v.DateTime = site.date(p.Date)
		v.Link, v.Image = site.card(p)
		buf.Reset()
		if err := enc.Encode(v); err != nil {
			return nil, fmt.Errorf("listing: encode post %d: %w", p.ID, err)
		}
		v.Record = bytes.Clone(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
	f.kept.formats.Add(int64(len(missing)))
	if keep {
		f.kept.keep(posts, missing, site.formatVersion, views)
	}
	return views, nil
}

// WriteJSON writes posts as the JSON array the endpoint answers: the bytes
// encoding/json gives for the slice, joined from each post's Record, piece
// by piece, so that a hash reads the body without its being built. It
// returns w's first error.
func WriteJSON(w io.Writer, posts []Post) error {
	_, err := w.Write([]byte{'['})
	for i := range posts {
		if err != nil {
			return err
		}
		if i > 0 {
			if _, err = w.Write([]byte{','}); err != nil {
				return err
			}
		}
		_, err = w.Write(posts[i].Record)
	}
	if err == nil {
		_, err = w.Write([]byte("]\n"))
	}
	return err
}

// AppendJSON appends to dst what WriteJSON writes, so that a caller can
// build answers in a buffer it reuses.
func AppendJSON(dst []byte, posts []Post) []byte {
	dst = append(dst, '[')
	for i := range posts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, posts[i].Record...)
	}
	return append(dst, "]\n"...)
}

// JSONSize is the length of what WriteJSON writes for posts, known before
// it is written.
func JSONSize(posts []Post) int {
	n := len("[]\n") + max(len(posts)-1, 0) // and a comma between two posts
	for i := range posts {
		n += len(posts[i].Record)
	}
	return n
}

// Source is where the listing's posts come from; a *wpdb.Store is one.
type Source interface {
	// Posts returns page p of its listing, each post with its Excerpt, as
	// wpdb.Store.Posts pages them: a search's page cut from its ranking,
	// or, when it has none, after its scan.
	Posts(ctx context.Context, p blog.Page) ([]blog.Post, error)
	// Rank reads a search's ranking in one scan, which the cache keeps
	// and cuts its pages from.
	Rank(ctx context.Context, q blog.Search) (*blog.Ranking, error)
	// StickyPosts returns the published posts of the listed types among
	// ids, newest first.
	StickyPosts(ctx context.Context, ids []uint64) ([]blog.Post, error)
}

// Direct reads the listing without a cache: each page is read from its
// Source and formatted for the request that asked.
type Direct struct {
	source Source
	format *Format
}

// NewDirect reads pages from source, formatted by format.
func NewDirect(source Source, format *Format) Direct {
	return Direct{source: source, format: format}
}

// Posts returns page p. It returns the source's errors as they are.
func (d Direct) Posts(ctx context.Context, p blog.Page) ([]Post, error) {
	posts, err := d.source.Posts(ctx, p)
	if err != nil {
		return nil, err
	}
	return d.format.Posts(posts)
}

// StickyPosts returns the sticky posts among ids, formatted. It returns
// the source's errors as they are.
func (d Direct) StickyPosts(ctx context.Context, ids []uint64) ([]Post, error) {
	posts, err := d.source.StickyPosts(ctx, ids)
	if err != nil {
		return nil, err
	}
	return d.format.Posts(posts)
}

// htmlText reads HTML as text: WordPress titles and the blog name are
// HTML (kses stores "&" as "&amp;", authors may add tags), and readers
// must see "Fish & Chips", not the markup. See the notes' "Content shaping".
type htmlText struct{ strict *bluemonday.Policy }

func newHTMLText() htmlText { return htmlText{strict: bluemonday.StrictPolicy()} }

// plain drops tags, comments and the content of script and style, decodes
// character references, and trims the spaces removed tags leave at the
// ends. The result is text for JSON and for {{ }}, which escapes it again.
func (h htmlText) plain(s string) string {
	if !strings.ContainsAny(s, htmlSyntax) {
		// Nothing to drop or decode: the sanitizer would escape the text
		// and the decoding undo it. Most names and titles are so, and an
		// archive's heading is made for each request, refused or not.
		return strings.TrimSpace(s)
	}
	return strings.TrimSpace(html.UnescapeString(h.strict.Sanitize(s)))
}

// htmlSyntax are the bytes that make text more than text to an HTML
// tokenizer: a tag or comment, a character reference, a carriage return
// (made a newline) and NUL.
const htmlSyntax = "<&\r\x00"
