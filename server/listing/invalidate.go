package listing

import (
	"context"
	"slices"

	"github.com/wploadmore/wploadmore/blog"
)

// MarkStale makes every page the cache keeps, heads and deeper ones, be
// read again by its next reader, as if its freshness bound had run out:
// what the WordPress plugin's change events call for (see server/push).
// A query in the air when it is called is overtaken (overtaken.go): its
// readers get its answer, the later ones read again. A search's kept
// ranking, and a scan in the air, stay, bounded by SearchTTL.
func (c *Cache) MarkStale() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.marked = c.now()
	c.overtakeLocked(blog.Change{All: true}, func(string) bool { return true })
	keys := make([]pageRange, 0, c.pages.Len())
	for k := range c.pages.All() {
		keys = append(keys, k)
	}
	for _, k := range keys {
		c.pages.Remove(k)
	}
}

// MarkStale makes the next reader read the sticky posts again (a read in
// the air then is not joined by later readers, nor kept), and the pages
// underneath, when they too can be marked.
func (s *Sticky) MarkStale() {
	s.mu.Lock()
	s.last, s.marked = nil, s.now()
	s.gen++
	s.mu.Unlock()
	if p, ok := s.pages.(interface{ MarkStale() }); ok {
		p.MarkStale()
	}
}

// MarkChanged makes the pages ch touches (blog.Change.TouchesPage: a
// category's parents hold its posts, as their term groups hold its ID) be
// read again by their next reader, their queries in the air overtaken
// (overtaken.go), and keeps the others. Kept searches, and scans in the
// air, then follow ch (searchchange.go), which may read the posts ch
// names once, within ctx: a search's page read meanwhile is read again
// once its ranking is patched. A change of unknown scope (ch.All) touches
// every page. Within a burst of changes, each listing is dropped at most
// once per TTL (pace.go).
func (c *Cache) MarkChanged(ctx context.Context, ch blog.Change) {
	c.markPages(ch)
	c.followSearchesPaced(ctx, ch)
}

// markPages drops the pages ch touches, and overtakes their queries in
// the air (overtaken.go), paced (pace.go).
func (c *Cache) markPages(ch blog.Change) {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.marked = now
	drops := map[string]bool{} // by listing: each paced once an event
	dropped := func(listing string) bool {
		drop, ok := drops[listing]
		if !ok {
			drop = c.dropLocked(listing, now, ch.Burst)
			drops[listing] = drop
		}
		return drop
	}
	c.overtakeLocked(ch, dropped)
	var keys []pageRange
	for k, p := range c.pages.All() {
		if !ch.All && !touched(p, ch) {
			continue
		}
		if dropped(k.listing) {
			keys = append(keys, k)
		} else {
			p.short = true // left to the TTL, which stretching must keep
		}
	}
	for _, k := range keys {
		c.pages.Remove(k)
	}
	c.prunePacesLocked(now)
}

// touched tells whether ch may change page p.
func touched(p *cachedPage, ch blog.Change) bool {
	if p.in == nil {
		return true
	}
	return ch.TouchesPage(p.in, func(id uint64) bool {
		return slices.ContainsFunc(p.posts, func(post Post) bool { return post.ID == id })
	})
}

// MarkChanged makes the next reader read the sticky posts again, which
// head the blog every change touches (within a burst, at most once per
// its bound, as the cache's listings): a read in the air then is not
// joined by later readers, nor kept. The pages underneath ch touches are
// marked too, when they can be.
func (s *Sticky) MarkChanged(ctx context.Context, ch blog.Change) {
	s.mu.Lock()
	s.marked = s.now()
	switch {
	case s.marks.drop(s.marked, ch.Burst, s.ttl):
		s.last = nil
		s.gen++
	case s.last != nil:
		short := *s.last // left to the TTL, which stretching must keep
		short.short = true
		s.last = &short
	}
	s.mu.Unlock()
	if p, ok := s.pages.(interface {
		MarkChanged(context.Context, blog.Change)
	}); ok {
		p.MarkChanged(ctx, ch)
	} else if p, ok := s.pages.(interface{ MarkStale() }); ok {
		p.MarkStale()
	}
}
