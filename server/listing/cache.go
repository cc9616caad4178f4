package listing

import (
	"cmp"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/flight"
	"github.com/wploadmore/wploadmore/internal/lru"
)

// Freshness: an answer reflects the database as it was at most ttl ago: a
// page is served until its query's start plus ttl, never after. Past half
// of ttl, the first reader of a head starts one background refresh and is
// served the head it has; after a quiet spell the next reader waits, for a
// query its concurrent readers share (a flight). Errors are never kept.
//
// Admission: the blog's head is never refused nor its refresh cancelled;
// every other query (archives' heads included) runs only while fewer than
// MaxMisses do, below the store's pool, else fails with ErrBusy, so a flood
// of deep ranges cannot make visitors wait. A query nobody waits for is
// cancelled or never started. The head is the newest Depth posts, one
// query; offset and keyset pages inside it are cut from it, deeper ones
// kept by exact range. docs/design.md, "The posts cache", says why.
//
// Archives through a flood: the head of an archive that readers came back
// to (read before, within recentHeadFor) may also run in ReservedHeads
// slots, which a first read takes only when free and for at most a
// fifth of the time (firstHeadRest), so a flood of distinct archives
// keeps them mostly free.
// When its query is refused or fails anyway, the head it replaces
// is served stale, up to staleFactor times ttl old, counted and marked
// (see ServedAge), rather than a 503.

// Cache answers from memory what its Source answered less than TTL ago,
// so warm requests never wait on the database, and keeps posts formatted
// and encoded once per query, not once per answer. It holds at most
// MaxEntries pages and MaxBytes of posts (see postBytes), dropping the
// least recently used; posts hold the excerpt, never the content. See
// above for freshness, admission and the head. It is safe for concurrent
// use.
type Cache struct {
	next     Source
	format   *Format
	logger   *slog.Logger
	observer CacheObserver
	ttl      time.Duration
	stretch  Stretch
	depth    int
	now      func() time.Time // the clock freshness is measured by

	misses   admission // the queries for pages other than the head, and searches' scans
	reserved admission // archive heads readers came back to, when misses are full
	mu       sync.Mutex
	firstOK  time.Time                            // under mu: when a first read may next take a reserved slot
	heads    recentHeads                          // under mu: when each archive's head was last read
	pages    *lru.Cache[pageRange, *cachedPage]   // under mu
	flights  flight.Group[flightKey, *cachedPage] // the queries in the air
	air      map[flightKey]*airQuery              // under mu: the queries readers join, once reading (overtaken.go)
	searches *rankings                            // see search.go
	marks    eventMarks                           // under mu: how change events paced (pace.go)
	marked   time.Time                            // under mu: when change events last marked pages
}

// pageRange names a page as blog.Page does, its listing by Key: the
// posts after post lastPost (0 for none), or after offset ones when it is
// 0 or its row is gone, limit of them.
type pageRange struct {
	listing       string // the listing's Key; "" for the whole blog
	lastPost      uint64
	offset, limit int
}

// cachedPage is immutable once stored, but for refreshing (under mu):
// readers keep using a page that a refresh has replaced.
type cachedPage struct {
	key     pageRange
	in      blog.Listing // what change events are scoped by (invalidate.go)
	posts   []Post
	ids     map[uint64]int // the head only: the position of each post
	fetched time.Time      // when its query started
	size    int            // postBytes of posts, plus ids

	refreshing bool // the head's background refresh was started
	short      bool // kept for ttl even while stretched: an event may have missed it (stretch.go)
}

// CacheObserver hears how each read of the cache went, for metrics. A hit
// is a page answered from memory without waiting; a miss waited for a
// query, its own or one shared with concurrent readers; a refresh is a
// background query of the head started after half of TTL; a refusal is a
// query not started because MaxMisses were in flight (the miss is counted
// too).
type CacheObserver interface {
	CacheHit()
	CacheMiss()
	CacheRefresh()
	CacheRefused()
	// CacheStale hears an archive's head served past TTL, as its query
	// was refused or failed.
	CacheStale()
}

// CacheLimits sizes the cache.
type CacheLimits struct {
	TTL        time.Duration // how old an answer may be; must be positive
	Depth      int           // posts in the head
	MaxEntries int           // pages kept
	MaxBytes   int           // what the kept pages' posts may take, by postBytes
	// MaxMisses is the most queries for pages other than the head that
	// run at once; more are refused with ErrBusy. Keep it below the
	// store's connection pool, so that the head's refresh always finds a
	// connection free (the server takes half of it). At least 1 is used.
	MaxMisses int
	// ReservedHeads are further queries for the heads of archives that
	// readers came back to, when MaxMisses are in flight. They too must
	// leave the store's pool a connection free.
	ReservedHeads int
	// SearchBytes is what the searches' kept rankings may take (see
	// search.go).
	SearchBytes int
	// SearchTTL is how long a search's ranking is kept and paged through
	// (0: TTL): a scan of every post's text costs seconds on a large
	// site, and a reader clicks for the next page minutes later.
	SearchTTL time.Duration
	// Stretch lengthens TTL while change events flow (stretch.go).
	Stretch Stretch
}

// NewCache wraps next in a cache. limits.TTL must be positive: with no
// freshness to keep, Direct reads each page. Background refreshes that
// fail are logged to logger; the readers that then have to wait get the
// error themselves. observer hears each read.
func NewCache(next Source, format *Format, limits CacheLimits, logger *slog.Logger, observer CacheObserver) *Cache {
	return newCache(next, format, limits, logger, observer, time.Now)
}

// newCache is NewCache measuring freshness by the clock now.
func newCache(next Source, format *Format, limits CacheLimits, logger *slog.Logger, observer CacheObserver, now func() time.Time) *Cache {
	// A page larger than MaxBytes on its own is served once and not kept.
	return &Cache{
		next:     next,
		format:   format,
		logger:   logger,
		observer: observer,
		ttl:      limits.TTL,
		stretch:  limits.Stretch,
		depth:    max(limits.Depth, 1),
		now:      now,
		misses:   make(admission, max(limits.MaxMisses, 1)),
		reserved: make(admission, max(limits.ReservedHeads, 0)),
		heads:    newRecentHeads(max(limits.MaxEntries, 1)),
		pages:    lru.New[pageRange, *cachedPage](limits.MaxBytes, max(limits.MaxEntries, 1)),
		searches: newRankings(limits.SearchBytes, cmp.Or(limits.SearchTTL, limits.TTL)),
	}
}

// Posts returns page p from its listing's head or a cached page, or asks
// next; a search's pages are cut from its kept ranking (see search.go).
// Waiting for a query that another request started ends when ctx does.
// The posts are the cache's own, shared by every reader: read them, never
// change them (appending to the slice is safe: it copies).
// It returns next's errors, which are not remembered, ctx's cause, and an
// error wrapping ErrBusy when the query was not admitted.
func (c *Cache) Posts(ctx context.Context, p blog.Page) ([]Post, error) {
	return blog.ReadPage(ctx, p, cachePages{c})
}

// posts returns page p of in from its head or a cached page, or asks next.
func (c *Cache) posts(ctx context.Context, p blog.Page, in listed) ([]Post, error) {
	key := pageRange{listing: p.Key(), lastPost: p.LastPost, offset: p.Offset, limit: p.Limit}
	if key.offset < 0 || key.limit <= 0 {
		// Nothing worth keeping; next says what is wrong.
		c.observer.CacheMiss()
		posts, err := c.fetch(ctx, key, in)
		if err != nil {
			return nil, err
		}
		return c.format.Posts(posts)
	}
	headKey := pageRange{listing: key.listing, limit: c.depth}
	waited := false // for the head, before finding the page is not in it
	if key.lastPost > 0 || key.offset+key.limit <= c.depth || c.holdsWholeListing(headKey) {
		head, hit, err := c.get(ctx, headKey, in)
		if err != nil {
			c.observer.CacheMiss()
			return nil, err
		}
		if posts, ok := head.cut(key, c.depth); ok {
			c.count(hit)
			return posts, nil
		}
		// A keyset page whose last post is deeper than the head, or gone.
		waited = !hit
	}
	page, hit, err := c.get(ctx, key, in)
	c.count(hit && !waited && err == nil)
	if err != nil {
		return nil, err
	}
	return shared(page.posts), nil
}

// shared returns posts, kept by the cache, to a reader as they are, not
// copied: a flood's readers would copy up to a page of posts each. The
// posts are only read after they are formatted (see Cache.Posts); the
// slice ends at its length, so that a reader's append copies it rather
// than writing over the posts kept after it.
func shared(posts []Post) []Post { return posts[:len(posts):len(posts)] }

// headKey names the head: the newest depth posts.
func (c *Cache) headKey() pageRange { return pageRange{limit: c.depth} }

// isHead tells whether key names a head: the listing's or an archive's.
func (c *Cache) isHead(key pageRange) bool {
	return key.lastPost == 0 && key.offset == 0 && key.limit == c.depth
}

// count tells the observer of one read: a hit when nothing waited.
func (c *Cache) count(hit bool) {
	if hit {
		c.observer.CacheHit()
	} else {
		c.observer.CacheMiss()
	}
}

// holdsWholeListing tells whether the head, fresh or not, was the whole
// listing: then it answers every page, however deep.
func (c *Cache) holdsWholeListing(headKey pageRange) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	head, ok := c.pages.Peek(headKey)
	return ok && len(head.posts) < c.depth
}

// cut returns the page key names out of the head when the head holds all
// of it: its posts, or the end of the listing.
func (head *cachedPage) cut(key pageRange, depth int) ([]Post, bool) {
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
	return shared(head.posts[from:min(from+key.limit, len(head.posts))]), true
}

// get returns key's page when it is fresh (hit), starting a head's
// background refresh once half of ttl has passed, or else waits for its
// query, shared with concurrent callers (see flight.go); in is the listing
// key names. An archive's head whose query is refused or fails is served
// stale while it is under staleFactor times ttl old. It returns ctx's
// cause when ctx ends first, an error wrapping ErrBusy when the query was
// not admitted, and next's errors.
func (c *Cache) get(ctx context.Context, key pageRange, in listed) (p *cachedPage, hit bool, err error) {
	now := c.now()
	c.mu.Lock()
	archiveHead := key.listing != "" && c.isHead(key)
	cameBack := archiveHead && c.heads.read(key.listing, now)
	head := headRead(archiveHead, cameBack)
	var stale *cachedPage
	if kept, ok := c.pages.Peek(key); ok {
		age := now.Sub(kept.fetched)
		bound := c.bound(kept)
		if c.fresh(kept, in, age, bound) {
			c.pages.Get(key) // now the most recently used
			// A search's head is cut from its ranking, which a refresh
			// would not renew.
			refresh := !kept.refreshing && age >= bound/2 && c.isHead(key) && in.ranked.IsZero()
			kept.refreshing = kept.refreshing || refresh
			c.mu.Unlock()
			if refresh {
				c.refresh(ctx, key, in, kept, head)
			}
			return kept, true, nil
		}
		if archiveHead && age < staleFactor*c.ttl {
			stale = kept
		}
	}
	c.mu.Unlock()
	p, err = c.flights.Do(ctx, key.flight(in), c.query(key, in, head, false))
	if err != nil && stale != nil && ctx.Err() == nil {
		c.observer.CacheStale()
		noteStale(ctx, stale.fetched)
		return stale, true, nil
	}
	return p, false, err
}

// fresh tells whether kept, age old, may be served to a reader of in: a
// page cut from a search's ranking for as long as that ranking is (rank
// hands out only fresh ones), as an archive's pages are for their head;
// any other page while under bound.
func (c *Cache) fresh(kept *cachedPage, in listed, age, bound time.Duration) bool {
	if !in.ranked.IsZero() {
		return kept.fetched.Equal(in.ranked)
	}
	return age < bound
}

// bound is kept's freshness bound now: the TTL, stretched while change
// events flow unless kept is short. The caller holds mu.
func (c *Cache) bound(kept *cachedPage) time.Duration {
	if kept.short {
		return c.ttl
	}
	return c.stretch.bound(c.ttl)
}

// load queries next for key, in listing in, and keeps
// the answer.
func (c *Cache) load(ctx context.Context, key pageRange, in listed) (*cachedPage, error) {
	air, fetched := c.takeOff(key.flight(in), in.listing) // before the query: what it reads is at least this fresh
	if !in.ranked.IsZero() {
		fetched = in.ranked // the page is its ranking's: see fresh
	}
	formatted, err := c.fetchFormatted(ctx, key, in)
	if err != nil {
		c.mu.Lock()
		c.landLocked(key.flight(in), air)
		c.mu.Unlock()
		return nil, err
	}
	p := &cachedPage{key: key, in: in.listing, posts: formatted, fetched: fetched}
	for i := range p.posts {
		p.size += postBytes(&p.posts[i])
	}
	if c.isHead(key) {
		p.ids = make(map[uint64]int, len(p.posts))
		for i, post := range p.posts {
			p.ids[post.ID] = i
		}
		p.size += len(p.posts) * idBytes
	}
	c.mu.Lock()
	// An event that marked pages while the query ran, or shortly before,
	// may name a change it did not read (stretch.go); one that overtook
	// it, a change its next reader must see (overtaken.go).
	p.short = missed(c.marked, fetched, c.ttl)
	if c.landLocked(key.flight(in), air) {
		c.pages.Add(key, p, p.size)
	}
	c.mu.Unlock()
	return p, nil
}

// fetchFormatted asks next for the page key names in listing in, and
// formats it.
func (c *Cache) fetchFormatted(ctx context.Context, key pageRange, in listed) ([]Post, error) {
	posts, err := c.fetch(ctx, key, in)
	if err != nil {
		return nil, err
	}
	return c.format.posts(posts, c.isHead(key))
}

// fetch asks next for the page key names in listing in.
func (c *Cache) fetch(ctx context.Context, key pageRange, in listed) ([]blog.Post, error) {
	return c.next.Posts(ctx, blog.Page{In: in.listing, LastPost: key.lastPost, Offset: key.offset, Limit: key.limit})
}

// postBytes is what a kept post costs: its strings and record, and the
// struct that points at them. It is what the byte budget counts.
func postBytes(v *Post) int {
	const structBytes = 160 // the Post value with its headers
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
