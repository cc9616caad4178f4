package wpdb

import (
	"context"
	"fmt"
	"strings"

	"github.com/wploadmore/wploadmore/blog"
)

// MaxRematchPosts and MaxRematchSearches bound one Rematch: its posts
// are read by primary key, and each search adds its terms' LIKEs on
// them, so the query stays a few milliseconds however large the site.
const (
	MaxRematchPosts    = 256
	MaxRematchSearches = 32
)

// Rematch tells which of the posts ids each search of qs finds now, in
// one query that reads those rows alone by primary key, never a scan:
// for each search, the entries of the posts its scan would find today,
// with the rank and date its scan would give them (Rank's condition and
// order, evaluated on those rows by the database, so that the columns'
// collation folds case and accents as for the scan). A search's kept
// ranking can then follow a change to those posts without a rescan.
//
// It returns an error for more than MaxRematchPosts posts or
// MaxRematchSearches searches, and one wrapping [ErrUnavailable] when
// the database fails the query or runs past the query timeout.
func (s *Store) Rematch(ctx context.Context, ids []uint64, qs []blog.Search) ([][]blog.RankEntry, error) {
	if len(ids) > MaxRematchPosts || len(qs) > MaxRematchSearches {
		return nil, fmt.Errorf("wpdb: rematch %d posts in %d searches: more than %d or %d", len(ids), len(qs), MaxRematchPosts, MaxRematchSearches)
	}
	out := make([][]blog.RankEntry, len(qs))
	if len(ids) == 0 || len(qs) == 0 {
		return out, nil
	}
	return read(ctx, s, func(ctx context.Context, t *target) ([][]blog.RankEntry, error) {
		ctx, cancel := context.WithTimeout(ctx, s.timeout)
		defer cancel()
		out, err := s.rematch(ctx, t, ids, qs)
		if err != nil {
			return nil, fmt.Errorf("wpdb: rematch %d posts in %d searches: %w", len(ids), len(qs), err)
		}
		return out, nil
	})
}

func (s *Store) rematch(ctx context.Context, t *target, ids []uint64, qs []blog.Search) ([][]blog.RankEntry, error) {
	// Each search is two columns: whether its scan's condition holds for
	// the row (NULL read as no), and its rank.
	cols := []string{"p.ID", s.dateText()}
	var args []any
	for _, q := range qs {
		rank, rankArgs := s.searchRank(q)
		where, whereArgs := s.searchWhere(q)
		if q.Nothing() {
			where, whereArgs = "0 = 1", nil
		}
		cols = append(cols, "COALESCE(("+where+"), 0)", rank)
		args = append(append(args, whereArgs...), rankArgs...)
	}
	query := "SELECT " + strings.Join(cols, ", ") + " FROM " + quoteIdent(s.driver, s.table) + " AS p WHERE p.ID IN " + idList(ids)
	rows, err := t.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, unavailable(err)
	}
	defer rows.Close()
	out := make([][]blog.RankEntry, len(qs))
	dest := make([]any, 2+2*len(qs))
	var id uint64
	var date string
	matched, ranks := make([]int64, len(qs)), make([]int64, len(qs))
	dest[0], dest[1] = &id, &date
	for i := range qs {
		dest[2+2*i], dest[3+2*i] = &matched[i], &ranks[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, unavailable(err)
		}
		for i := range qs {
			if matched[i] != 0 {
				out[i] = append(out[i], blog.RankEntry{ID: id, Date: dateDigits(date), Rank: int8(ranks[i])})
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, unavailable(err)
	}
	return out, nil
}
