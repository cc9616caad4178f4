package wpdb

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// Posts returns page p: up to p.Limit published posts of its listing, in
// the listing order (post_date, then ID, descending; a search's own), each
// with its Excerpt shaped and its card's rows read. When no post is left
// it returns an empty, non-nil slice. A page of a search that has no
// [blog.Ranking] starts with the search's scan, under the search timeout.
//
// It returns an error when the offset or limit is negative, and an error
// wrapping [ErrUnavailable] when the database fails the query or it runs
// past the store's query timeout or ctx's deadline.
func (s *Store) Posts(ctx context.Context, p blog.Page) ([]blog.Post, error) {
	if p.Offset < 0 || p.Limit < 0 || p.Offset > math.MaxInt-p.Limit {
		return nil, fmt.Errorf("wpdb: %s, limit %d: out of range", p, p.Limit)
	}
	if p.Limit == 0 {
		return []blog.Post{}, nil
	}
	return blog.ReadPage(ctx, p, pageReader{s})
}

// pageReader reads a page of each kind of listing: the kind's own rows,
// then the posts' excerpts and cards.
type pageReader struct{ s *Store }

func (r pageReader) Home(ctx context.Context, p blog.Page) ([]blog.Post, error) {
	if hidden := r.s.homeHidden(); len(hidden) > 0 {
		// The registry hides terms of the listed types: the blog is read
		// as an archive of them all, walked.
		f := blog.Filter{Hidden: hidden}
		return r.s.page(ctx, p, r.s.timeout, func(ctx context.Context, t *target) ([]pageRow, error) {
			return r.s.archiveRows(ctx, t, f, planArchive(blog.Archive{}), p)
		})
	}
	return r.s.page(ctx, p, r.s.timeout, func(ctx context.Context, t *target) ([]pageRow, error) {
		return r.s.homeRows(ctx, t, p)
	})
}

func (r pageReader) Archive(ctx context.Context, a blog.Archive, p blog.Page) ([]blog.Post, error) {
	return r.s.page(ctx, p, r.s.timeout, func(ctx context.Context, t *target) ([]pageRow, error) {
		return r.s.archiveRows(ctx, t, a.Filter(), planArchive(a), p)
	})
}

func (r pageReader) Search(ctx context.Context, q blog.Search, p blog.Page) ([]blog.Post, error) {
	timeout := r.s.timeout
	if q.Ranking() == nil {
		timeout = r.s.scanTimeout // the page starts with the search's scan
	}
	return r.s.page(ctx, p, timeout, func(ctx context.Context, t *target) ([]pageRow, error) {
		return r.s.searchRows(ctx, t, q, p)
	})
}

// page reads page p's rows on a database (see [read]) with rows, then
// shapes the posts and reads their cards there, all under timeout.
func (s *Store) page(ctx context.Context, p blog.Page, timeout time.Duration,
	rows func(context.Context, *target) ([]pageRow, error)) ([]blog.Post, error) {
	return read(ctx, s, func(ctx context.Context, t *target) ([]blog.Post, error) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		rows, err := rows(ctx, t)
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

// homeRows reads the rows of page p of the whole blog with the statements
// prepared on t at Open.
func (s *Store) homeRows(ctx context.Context, t *target, p blog.Page) ([]pageRow, error) {
	var rows []pageRow
	stmts := t.stmts.Load()
	if p.LastPost != 0 {
		err := stmts.keyset.SelectContext(ctx, &rows, s.keysetArgs(p.LastPost, p.Offset, p.Limit)...)
		return rows, unavailable(err)
	}
	err := stmts.page.SelectContext(ctx, &rows, s.args(p.Offset, p.Limit)...)
	return rows, unavailable(err)
}
