package listing

import (
	"context"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// Bursts of change events: an event drops a listing it touches at once,
// unless it is part of a burst (blog.Change.Burst: an import, one request
// a post, thousands a second), which drops a listing at most once per
// freshness bound (TTL): the events between are left to the bound, as a
// page read before them is read again within TTL anyway. So a burst costs
// the database no more than polling does, and a stream of edits, each a
// request of its own, shows each edit at once. Kept searches follow a
// burst at most once per TTL too, the changes between merged and
// followed when it allows.

// pace is how events have dropped one listing (or the kept searches).
type pace struct {
	dropped time.Time // when an event last dropped it
}

// drop tells whether an event at now drops what p paces, within bound,
// and notes the drop.
func (p *pace) drop(now time.Time, burst bool, bound time.Duration) bool {
	if burst && now.Sub(p.dropped) < bound {
		return false
	}
	p.dropped = now
	return true
}

// eventMarks are the cache's paces, under Cache.mu.
type eventMarks struct {
	listings map[string]*pace // by the listing's Key
	searches pace
	// waiting is what kept searches follow once their pace allows; nil
	// when nothing waits.
	waiting *blog.Change
}

// dropLocked tells whether an event at now, in a burst or not, drops
// listing key's pages. The caller holds Cache.mu.
func (c *Cache) dropLocked(key string, now time.Time, burst bool) bool {
	if c.marks.listings == nil {
		c.marks.listings = map[string]*pace{}
	}
	p, ok := c.marks.listings[key]
	if !ok {
		p = &pace{}
		c.marks.listings[key] = p
	}
	return p.drop(now, burst, c.ttl)
}

// prunePacesLocked forgets the paces of listings no event dropped within
// TTL, once they outnumber the kept pages: those would drop at once
// anyway. The caller holds Cache.mu.
func (c *Cache) prunePacesLocked(now time.Time) {
	if len(c.marks.listings) <= 2*c.pages.Len()+64 {
		return
	}
	for key, p := range c.marks.listings {
		if now.Sub(p.dropped) >= c.ttl {
			delete(c.marks.listings, key)
		}
	}
}

// followSearchesPaced makes the kept searches follow ch now, or, within
// a burst, once their pace allows, merged with the changes after it.
func (c *Cache) followSearchesPaced(ctx context.Context, ch blog.Change) {
	if !ch.Searches && (ch.TermsOnly || len(ch.Posts) == 0) {
		return // nothing a search finds differently
	}
	now := c.now()
	c.mu.Lock()
	if w := c.marks.waiting; w != nil {
		merged := w.Merge(ch)
		c.marks.waiting = &merged
		c.mu.Unlock()
		return
	}
	if !c.marks.searches.drop(now, ch.Burst, c.ttl) {
		c.marks.waiting = &ch
		wait := c.marks.searches.dropped.Add(c.ttl).Sub(now)
		c.mu.Unlock()
		time.AfterFunc(wait, func() {
			if ctx.Err() == nil { // not once the server stops
				c.followWaiting(ctx)
			}
		})
		return
	}
	c.mu.Unlock()
	c.followSearches(ctx, ch)
}

// followWaiting makes the kept searches follow what waited for their pace.
func (c *Cache) followWaiting(ctx context.Context) {
	c.mu.Lock()
	w := c.marks.waiting
	c.marks.waiting = nil
	c.marks.searches.dropped = c.now()
	c.mu.Unlock()
	if w != nil {
		c.followSearches(ctx, *w)
	}
}
