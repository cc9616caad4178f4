package wpdb

import (
	"context"
	"fmt"
	"math"
)

// Listing is what a visitor pages through: the whole blog ([Blog]) or a
// part of it, such as an [Archive]. Every kind is read by the one
// [Store.Posts]: a new kind needs a Key and its SQL, and no new method.
type Listing interface {
	// Key names the listing in one canonical spelling, "" for the whole
	// blog: two listings with one Key hold the same posts, so caches keep
	// their pages under it.
	Key() string
	// pageRows reads the rows of page p of the listing on t, in the
	// listing order (post_date, then ID, descending), under ctx's
	// deadline. Its errors wrap ErrUnavailable when the database failed.
	pageRows(ctx context.Context, s *Store, t *target, p Page) ([]pageRow, error)
}

// Page is one page of a listing: Limit posts of In after post LastPost,
// or after Offset of them when LastPost is 0 or its row is gone. The
// offset decides then so that a walk whose last post was deleted goes on
// near where it was.
type Page struct {
	In       Listing // nil is the whole blog
	LastPost uint64
	Offset   int
	Limit    int
}

// Listing returns the listing p reads: In, or the whole blog.
func (p Page) Listing() Listing {
	if p.In == nil {
		return Blog{}
	}
	return p.In
}

// Key is the Key of p's listing: "" for the whole blog.
func (p Page) Key() string { return p.Listing().Key() }

// String names the page in errors: where it starts.
func (p Page) String() string {
	at := fmt.Sprintf("offset %d", p.Offset)
	if p.LastPost != 0 {
		at = fmt.Sprintf("post %d", p.LastPost)
	}
	if key := p.Key(); key != "" {
		return "posts of " + key + " after " + at
	}
	return "posts after " + at
}

// Blog is the whole listing: every published post of the configured
// types. Its queries are prepared on each database at Open.
type Blog struct{}

// Key is "": the whole blog.
func (Blog) Key() string { return "" }

func (Blog) pageRows(ctx context.Context, s *Store, t *target, p Page) ([]pageRow, error) {
	var rows []pageRow
	stmts := t.stmts.Load()
	if p.LastPost != 0 {
		err := stmts.keyset.SelectContext(ctx, &rows, s.keysetArgs(p.LastPost, p.Offset, p.Limit)...)
		return rows, unavailable(err)
	}
	err := stmts.page.SelectContext(ctx, &rows, s.args(p.Offset, p.Limit)...)
	return rows, unavailable(err)
}

// Posts returns page p: up to p.Limit published posts of its listing, in
// the listing order (post_date, then ID, descending), each with its
// Excerpt shaped and its card's rows read. When no post is left it
// returns an empty, non-nil slice.
//
// It returns an error when the offset or limit is negative, and an error
// wrapping [ErrUnavailable] when the database fails the query or it runs
// past the store's query timeout or ctx's deadline.
func (s *Store) Posts(ctx context.Context, p Page) ([]Post, error) {
	if p.Offset < 0 || p.Limit < 0 || p.Offset > math.MaxInt-p.Limit {
		return nil, fmt.Errorf("wpdb: %s, limit %d: out of range", p, p.Limit)
	}
	if p.Limit == 0 {
		return []Post{}, nil
	}
	in := p.Listing()
	timeout := s.timeout
	if q, ok := in.(Search); ok && q.ranking == nil {
		timeout = s.scanTimeout // the page starts with the search's scan
	}
	return read(ctx, s, func(ctx context.Context, t *target) ([]Post, error) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		rows, err := in.pageRows(ctx, s, t, p)
		if err != nil {
			return nil, fmt.Errorf("wpdb: %s: %w", p, err)
		}
		posts, err := s.shape(ctx, t, rows)
		if err == nil {
			err = s.addCards(ctx, t, posts)
		}
		if err != nil {
			return nil, fmt.Errorf("wpdb: %s: %w", p, err)
		}
		return posts, nil
	})
}
