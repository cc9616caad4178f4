package listing

import (
	"context"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// cachePages reads each kind of listing through the cache: the blog and
// an archive alike, a search from its ranking.
type cachePages struct{ c *Cache }

func (r cachePages) Home(ctx context.Context, p blog.Page) ([]Post, error) {
	return r.c.posts(ctx, p, listed{listing: p.Listing()})
}

func (r cachePages) Archive(ctx context.Context, _ blog.Archive, p blog.Page) ([]Post, error) {
	return r.c.posts(ctx, p, listed{listing: p.Listing()})
}

// Search reads page p of q from q's ranking, the one kept or else one read
// now (see Cache.rank).
func (r cachePages) Search(ctx context.Context, q blog.Search, p blog.Page) ([]Post, error) {
	kept, err := r.c.rank(ctx, q)
	if err != nil {
		r.c.observer.CacheMiss()
		return nil, err
	}
	return r.c.posts(ctx, p, listed{listing: q.Ranked(kept.ranking), ranked: kept.stamp})
}

// listed is the listing a page's key names, as the cache reads it: ranked
// is the stamp of the ranking a search's page is cut from (when its scan
// started, or when a change patched it), zero for any other listing.
type listed struct {
	listing blog.Listing
	ranked  time.Time
}

// StickyPosts returns the sticky posts among ids, read from next and
// formatted; they are not kept (Sticky keeps them).
func (c *Cache) StickyPosts(ctx context.Context, ids []uint64) ([]Post, error) {
	posts, err := c.next.StickyPosts(ctx, ids)
	if err != nil {
		return nil, err
	}
	return c.format.Posts(posts)
}
