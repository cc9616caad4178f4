package listing

import (
	"context"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// Kept searches follow change events without a rescan: the posts an event
// names are read again by primary key, each kept search's condition and
// rank evaluated on those rows alone (Rematcher), and each ranking that
// finds them differently than before is patched in place, with a new
// stamp, so the pages cut from it are read again. The others, and their
// pages, stay; a scan in the air follows them before it lands
// (overtaken.go). An event naming more posts than maxRematchPosts (an
// import in one request) drops every kept ranking instead: their next
// readers scan again.
const (
	maxRematchPosts    = 256 // wpdb.MaxRematchPosts
	maxRematchSearches = 32  // wpdb.MaxRematchSearches
)

// Rematcher tells which of the posts ids each search of qs finds now, and
// with what rank and date: a *wpdb.Store (Store.Rematch), as the cache's
// Source when it has one.
type Rematcher interface {
	Rematch(ctx context.Context, ids []uint64, qs []blog.Search) ([][]blog.RankEntry, error)
}

// followSearches makes the kept rankings follow ch (see above). A
// rematch that fails is logged and leaves those rankings as they are,
// bounded by SearchTTL as without events.
func (c *Cache) followSearches(ctx context.Context, ch blog.Change) {
	rm, ok := c.next.(Rematcher)
	switch {
	case !ch.Searches && (ch.TermsOnly || len(ch.Posts) == 0):
		return // an option, a term or an author finds no post differently
	case !ok || !followable(ch):
		c.dropRankings()
		return
	}
	type kept struct {
		key string
		k   *keptRanking
	}
	var all []kept
	c.mu.Lock()
	// The scans in the air follow ch before they land (overtaken.go); the
	// rankings kept until now, below.
	c.followInAirLocked(ch, true)
	for key, k := range c.searches.kept.All() {
		if !k.q.Nothing() {
			all = append(all, kept{key, k})
		}
	}
	c.mu.Unlock()
	for len(all) > 0 {
		batch := all[:min(len(all), maxRematchSearches)]
		all = all[len(batch):]
		qs := make([]blog.Search, len(batch))
		for i, b := range batch {
			qs[i] = b.k.q
		}
		found, err := rm.Rematch(ctx, ch.Posts, qs)
		if err != nil {
			c.logger.Warn("kept searches not matched against a change; they follow it after -search-ttl", "err", err)
			return
		}
		for i, b := range batch {
			if patched := b.k.ranking.Patched(ch.Posts, found[i]); patched != b.k.ranking {
				c.patchRanking(b.key, b.k, patched)
			}
		}
	}
}

// patchRanking keeps ranking in place of k's, under key, when k is still
// the one kept there (not one a scan kept since).
func (c *Cache) patchRanking(key string, k *keptRanking, ranking *blog.Ranking) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.searches.kept.Peek(key); !ok || cur != k {
		return
	}
	p := *k
	p.ranking = ranking
	p.size += ranking.Bytes() - k.ranking.Bytes()
	// A new stamp: the pages cut from k are read again. Never equal to
	// k's, however coarse the clock.
	p.stamp = c.now()
	if !p.stamp.After(k.stamp) {
		p.stamp = k.stamp.Add(time.Nanosecond)
	}
	c.searches.keepLocked(key, &p, p.read)
}

// followable tells whether kept rankings can follow ch by a rematch of
// the posts it names: else they are dropped.
func followable(ch blog.Change) bool {
	return !ch.Searches && len(ch.Posts) <= maxRematchPosts
}

// dropRankings drops every kept ranking, and overtakes the scans in the
// air: their next readers scan again.
func (c *Cache) dropRankings() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.followInAirLocked(blog.Change{}, false)
	var keys []string
	for key := range c.searches.kept.All() {
		keys = append(keys, key)
	}
	for _, key := range keys {
		c.searches.dropLocked(key)
	}
}
