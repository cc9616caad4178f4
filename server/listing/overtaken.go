package listing

import (
	"context"
	"errors"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// Queries overtaken by a change: a page's query or a search's scan that
// started reading before an event touched its listing may have read the
// database before the change. Its readers, who asked before the change,
// get its answer; a reader who comes after the event must not, or the
// change would show only at the next bound. So an event that drops a
// listing's pages (paced as they are, pace.go) also overtakes its
// queries in the air: their flights are forgotten, so later readers start
// a query of their own, and their answers are not kept, so the next
// reader after them reads again. A scan is not forgotten but followed:
// the posts of the events that came while it ran are rematched against
// its ranking before it lands (searchchange.go), at the cost of one
// query by primary key rather than a second scan.

// airQuery is a page's query in the air, from when it starts reading: the
// query readers of its page join, until an event overtakes it.
type airQuery struct {
	in blog.Listing // what events are scoped by, as a kept page's
}

// airScan is a search's scan in the air, from when it starts reading.
type airScan struct {
	q blog.Search
	// changes are the events' changes it is to follow before it is kept
	// (merged), nil for none; under Cache.mu.
	changes *blog.Change
}

// takeOff notes key's query, of listing in, as in the air from now, and
// returns now: what the query reads is at least this fresh.
func (c *Cache) takeOff(key flightKey, in blog.Listing) (*airQuery, time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.air == nil {
		c.air = map[flightKey]*airQuery{}
	}
	a := &airQuery{in: in}
	c.air[key] = a
	return a, c.now()
}

// landLocked takes a, key's query, out of the air and reports whether it
// may be kept: no event overtook it, nor did a later query of key take
// off. The caller holds mu.
func (c *Cache) landLocked(key flightKey, a *airQuery) bool {
	if c.air[key] != a {
		return false
	}
	delete(c.air, key)
	return true
}

// overtakeLocked overtakes the page queries in the air that ch touches,
// in the listings drop lets it drop. The caller holds mu.
func (c *Cache) overtakeLocked(ch blog.Change, drop func(listing string) bool) {
	for key, a := range c.air {
		if !ch.All && a.in != nil && !ch.TouchesPage(a.in, anyPost) {
			continue
		}
		if drop(key.listing) {
			delete(c.air, key)
			c.flights.Forget(key)
		}
	}
}

// errNoRematcher: the cache's Source rematches no search.
var errNoRematcher = errors.New("listing: the source rematches no search")

// anyPost is what a page not read yet may hold: any post.
func anyPost(uint64) bool { return true }

// scanTakesOff notes key's scan, of q, as in the air from now, and
// returns now.
func (c *Cache) scanTakesOff(key string, q blog.Search) (*airScan, time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := &airScan{q: q}
	if c.searches.air == nil {
		c.searches.air = map[string]*airScan{}
	}
	c.searches.air[key] = a
	return a, c.now()
}

// scanLanded takes a, key's scan, out of the air, unless it was already.
func (c *Cache) scanLanded(key string, a *airScan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.searches.air[key] == a {
		delete(c.searches.air, key)
	}
}

// keepScanned keeps k, the ranking key's scan a read, once it follows
// the changes that came while it ran, and returns it. A scan overtaken by
// a change it cannot follow so (followSearches), or whose rematch fails,
// is not kept: its readers get it, the next ones scan again.
func (c *Cache) keepScanned(ctx context.Context, key string, k *keptRanking, a *airScan) *keptRanking {
	for {
		c.mu.Lock()
		if c.searches.air[key] != a {
			c.mu.Unlock()
			return k
		}
		if a.changes == nil {
			delete(c.searches.air, key)
			k.read = c.now()
			c.searches.keepLocked(key, k, k.read)
			c.mu.Unlock()
			return k
		}
		ch := *a.changes
		a.changes = nil
		c.mu.Unlock()
		// Not kept yet, k is this scan's alone.
		ranking, err := c.rematchScanned(ctx, k, ch)
		if err != nil {
			c.logger.Warn("a search's scan not matched against a change that came while it ran; not kept", "err", err)
			c.scanLanded(key, a)
			return k
		}
		k.size += ranking.Bytes() - k.ranking.Bytes()
		k.ranking = ranking
	}
}

// rematchScanned is k's ranking patched to follow ch.
func (c *Cache) rematchScanned(ctx context.Context, k *keptRanking, ch blog.Change) (*blog.Ranking, error) {
	rm, ok := c.next.(Rematcher)
	if !ok { // followSearches overtakes rather than follows then
		return nil, errNoRematcher
	}
	found, err := rm.Rematch(ctx, ch.Posts, []blog.Search{k.q})
	if err != nil {
		return nil, err
	}
	return k.ranking.Patched(ch.Posts, found[0]), nil
}

// followInAirLocked makes the scans in the air follow ch before they
// land, when they can (follow), else overtakes them. The caller holds mu.
func (c *Cache) followInAirLocked(ch blog.Change, follow bool) {
	for key, a := range c.searches.air {
		if follow && a.q.Nothing() {
			continue // finds nothing, whatever changed
		}
		next := ch
		if a.changes != nil {
			next = a.changes.Merge(ch)
		}
		if follow && followable(next) {
			a.changes = &next
			continue
		}
		delete(c.searches.air, key)
		c.searches.scans.Forget(key)
	}
}
