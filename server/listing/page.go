package listing

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"html/template"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/cbroglie/mustache"
	"golang.org/x/sync/semaphore"

	"github.com/wploadmore/wploadmore/server/compress"
)

// The templates a Renderer reads: PageTemplate, an html/template executed
// with the page's fields, and PostsTemplate, the mustache template the
// browser also renders the posts it loads with.
const (
	PageTemplate  = "page.html"
	PostsTemplate = "load-more.mustache"
)

// ErrBusy is work the server refused because it is saturated: a page the
// renderer could not start on in time (it waited for a place among the
// renders in flight, see renderBudget, until its context ended or
// RenderWait passed), or a page not in memory whose query the Cache did
// not admit (see CacheLimits.MaxMisses). The reader can retry.
var ErrBusy = errors.New("server busy")

// pageData is what PageTemplate is executed with.
type pageData struct {
	Title      string // the document's title, plain text
	Heading    string // the page's heading: the site's title, or an archive's
	PostsStart int    // the badge
	// Posts is PostsTemplate rendered with every post shown, without
	// separators: what a page.html that predates Batches prints, so an
	// operator's own copy of it keeps working.
	Posts       template.HTML
	Batches     []pageBatch // the same posts by batch, for the separators
	More        *moreLink   // nil when no post follows the ones shown
	BatchSize   int         // posts per click
	AssetsPath  string      // relative, so the page works under any base path
	TemplateURL string
	EndpointURL string
	// ArchiveVars are the archive's query vars, which the "more" form
	// sends along with posts; none on the main listing.
	ArchiveVars []QueryVar
}

// pageBatch is one click's worth of posts on the page.
type pageBatch struct {
	From  int           // position of its first post, from 1; 1 has no separator
	Label string        // the separator's text, "Posts 3 to 4"
	Posts template.HTML // PostsTemplate rendered with its posts
}

// moreLink is the "more" control without JavaScript: a GET of the page
// with posts=Posts, landing at Fragment.
type moreLink struct {
	Posts    int
	Fragment string // the id of the first post it adds
	// NeedsScript is set when the page already shows the most posts a page
	// may: only the script, which asks the JSON endpoint, can show more.
	NeedsScript bool
	MaxPosts    int
}

// PageView is what one request shows.
type PageView struct {
	PostsStart int    // the visitor's posts_start, for the badge
	Posts      []Post // the posts shown, from the newest
	Next       *Post  // the post after the last one shown, if any
	AtCap      bool   // Posts holds MaxPosts posts
	MaxPosts   int    // the most posts a page may show
	// Archive is the archive the page lists, nil for the whole listing.
	Archive *PageArchive
}

// RenderSettings are what a Renderer is made with.
type RenderSettings struct {
	// Title is the page title, plain text.
	Title string
	// Batch is the posts one click adds: the page groups posts by it, and
	// its "more" link asks for that many more. At least 1 is used.
	Batch int
	// MaxPagePosts is the most posts a page shows; renders in flight hold
	// at least that many, so a page at the cap is never refused for size.
	MaxPagePosts int
	// RenderWait is how long a render waits for its place among the renders
	// in flight before it fails with ErrBusy; it must be positive, or no
	// page that is not kept can be rendered.
	RenderWait time.Duration
}

// Renderer renders the page with the same mustache template the browser
// uses for the posts it loads, so both look alike.
//
// A page is a pure function of its PageView, and most views repeat: every
// visitor at the same posts_start sees the same posts until the cache's next
// refresh. Rendering 200 posts costs milliseconds, so rendered pages are
// kept by the exact bytes of what they show (see writePageKey) and a repeat
// is a copy: see renderedPages.
//
// Renders are bounded too: see renderBudget. It is safe for concurrent use.
type Renderer struct {
	page  *template.Template
	posts *mustache.Template
	title string
	batch int

	seed     maphash.Seed
	rendered renderedPages

	renders    *semaphore.Weighted // weighted by the posts rendered
	renderWait time.Duration       // how long a render waits for its weight

	coder *compress.Coder // compresses the pages kept
}

// A render allocates up to about renderBytesPerPost for each post on the
// page (the template's maps, each batch's HTML, the page, garbage once it
// is written; docs/performance.md has the figures). Renders in flight hold
// at most renderBudget / renderBytesPerPost posts together, or one page at
// MaxPagePosts when that is higher, so what renders take at their peak is
// bounded by the configuration, whatever posts_start visitors bring and
// however many come at once; the others wait, and find the page among the
// rendered pages when it was the same one.
const (
	renderBudget       = 16 << 20
	renderBytesPerPost = 16 << 10
)

// NewRenderer parses PageTemplate from templates and postsTemplate, the
// text of PostsTemplate; coder compresses the pages. Its errors name the
// template that did not parse.
func NewRenderer(s RenderSettings, templates fs.FS, postsTemplate string, coder *compress.Coder) (*Renderer, error) {
	posts, err := mustache.ParseString(postsTemplate)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PostsTemplate, err)
	}
	page, err := template.ParseFS(templates, PageTemplate)
	if err != nil {
		return nil, err
	}
	slots := max(renderBudget/renderBytesPerPost, s.MaxPagePosts)
	// A batch under 1 would never move on through the posts.
	return &Renderer{page: page, posts: posts, title: s.Title, batch: max(s.Batch, 1),
		seed: maphash.MakeSeed(), rendered: newRenderedPages(renderedPagesBytes),
		renders: semaphore.NewWeighted(int64(slots)), renderWait: s.RenderWait, coder: coder}, nil
}

// Render returns the page for v, kept from an earlier render of the same
// view when there was one. The page is shared: callers only write it out.
// A render waits for its place among the renders in flight until ctx ends
// or RenderWait passes; then the error wraps ErrBusy.
func (r *Renderer) Render(ctx context.Context, v PageView) (*RenderedPage, error) {
	var h maphash.Hash
	h.SetSeed(r.seed)
	writePageKey(&h, v)
	hash := h.Sum64()
	if page, ok := r.rendered.recall(hash, v); ok {
		return page, nil
	}
	weight := int64(max(len(v.Posts), 1))
	wait, cancel := context.WithTimeout(ctx, r.renderWait)
	err := r.renders.Acquire(wait, weight)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("page of %d posts: %w: %w", len(v.Posts), ErrBusy, err)
	}
	defer r.renders.Release(weight)
	// A render of the same view may have finished while this one waited.
	if page, ok := r.rendered.recall(hash, v); ok {
		return page, nil
	}
	var html bytes.Buffer
	if err := r.renderView(&html, v); err != nil {
		return nil, err
	}
	var key bytes.Buffer
	writePageKey(&key, v)
	page := &RenderedPage{key: key.Bytes(), html: html.Bytes(), hash: hash}
	r.rendered.keep(page)
	return page, nil
}

// writePageKey writes every byte of v that the page shows: the badge, the
// cap, the post the "more" link lands on, and each post's JSON record,
// which holds all of its fields. Two views with the same key render the
// same page. It is written to a hash, to a keyComparer and, for a page
// rendered anew, to a buffer, so that a repeat allocates nothing.
func writePageKey(w io.Writer, v PageView) {
	var num [64]byte
	head := strconv.AppendInt(num[:0], int64(v.PostsStart), 10)
	head = append(head, ' ')
	head = strconv.AppendBool(head, v.AtCap)
	head = append(head, ' ')
	head = strconv.AppendInt(head, int64(v.MaxPosts), 10)
	head = append(head, ' ')
	if v.Next != nil {
		head = strconv.AppendUint(head, v.Next.ID, 10)
	}
	w.Write(head)
	if a := v.Archive; a != nil {
		// An archive's page differs from the listing's with the same
		// posts by its titles and its form's fields.
		for _, s := range []string{a.Titles.Heading, a.Titles.Title} {
			w.Write([]byte{1})
			io.WriteString(w, s)
		}
		for _, qv := range a.Vars {
			w.Write([]byte{2})
			io.WriteString(w, qv.Name+"="+qv.Value)
		}
	}
	for i := range v.Posts {
		w.Write([]byte{0})
		w.Write(v.Posts[i].Record)
	}
}

// keyComparer consumes a kept key as the same bytes are written to it; it
// is the same key when every write matched and nothing is left.
type keyComparer struct {
	key  []byte
	same bool
}

func (c *keyComparer) Write(b []byte) (int, error) {
	if !c.same || !bytes.HasPrefix(c.key, b) {
		c.same = false
		return len(b), nil
	}
	c.key = c.key[len(b):]
	return len(b), nil
}

// renderView renders the page for v.
func (r *Renderer) renderView(w io.Writer, v PageView) error {
	// Batches start at 1, 1+batch, 1+2·batch…: the clicks of a visitor who
	// started at the first batch. The last one is short when the blog ends.
	var batches []pageBatch
	var all strings.Builder
	setSize := -1 // unknown while more posts may follow
	if v.Next == nil {
		setSize = len(v.Posts)
	}
	for from := 0; from < len(v.Posts) || from == 0; from += r.batch {
		to := min(from+r.batch, len(v.Posts))
		rendered, err := r.posts.Render(feedData(v.Posts[from:to], from+1, setSize))
		if err != nil {
			return fmt.Errorf("render %s: %w", PostsTemplate, err)
		}
		all.WriteString(rendered)
		batches = append(batches, pageBatch{
			From:  from + 1,
			Label: batchLabel(from+1, to),
			Posts: template.HTML(rendered), // mustache escaped every field
		})
	}
	var more *moreLink
	if v.Next != nil {
		more = &moreLink{
			Posts:       len(v.Posts) + r.batch,
			Fragment:    fmt.Sprintf("post-%d", v.Next.ID),
			NeedsScript: v.AtCap,
			MaxPosts:    v.MaxPosts,
		}
	}
	data := pageData{
		Title:       r.title,
		Heading:     r.title,
		PostsStart:  v.PostsStart,
		Posts:       template.HTML(all.String()), // mustache escaped every field
		Batches:     batches,
		More:        more,
		BatchSize:   r.batch,
		AssetsPath:  "assets/",
		TemplateURL: "load-more.mustache",
		EndpointURL: "load-more.php",
	}
	if a := v.Archive; a != nil {
		data.Title, data.Heading, data.ArchiveVars = a.Titles.Title, a.Titles.Heading, a.Vars
	}
	if err := r.page.Execute(w, data); err != nil {
		return fmt.Errorf("render %s: %w", PageTemplate, err)
	}
	return nil
}
