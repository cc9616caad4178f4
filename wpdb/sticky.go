package wpdb

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/phpserial"
)

// stickyIDs reads the sticky_posts option, a serialized array of post IDs
// as stick_post() writes it (a:2:{i:0;i:12;i:1;i:7;}), in its order, each
// once. Numeric strings count as IDs; anything else, or a value that is not
// an array, is none: WordPress then sticks nothing either.
func stickyIDs(value string) []uint64 {
	v, err := phpserial.Decode([]byte(value))
	if err != nil || v.Kind != phpserial.Array {
		return nil
	}
	var ids []uint64
	for _, e := range v.Entries {
		var id uint64
		switch e.Value.Kind {
		case phpserial.Int:
			if e.Value.Int > 0 {
				id = uint64(e.Value.Int)
			}
		case phpserial.String:
			id, _ = strconv.ParseUint(e.Value.Str, 10, 64)
		}
		if id > 0 && !slices.Contains(ids, id) && len(ids) < blog.MaxStickyPosts {
			ids = append(ids, id)
		}
	}
	return ids
}

// StickyPosts returns the posts among ids that are published posts of the
// configured types, newest first (post_date, then ID, descending), each
// with its Excerpt shaped: the order WP_Query puts a home page's sticky
// posts in, since the ones on its first page come first in date order and
// the rest follow as get_posts() sorts them, by date. An ID that is not
// such a post is left out, as WordPress leaves it out.
//
// It returns an error wrapping [ErrUnavailable] when the database fails
// the query or it runs past the store's query timeout or ctx's deadline.
func (s *Store) StickyPosts(ctx context.Context, ids []uint64) ([]blog.Post, error) {
	if len(ids) == 0 {
		return []blog.Post{}, nil
	}
	ids = ids[:min(len(ids), blog.MaxStickyPosts)]
	// ID is the primary key: one lookup an ID, the type and status
	// checked on the row.
	inner := "SELECT ID, post_date FROM " + quoteIdent(s.driver, s.table) +
		" WHERE ID IN (?" + strings.Repeat(", ?", len(ids)-1) + ")" +
		" AND post_type IN (?" + strings.Repeat(", ?", len(s.types)-1) + ") AND post_status = 'publish'"
	query := outerPageQuery(s.driver, s.table, s.queries.startChars, inner)
	args := make([]any, 0, len(ids)+len(s.types))
	for _, id := range ids {
		args = append(args, id)
	}
	for _, pt := range s.types {
		args = append(args, pt)
	}
	return read(ctx, s, func(ctx context.Context, t *target) ([]blog.Post, error) {
		ctx, cancel := context.WithTimeout(ctx, s.timeout)
		defer cancel()
		var rows []pageRow
		if err := t.db.SelectContext(ctx, &rows, t.db.Rebind(query), args...); err != nil {
			return nil, fmt.Errorf("wpdb: sticky posts: %w", unavailable(err))
		}
		posts, err := s.shape(ctx, t, rows)
		if err == nil {
			err = s.addCards(ctx, t, posts)
		}
		if err != nil {
			return nil, fmt.Errorf("wpdb: sticky posts: %w", err)
		}
		return posts, nil
	})
}
