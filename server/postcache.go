package main

import (
	"container/list"
	"context"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/wploadmore/wploadmore/wpdb"
	"golang.org/x/sync/singleflight"
)

// postCache answers from memory what the database answered less than ttl
// ago (-cache-ttl, 1 s by default), so warm requests never wait on it. It
// keeps posts as views, formatted and encoded once per query, not once per
// answer.
//
// Freshness: every answer reflects the database as it was at most ttl ago.
// A page is kept with the time its query started; it is served until that
// time plus ttl, never after. Once half of ttl has passed, the first request
// to read it starts one refresh in the background and is served the page it
// has, so under steady traffic readers never wait for the database; only
// after a quiet spell longer than ttl does the next reader wait, for a query
// that every concurrent reader of the same page shares (singleflight).
// Errors are never kept. Sessions are never cached: they are per visitor.
//
// The head: the newest depth posts (-cache-depth) are one page, one query,
// one snapshot. Any offset page inside it, and any keyset page (lastPost)
// whose last post is in it, is cut from it: that is where nearly all
// traffic reads, since every visitor starts at the top and each click moves
// only batch posts on. Pages cut from one snapshot never repeat or skip a
// post among themselves.
//
// Anything deeper is kept under its exact range, as a page of its own, with
// the same ttl. The cache holds at most maxEntries pages and maxBytes of
// posts (counted from their strings, see postBytes), dropping the least
// recently used. Views hold the excerpt, never the content, which can be
// hundreds of KB.
//
// It is safe for concurrent use.
type postCache struct {
	next       postSource
	format     *postFormat
	logger     *slog.Logger
	observer   cacheObserver
	ttl        time.Duration
	depth      int
	maxEntries int
	maxBytes   int
	now        func() time.Time // time.Now; tests move it

	mu      sync.Mutex
	entries map[pageRange]*list.Element // of *cachedPage
	lru     list.List                   // front: most recently used
	bytes   int                         // of the pages in lru
	flight  singleflight.Group
}

// pageRange names a page: the posts after post lastPost (0 for none), or
// after offset ones when it is 0 or its row is gone, limit of them.
type pageRange struct {
	lastPost      uint64
	offset, limit int
}

// cachedPage is immutable once stored, but for refreshing (under mu):
// readers keep using a page that a refresh has replaced.
type cachedPage struct {
	key     pageRange
	posts   []postView
	ids     map[uint64]int // the head only: the position of each post
	fetched time.Time      // when its query started
	size    int            // postBytes of posts, plus ids

	refreshing bool // a background refresh was started for this page
}

// cacheObserver hears how each read of the cache went, for metrics. A hit
// is a page answered from memory without waiting; a miss waited for a
// query, its own or one shared with concurrent readers; a refresh is a
// background query started after half of ttl.
type cacheObserver interface {
	cacheHit()
	cacheMiss()
	cacheRefresh()
}

// cacheLimits sizes the cache; see Config.
type cacheLimits struct {
	TTL        time.Duration
	Depth      int
	MaxEntries int
	MaxBytes   int
}

// newPostCache wraps next in a cache. limits must be positive; the caller
// (run) does not wrap at all when -cache-ttl is 0. Background refreshes
// that fail are logged to logger; the readers that then have to wait get
// the error themselves. observer hears each read.
func newPostCache(next postSource, format *postFormat, limits cacheLimits, logger *slog.Logger, observer cacheObserver) *postCache {
	return &postCache{
		next:       next,
		format:     format,
		logger:     logger,
		observer:   observer,
		ttl:        limits.TTL,
		depth:      max(limits.Depth, 1),
		maxEntries: max(limits.MaxEntries, 1),
		maxBytes:   limits.MaxBytes,
		now:        time.Now,
		entries:    map[pageRange]*list.Element{},
	}
}

// Views returns limit posts after offset from the head or a cached page,
// or asks next. Waiting for a query that another request started ends when
// ctx does. It returns next's errors, which are not remembered.
func (c *postCache) Views(ctx context.Context, offset, limit int) ([]postView, error) {
	return c.page(ctx, pageRange{offset: offset, limit: limit})
}

// ViewsAfter is Views for keyset pages: cut from the head when lastID is in
// it, else kept under (lastID, offset, limit), the offset too, since it
// decides when lastID's row is gone.
func (c *postCache) ViewsAfter(ctx context.Context, lastID uint64, offset, limit int) ([]postView, error) {
	return c.page(ctx, pageRange{lastPost: lastID, offset: offset, limit: limit})
}

func (c *postCache) page(ctx context.Context, key pageRange) ([]postView, error) {
	if key.offset < 0 || key.limit <= 0 {
		// Nothing worth keeping; next says what is wrong.
		c.observer.cacheMiss()
		posts, err := c.fetch(ctx, key)
		if err != nil {
			return nil, err
		}
		return newPostViews(posts, c.format)
	}
	headKey := pageRange{limit: c.depth}
	waited := false // for the head, before finding the page is not in it
	if key.lastPost > 0 || key.offset+key.limit <= c.depth || c.holdsWholeListing(headKey) {
		head, hit, err := c.get(ctx, headKey)
		if err != nil {
			c.observer.cacheMiss()
			return nil, err
		}
		if posts, ok := head.cut(key, c.depth); ok {
			c.count(hit)
			return posts, nil
		}
		// A keyset page whose last post is deeper than the head, or gone.
		waited = !hit
	}
	p, hit, err := c.get(ctx, key)
	c.count(hit && !waited && err == nil)
	if err != nil {
		return nil, err
	}
	return slices.Clone(p.posts), nil
}

// count tells the observer of one read: a hit when nothing waited.
func (c *postCache) count(hit bool) {
	if hit {
		c.observer.cacheHit()
	} else {
		c.observer.cacheMiss()
	}
}

// holdsWholeListing tells whether the head, fresh or not, was the whole
// listing: then it answers every page, however deep.
func (c *postCache) holdsWholeListing(headKey pageRange) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[headKey]
	return ok && len(el.Value.(*cachedPage).posts) < c.depth
}

// cut returns the page key names out of the head when the head holds all
// of it: its posts, or the end of the listing.
func (head *cachedPage) cut(key pageRange, depth int) ([]postView, bool) {
	from := key.offset
	if key.lastPost > 0 {
		at, ok := head.ids[key.lastPost]
		if !ok {
			return nil, false
		}
		from = at + 1
	}
	whole := len(head.posts) < depth // the listing ends inside the head
	if from+key.limit > len(head.posts) && !whole {
		return nil, false
	}
	from = min(from, len(head.posts))
	// Each caller gets its own slice: the cached one must not change.
	return slices.Clone(head.posts[from:min(from+key.limit, len(head.posts))]), true
}

// get returns key's page when it is fresh (hit), starting its background
// refresh once half of ttl has passed, or else loads it, sharing the query
// with concurrent callers.
func (c *postCache) get(ctx context.Context, key pageRange) (p *cachedPage, hit bool, err error) {
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		p := el.Value.(*cachedPage)
		age := c.now().Sub(p.fetched)
		if age < c.ttl {
			c.lru.MoveToFront(el)
			refresh := !p.refreshing && age >= c.ttl/2
			p.refreshing = p.refreshing || refresh
			c.mu.Unlock()
			if refresh {
				c.observer.cacheRefresh()
				go c.refresh(context.WithoutCancel(ctx), key)
			}
			return p, true, nil
		}
	}
	c.mu.Unlock()
	// The shared query must not fail for everyone because the request that
	// happened to start it went away: it runs without that request's
	// cancellation, bounded by the store's own query timeout.
	ch := c.flight.DoChan(flightKey(key), func() (any, error) {
		return c.load(context.WithoutCancel(ctx), key)
	})
	select {
	case res := <-ch:
		if res.Err != nil {
			return nil, false, res.Err
		}
		return res.Val.(*cachedPage), false, nil
	case <-ctx.Done():
		return nil, false, context.Cause(ctx)
	}
}

// refresh reloads key's page ahead of its expiry. On failure the page it
// replaces stays until it expires, with no second attempt: the readers
// after that wait for a query and get its error themselves.
func (c *postCache) refresh(ctx context.Context, key pageRange) {
	_, err, _ := c.flight.Do(flightKey(key), func() (any, error) {
		return c.load(ctx, key)
	})
	if err != nil {
		c.logger.WarnContext(ctx, "post cache: background refresh failed; the cached page is served until it expires",
			"offset", key.offset, "limit", key.limit, "last_post", key.lastPost, "err", err)
	}
}

// load queries next for key and keeps the answer.
func (c *postCache) load(ctx context.Context, key pageRange) (*cachedPage, error) {
	fetched := c.now() // before the query: what it reads is at least this fresh
	posts, err := c.fetch(ctx, key)
	if err != nil {
		return nil, err
	}
	views, err := newPostViews(posts, c.format)
	if err != nil {
		return nil, err
	}
	p := &cachedPage{key: key, posts: views, fetched: fetched}
	for i := range p.posts {
		p.size += viewBytes(&p.posts[i])
	}
	if key == (pageRange{limit: c.depth}) {
		p.ids = make(map[uint64]int, len(p.posts))
		for i, post := range p.posts {
			p.ids[post.ID] = i
		}
		p.size += len(p.posts) * idBytes
	}
	c.put(p)
	return p, nil
}

// fetch asks next for the page key names.
func (c *postCache) fetch(ctx context.Context, key pageRange) ([]wpdb.Post, error) {
	if key.lastPost > 0 {
		return c.next.PostsAfter(ctx, key.lastPost, key.offset, key.limit)
	}
	return c.next.Posts(ctx, key.offset, key.limit)
}

// put keeps p, replacing the page of the same key, and drops the least
// recently used pages beyond the limits. A page larger than maxBytes on its
// own is served once and not kept.
func (c *postCache) put(p *cachedPage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[p.key]; ok {
		c.bytes -= el.Value.(*cachedPage).size
		c.lru.Remove(el)
		delete(c.entries, p.key)
	}
	if p.size > c.maxBytes {
		return
	}
	c.entries[p.key] = c.lru.PushFront(p)
	c.bytes += p.size
	for c.lru.Len() > c.maxEntries || c.bytes > c.maxBytes {
		oldest := c.lru.Back()
		old := oldest.Value.(*cachedPage)
		c.lru.Remove(oldest)
		delete(c.entries, old.key)
		c.bytes -= old.size
	}
}

// viewBytes is what a kept view costs: its strings and record, and the
// struct that points at them. It is what the byte budget counts.
func viewBytes(v *postView) int {
	const structBytes = 160 // the postView value with its headers
	n := structBytes + len(v.Title) + len(v.Excerpt) + len(v.Name) + len(v.Date) +
		len(v.TitleText) + len(v.LocalDate) + len(v.DateTime) + len(v.Link) + len(v.Record)
	if img := v.Image; img != nil {
		const imageBytes = 112 // the media.Image value with its headers
		n += imageBytes + len(img.Src) + len(img.Srcset) + len(img.Sizes) + len(img.Alt)
	}
	return n
}

// idBytes is what one entry of the head's position map costs, roughly.
const idBytes = 48

func flightKey(key pageRange) string {
	return strconv.FormatUint(key.lastPost, 10) + ":" + strconv.Itoa(key.offset) + ":" + strconv.Itoa(key.limit)
}
