package listing

import (
	"context"
	"slices"

	"github.com/wploadmore/wploadmore/blog"
)

// MarkStale makes every page the cache keeps, heads and deeper ones, be
// read again by its next reader, as if its freshness bound had run out:
// what the WordPress plugin's change events call for (see server/push).
// A query in the air when it is called keeps its answer until its own
// bound; a search's kept ranking stays, bounded by SearchTTL.
func (c *Cache) MarkStale() {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([]pageRange, 0, c.pages.Len())
	for k := range c.pages.All() {
		keys = append(keys, k)
	}
	for _, k := range keys {
		c.pages.Remove(k)
	}
}

// MarkStale makes the next reader read the sticky posts again, and the
// pages underneath, when they too can be marked.
func (s *Sticky) MarkStale() {
	s.mu.Lock()
	s.last = nil
	s.mu.Unlock()
	if p, ok := s.pages.(interface{ MarkStale() }); ok {
		p.MarkStale()
	}
}

// MarkChanged makes the pages ch touches be read again by their next
// reader, and keeps the others: the blog's pages always (its head holds
// the newest of every change); an archive's when ch touches what it is
// held to (blog.Change.Touches: a category's parents hold its posts, as
// their term groups hold its ID); a search's page that holds a post ch
// names, or any search page when ch names an author and no posts. Kept
// searches follow ch first (searchchange.go), which may read the posts
// ch names once, within ctx. A change of unknown scope (ch.All) is
// MarkStale.
func (c *Cache) MarkChanged(ctx context.Context, ch blog.Change) {
	c.followSearches(ctx, ch)
	if ch.All {
		c.MarkStale()
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var keys []pageRange
	for k, p := range c.pages.All() {
		if touched(p, ch) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		c.pages.Remove(k)
	}
}

// touched tells whether ch may change page p.
func touched(p *cachedPage, ch blog.Change) bool {
	switch l := p.in.(type) {
	case blog.Archive:
		return l.IsZero() || ch.Touches(l.Filter())
	case blog.Search:
		if ch.TermsOnly {
			return false
		}
		return len(ch.Posts) == 0 || slices.ContainsFunc(p.posts, func(post Post) bool { return slices.Contains(ch.Posts, post.ID) })
	}
	return true // the blog, or a listing of unknown kind
}

// MarkChanged makes the next reader read the sticky posts again, which
// head the blog every change touches, and the pages underneath ch
// touches, when they can be marked.
func (s *Sticky) MarkChanged(ctx context.Context, ch blog.Change) {
	s.mu.Lock()
	s.last = nil
	s.mu.Unlock()
	if p, ok := s.pages.(interface {
		MarkChanged(context.Context, blog.Change)
	}); ok {
		p.MarkChanged(ctx, ch)
	} else if p, ok := s.pages.(interface{ MarkStale() }); ok {
		p.MarkStale()
	}
}
