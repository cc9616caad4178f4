package main

import (
	"container/list"
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/wploadmore/wploadmore/wpdb"
	"golang.org/x/sync/singleflight"
)

// postCache is the optional micro-cache (-cache-ttl): it serves a range of
// posts (offset, limit, or lastPost, offset, limit) it fetched less than ttl ago from memory, so a burst
// of visitors asking for the same page costs one query. Posts change rarely
// and a reader seeing a new post ttl late is harmless; sessions are never
// cached, they are per visitor.
//
// It keeps each post without its Content: the answers show the Excerpt,
// and the stored HTML, up to hundreds of KB a post, would multiply the
// cache's memory for nothing.
//
// It holds at most maxEntries ranges, dropping the least recently used;
// errors are never cached; concurrent misses for one range share a single
// query. It is safe for concurrent use.
type postCache struct {
	next       postSource
	ttl        time.Duration
	maxEntries int
	now        func() time.Time // time.Now; tests move it

	mu      sync.Mutex
	entries map[pageRange]*list.Element // of *cachedPage
	lru     list.List                   // front: most recently used
	flight  singleflight.Group
}

// pageRange names a page: the posts after post lastPost (0 for none), or
// after offset ones when it is 0 or its row is gone, limit of them.
type pageRange struct {
	lastPost      uint64
	offset, limit int
}

type cachedPage struct {
	key     pageRange
	posts   []wpdb.Post
	expires time.Time
}

// newPostCache wraps next in a cache keeping up to maxEntries post ranges
// for ttl each. ttl must be positive and maxEntries at least 1; the caller
// (run, from -cache-ttl and -cache-entries) does not wrap at all when the
// cache is off.
func newPostCache(next postSource, ttl time.Duration, maxEntries int) *postCache {
	return &postCache{
		next:       next,
		ttl:        ttl,
		maxEntries: max(maxEntries, 1),
		now:        time.Now,
		entries:    map[pageRange]*list.Element{},
	}
}

// Posts returns the posts next returned for (offset, limit) less than ttl
// ago, or asks next. Waiting for a query another request started ends
// when ctx does. It returns next's errors, which are not remembered.
func (c *postCache) Posts(ctx context.Context, offset, limit int) ([]wpdb.Post, error) {
	return c.page(ctx, pageRange{offset: offset, limit: limit})
}

// PostsAfter is Posts for keyset pages, kept under (lastID, offset, limit):
// the offset too, since it decides when lastID's row is gone. Visitors who
// click "more" on the same page send the same last post, so a burst of them
// still costs one query, now that the widget sends lastPost on every click.
func (c *postCache) PostsAfter(ctx context.Context, lastID uint64, offset, limit int) ([]wpdb.Post, error) {
	return c.page(ctx, pageRange{lastPost: lastID, offset: offset, limit: limit})
}

// fetch asks next for the page key names.
func (c *postCache) fetch(ctx context.Context, key pageRange) ([]wpdb.Post, error) {
	if key.lastPost > 0 {
		return c.next.PostsAfter(ctx, key.lastPost, key.offset, key.limit)
	}
	return c.next.Posts(ctx, key.offset, key.limit)
}

func (c *postCache) page(ctx context.Context, key pageRange) ([]wpdb.Post, error) {
	if key.offset < 0 || key.limit <= 0 {
		return c.fetch(ctx, key) // nothing worth keeping; next says what is wrong
	}
	if posts, ok := c.get(key); ok {
		return posts, nil
	}
	// The shared query must not fail for everyone because the request that
	// happened to start it went away: it runs without that request's
	// cancellation, bounded by the store's own query timeout.
	shared := context.WithoutCancel(ctx)
	flight := strconv.FormatUint(key.lastPost, 10) + ":" + strconv.Itoa(key.offset) + ":" + strconv.Itoa(key.limit)
	ch := c.flight.DoChan(flight, func() (any, error) {
		if posts, ok := c.get(key); ok {
			return posts, nil // filled between our miss and this call
		}
		posts, err := c.fetch(shared, key)
		if err != nil {
			return nil, err
		}
		return c.put(key, posts), nil
	})
	select {
	case res := <-ch:
		if res.Err != nil {
			return nil, res.Err
		}
		// Each caller gets its own slice: the cached one must not change.
		return slices.Clone(res.Val.([]wpdb.Post)), nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// get returns a copy of key's posts when they are fresh, and drops them
// when they are not.
func (c *postCache) get(key pageRange) ([]wpdb.Post, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	page := el.Value.(*cachedPage)
	if !c.now().Before(page.expires) {
		c.lru.Remove(el)
		delete(c.entries, key)
		return nil, false
	}
	c.lru.MoveToFront(el)
	return slices.Clone(page.posts), true
}

// put keeps posts under key and returns the kept copy.
func (c *postCache) put(key pageRange, posts []wpdb.Post) []wpdb.Post {
	kept := slices.Clone(posts)
	for i := range kept {
		kept[i].Content = ""
	}
	page := &cachedPage{key: key, posts: kept, expires: c.now().Add(c.ttl)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		el.Value = page
		c.lru.MoveToFront(el)
		return kept
	}
	c.entries[key] = c.lru.PushFront(page)
	for c.lru.Len() > c.maxEntries {
		oldest := c.lru.Back()
		c.lru.Remove(oldest)
		delete(c.entries, oldest.Value.(*cachedPage).key)
	}
	return kept
}

// Ping asks next: readiness is about the database, not the cache.
func (c *postCache) Ping(ctx context.Context) error { return c.next.Ping(ctx) }
