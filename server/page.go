package main

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"html/template"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cbroglie/mustache"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/sync/semaphore"
)

// pageData is what templates/page.html is executed with.
type pageData struct {
	Title      string
	PostsStart int // the badge
	// Posts is load-more.mustache rendered with every post shown, without
	// separators: what a page.html of an operator written before Batches
	// existed prints.
	Posts       template.HTML
	Batches     []pageBatch // the same posts by batch, for the separators
	More        *moreLink   // nil when no post follows the ones shown
	BatchSize   int         // posts per click
	AssetsPath  string      // relative, so the page works under any base path
	TemplateURL string
	EndpointURL string
}

// pageBatch is one click's worth of posts on the page.
type pageBatch struct {
	From  int           // position of its first post, from 1; 1 has no separator
	Label string        // the separator's text, "Posts 3 to 4"
	Posts template.HTML // load-more.mustache rendered with its posts
}

// moreLink is the "more" control without JavaScript: a GET of the page
// with posts=Posts, landing at Fragment.
type moreLink struct {
	Posts    int
	Fragment string // the id of the first post it adds
	// NeedsScript is set when the page already shows -max-page-posts: only
	// the script, which asks the JSON endpoint, can show more.
	NeedsScript bool
	MaxPosts    int
}

// pageView is what one request shows.
type pageView struct {
	PostsStart int
	Posts      []postView
	Next       *postView // the post after the last one shown, if any
	AtCap      bool      // Posts holds -max-page-posts posts
	MaxPosts   int
}

// pageRenderer renders the page with the same mustache template the
// browser uses for the posts it loads, so both look alike.
//
// A page is a pure function of its pageView, and most views repeat: every
// visitor at the same posts_start sees the same posts until the cache's next
// refresh. Rendering 200 posts costs milliseconds, so rendered pages are
// kept by the exact bytes of what they show (see pageKey) and a repeat is a
// copy. The memo holds at most memoBytes, keys included, and is emptied
// when a page does not fit: a bound, not an eviction policy, since pages
// change with every refresh anyway.
//
// Renders are bounded too: see renderBudget.
type pageRenderer struct {
	page   *template.Template
	posts  *mustache.Template
	title  string
	batch  int
	format *postFormat // the site as last read, for the page's CSP

	seed      maphash.Seed
	mu        sync.Mutex
	memo      map[uint64]*renderedPage
	memoBytes int
	memoMax   int

	renders    *semaphore.Weighted // weighted by the posts rendered
	renderWait time.Duration       // how long a render waits for its weight

	zstd *zstd.Encoder // for pageRenderer.encode: its EncodeAll takes concurrent calls
}

// renderedPage is one page as written, under the key it was rendered for,
// and compressed as clients asked for it (pagecompress.go), guarded by the
// renderer's mu.
type renderedPage struct {
	key, html  []byte
	hash       uint64
	gzip, zstd []byte
}

// pageMemoBytes bounds the rendered pages kept: a page of 200 posts and its
// key are about 300 KB.
const pageMemoBytes = 8 << 20

// A render allocates up to about renderBytesPerPost for each post on the
// page (10.5 KB: 2.1 MB for 200 posts in BenchmarkLoadMorePage before the
// memo; the rest is room for long titles): the template's maps, each
// batch's HTML, the page, garbage once the page is written. Renders in flight hold at most renderBudget / renderBytesPerPost
// posts together, 1 024, or one page at -max-page-posts when an operator
// set it higher: five pages at the default cap at once, more than two cores
// render anyway. So what renders take at their peak is bounded by the
// configuration, whatever posts_start visitors bring and however many come
// at once; the others wait, and find the page in the memo when it was the
// same one.
const (
	renderBudget       = 16 << 20
	renderBytesPerPost = 16 << 10
)

// newPageRenderer parses the templates; title is the page title, plain text.
func newPageRenderer(cfg Config, title string, format *postFormat, templates fs.FS, postsTemplate string) (*pageRenderer, error) {
	posts, err := mustache.ParseString(postsTemplate)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", loadMoreTemplate, err)
	}
	page, err := template.ParseFS(templates, pageTemplate)
	if err != nil {
		return nil, err
	}
	slots := max(renderBudget/renderBytesPerPost, cfg.MaxPagePosts)
	enc, err := newPageZstd()
	if err != nil {
		return nil, err
	}
	return &pageRenderer{page: page, posts: posts, title: title, batch: cfg.Batch, format: format,
		seed: maphash.MakeSeed(), memo: map[uint64]*renderedPage{}, memoMax: pageMemoBytes,
		// A render that waited as long as a query may take is answered 503:
		// the server is saturated, and a proxy or the reader can retry.
		renders: semaphore.NewWeighted(int64(slots)), renderWait: cfg.QueryTime, zstd: enc}, nil
}

// render returns the page for v, from the memo when it rendered the same
// view before. The bytes returned are shared: callers only write them out.
// A render waits for its place among the renders in flight until ctx ends
// or renderWait passes; then the error wraps errBusy.
func (p *pageRenderer) render(ctx context.Context, v pageView) ([]byte, error) {
	page, err := p.renderPage(ctx, v)
	if err != nil {
		return nil, err
	}
	return page.html, nil
}

// renderPage is render, returning the page as kept, for encode.
func (p *pageRenderer) renderPage(ctx context.Context, v pageView) (*renderedPage, error) {
	var h maphash.Hash
	h.SetSeed(p.seed)
	writePageKey(&h, v)
	hash := h.Sum64()
	if page, ok := p.recall(hash, v); ok {
		return page, nil
	}
	weight := int64(max(len(v.Posts), 1))
	wait, cancel := context.WithTimeout(ctx, p.renderWait)
	err := p.renders.Acquire(wait, weight)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("page of %d posts: %w: %w", len(v.Posts), errBusy, err)
	}
	defer p.renders.Release(weight)
	// A render of the same view may have finished while this one waited.
	if page, ok := p.recall(hash, v); ok {
		return page, nil
	}
	var html bytes.Buffer
	if err := p.renderView(&html, v); err != nil {
		return nil, err
	}
	var key bytes.Buffer
	writePageKey(&key, v)
	page := &renderedPage{key: key.Bytes(), html: html.Bytes(), hash: hash}
	p.keep(hash, page)
	return page, nil
}

// recall returns the page kept for v, if any.
func (p *pageRenderer) recall(hash uint64, v pageView) (*renderedPage, bool) {
	p.mu.Lock()
	kept, ok := p.memo[hash]
	p.mu.Unlock()
	if !ok {
		return nil, false
	}
	same := keyComparer{key: kept.key, same: true}
	writePageKey(&same, v)
	if same.same && len(same.key) == 0 {
		return kept, true
	}
	return nil, false
}

func (p *pageRenderer) keep(hash uint64, page *renderedPage) {
	size := page.size()
	p.mu.Lock()
	defer p.mu.Unlock()
	if old, ok := p.memo[hash]; ok {
		p.memoBytes -= old.size()
		delete(p.memo, hash)
	}
	if p.memoBytes+size > p.memoMax {
		clear(p.memo)
		p.memoBytes = 0
	}
	if size <= p.memoMax {
		p.memo[hash] = page
		p.memoBytes += size
	}
}

// writePageKey writes every byte of v that the page shows: the badge, the
// cap, the post the "more" link lands on, and each post's JSON record,
// which holds all of its fields. Two views with the same key render the
// same page. It is written to a hash, to a keyComparer and, for a page
// rendered anew, to a buffer, so that a repeat allocates nothing.
func writePageKey(w io.Writer, v pageView) {
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
func (p *pageRenderer) renderView(w io.Writer, v pageView) error {
	// Batches start at 1, 1+batch, 1+2·batch…: the clicks of a visitor who
	// started at the first batch. The last one is short when the blog ends.
	var batches []pageBatch
	var all strings.Builder
	setSize := -1 // unknown while more posts may follow
	if v.Next == nil {
		setSize = len(v.Posts)
	}
	for from := 0; from < len(v.Posts) || from == 0; from += p.batch {
		to := min(from+p.batch, len(v.Posts))
		rendered, err := p.posts.Render(feedData(v.Posts[from:to], from+1, setSize))
		if err != nil {
			return fmt.Errorf("render %s: %w", loadMoreTemplate, err)
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
			Posts:       len(v.Posts) + p.batch,
			Fragment:    fmt.Sprintf("post-%d", v.Next.ID),
			NeedsScript: v.AtCap,
			MaxPosts:    v.MaxPosts,
		}
	}
	err := p.page.Execute(w, pageData{
		Title:       p.title,
		PostsStart:  v.PostsStart,
		Posts:       template.HTML(all.String()), // mustache escaped every field
		Batches:     batches,
		More:        more,
		BatchSize:   p.batch,
		AssetsPath:  "assets/",
		TemplateURL: "load-more.mustache",
		EndpointURL: "load-more.php",
	})
	if err != nil {
		return fmt.Errorf("render %s: %w", pageTemplate, err)
	}
	return nil
}

// feedData is views as the template reads them, each with its place in the
// feed (aria-posinset, from first), the feed's size (aria-setsize, -1
// while unknown) and whether its image loads eagerly, as load-more.js adds
// them to the posts it fetches.
func feedData(views []postView, first, setSize int) map[string]any {
	data := templateData(views)
	for i, item := range data["data"].([]map[string]any) {
		item["posinset"] = first + i
		item["setsize"] = setSize
		// The first card's image is the page's largest paint: fetched
		// first, never lazily, as WordPress marks its first content image.
		item["eager"] = first+i == 1
	}
	return data
}

// batchLabel is the separator's text for posts from to to (from 1), as
// load-more.js words it.
func batchLabel(from, to int) string {
	if from >= to {
		return fmt.Sprintf("Post %d", from)
	}
	return fmt.Sprintf("Posts %d to %d", from, to)
}
