package listing

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
