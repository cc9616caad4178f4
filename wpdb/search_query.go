package wpdb

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// DefaultSearchPostTypes are the types a search lists when
// Config.SearchPostTypes names none: WordPress's search page lists every
// type not excluded from search, of which a site's own are posts and
// pages (attachments, which WordPress adds, are left out).
var DefaultSearchPostTypes = []string{"post", "page"}

// Rank reads the IDs of q's posts in WordPress's order, in one scan of
// the posts table: published posts of the search types (see
// Config.SearchPostTypes) in q's archive, whose title, excerpt or content
// holds each term (LIKE, so the columns' collation folds case and
// accents as for WordPress) and no excluded one, without a password; by
// relevance (parse_search_order), then post_date, newest first, and ties,
// which WordPress leaves in the order the database scanned them, by ID,
// highest first. Every value of s is a bound parameter.
//
// It returns an error wrapping [ErrUnavailable] when the database fails
// the query or it runs past the search timeout (Config.SearchTimeout) or
// ctx's deadline.
func (s *Store) Rank(ctx context.Context, q blog.Search) (*blog.Ranking, error) {
	return read(ctx, s, func(ctx context.Context, t *target) (*blog.Ranking, error) {
		ctx, cancel := context.WithTimeout(ctx, s.scanTimeout)
		defer cancel()
		r, err := s.rank(ctx, t, q)
		if err != nil {
			return nil, fmt.Errorf("wpdb: search %q: %w", q.Key(), err)
		}
		return r, nil
	})
}

func (s *Store) rank(ctx context.Context, t *target, q blog.Search) (*blog.Ranking, error) {
	began := time.Now()
	if q.Nothing() {
		return blog.NewRanking(nil, began), nil
	}
	query, args := s.scanQuery(q)
	rows, err := t.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, unavailable(err)
	}
	defer rows.Close()
	var entries []blog.RankEntry
	for rows.Next() {
		var e blog.RankEntry
		var date string
		if err := rows.Scan(&e.ID, &e.Rank, &date); err != nil {
			return nil, unavailable(err)
		}
		e.Date = dateDigits(date)
		entries = append(entries, e)
	}
	if err := rows.Err(); err != nil {
		return nil, unavailable(err)
	}
	// Sorted here (NewRanking), not by the database: MariaDB sorts the
	// scan's rows by the computed rank through a second pass over the
	// table's text, which doubled the scan of 100 000 posts (16.6 s against
	// 8.2 s unsorted).
	return blog.NewRanking(entries, began), nil
}

// scanQuery is the query of q's scan, every post it finds ranked, and its
// parameters.
func (s *Store) scanQuery(q blog.Search) (string, []any) {
	rank, rankArgs := s.searchRank(q)
	where, whereArgs := s.searchWhere(q)
	return "SELECT p.ID, " + rank + " AS search_rank, " + s.dateText() + " AS post_date FROM " + quoteIdent(s.driver, s.table) + " AS p" +
		" WHERE " + where, append(rankArgs, whereArgs...)
}

// searchRank is the relevance rank of the posts row p under q, as
// parse_search_order's CASE, and its parameters; "0" when WordPress
// orders by date alone. A single raw term ranks a title holding it first,
// as WordPress's post_title LIKE … DESC does.
func (s *Store) searchRank(q blog.Search) (string, []any) {
	o := q.Order()
	if o == nil {
		return "0", nil
	}
	if !o.Several {
		return "CASE WHEN " + s.like("p.post_title", false) + " THEN 1 ELSE 2 END", []any{o.TitleLikes[0]}
	}
	var b strings.Builder
	var args []any
	b.WriteString("CASE")
	when := func(cond string, rank int, condArgs ...any) {
		fmt.Fprintf(&b, " WHEN %s THEN %d", cond, rank)
		args = append(args, condArgs...)
	}
	titles := make([]string, len(o.TitleLikes))
	titleArgs := make([]any, len(o.TitleLikes))
	for i, like := range o.TitleLikes {
		titles[i], titleArgs[i] = s.like("p.post_title", false), like
	}
	if o.Sentence != "" {
		when(s.like("p.post_title", false), 1, o.Sentence)
	}
	if o.All {
		when("("+strings.Join(titles, " AND ")+")", 2, titleArgs...)
	}
	if o.Any {
		when("("+strings.Join(titles, " OR ")+")", 3, titleArgs...)
	}
	if o.Sentence != "" {
		when(s.like("p.post_excerpt", false), 4, o.Sentence)
		when(s.like("p.post_content", false), 5, o.Sentence)
	}
	b.WriteString(" ELSE 6 END")
	return b.String(), args
}

// searchWhere is q's condition on the posts row p, and its parameters:
// the search types, published, q's archive, and each term, as
// parse_search writes them.
func (s *Store) searchWhere(q blog.Search) (string, []any) {
	types := s.searchTypes
	f := q.Archive().Filter()
	if len(f.PostTypes) > 0 && !s.searchOverride {
		types = f.PostTypes
	}
	f.PostTypes = nil
	terms := q.Terms()
	where := []string{"p.post_type IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(types)), ", ") + ")", "p.post_status = 'publish'"}
	args := make([]any, 0, len(types)+3*len(terms))
	for _, pt := range types {
		args = append(args, pt)
	}
	where = append(where, s.archiveConditions(f, -1, 0)...)
	relationships := quoteIdent(s.driver, s.prefix+"term_relationships")
	where = append(where, hiddenConditions(q.Hidden(), types, func(ids []uint64) string {
		return "(SELECT 1 FROM " + relationships + " AS tr WHERE tr.object_id = p.ID AND tr.term_taxonomy_id IN " + idList(ids) + " LIMIT 1)"
	})...)
	for _, term := range terms {
		op := " OR "
		if term.Exclude {
			op = " AND "
		}
		cols := []string{"p.post_title", "p.post_excerpt", "p.post_content"}
		for i, col := range cols {
			cols[i] = "(" + s.like(col, term.Exclude) + ")"
			args = append(args, term.Like)
		}
		where = append(where, "("+strings.Join(cols, op)+")")
	}
	if len(terms) > 0 {
		where = append(where, "p.post_password = ''")
	}
	return strings.Join(where, " AND "), args
}

// like compares col with a bound pattern escaped by esc_like. MariaDB's
// LIKE escapes with a backslash by default, as WordPress relies on;
// SQLite's escapes with nothing unless told.
func (s *Store) like(col string, not bool) string {
	op := " LIKE ?"
	if not {
		op = " NOT LIKE ?"
	}
	if s.driver == DriverSQLite {
		op += ` ESCAPE '\'`
	}
	return col + op
}

// dateText is post_date of the row p as its stored text.
func (s *Store) dateText() string {
	if s.driver == DriverSQLite {
		return "CAST(p.post_date AS TEXT)"
	}
	return "p.post_date"
}

// dateDigits reads a stored date, "2024-01-02 03:04:05", as the number
// 20240102030405; what is not a digit is skipped.
func dateDigits(date string) int64 {
	var n int64
	for i := 0; i < len(date) && n < 1e13; i++ {
		if c := date[i]; c >= '0' && c <= '9' {
			n = n*10 + int64(c-'0')
		}
	}
	return n
}

// searchRows reads page p of q from its ranking, reading the ranking
// first when q has none.
func (s *Store) searchRows(ctx context.Context, t *target, q blog.Search, p blog.Page) ([]pageRow, error) {
	r := q.Ranking()
	if r == nil {
		var err error
		if r, err = s.rank(ctx, t, q); err != nil {
			return nil, err
		}
	}
	from, err := s.rankedFrom(ctx, t, q, r, p)
	if err != nil {
		return nil, err
	}
	entries := r.Entries(from, from+p.Limit)
	if len(entries) == 0 {
		return []pageRow{}, nil
	}
	return s.rowsInOrder(ctx, t, entries)
}

// rankedFrom is where page p starts in r: after p.LastPost when it has a
// place in q's order (in r, or, when it left the search since, by its
// row's rank and date now), else at p.Offset.
func (s *Store) rankedFrom(ctx context.Context, t *target, q blog.Search, r *blog.Ranking, p blog.Page) (int, error) {
	if p.LastPost == 0 {
		return min(p.Offset, r.Len()), nil
	}
	if i, ok := r.Index(p.LastPost); ok {
		return i + 1, nil
	}
	rank, args := s.searchRank(q)
	at := blog.RankEntry{ID: p.LastPost}
	var date string
	err := t.db.QueryRowContext(ctx, "SELECT "+rank+", "+s.dateText()+" FROM "+quoteIdent(s.driver, s.table)+" AS p WHERE p.ID = ?",
		append(args, p.LastPost)...).Scan(&at.Rank, &date)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return min(p.Offset, r.Len()), nil
	case err != nil:
		return 0, fmt.Errorf("position of post %d: %w", p.LastPost, unavailable(err))
	}
	at.Date = dateDigits(date)
	return r.After(at), nil
}

// rowsInOrder reads the page rows of entries by primary key, in their
// order. A post deleted since the ranking was read is left out.
func (s *Store) rowsInOrder(ctx context.Context, t *target, entries []blog.RankEntry) ([]pageRow, error) {
	args := make([]any, len(entries))
	for i, e := range entries {
		args[i] = e.ID
	}
	inner := "SELECT ID, post_date FROM " + quoteIdent(s.driver, s.table) +
		" WHERE ID IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(entries)), ", ") + ")"
	var rows []pageRow
	if err := t.db.SelectContext(ctx, &rows, outerPageQuery(s.driver, s.table, s.queries.startChars, inner), args...); err != nil {
		return nil, unavailable(err)
	}
	at := make(map[uint64]int, len(entries))
	for i, e := range entries {
		at[e.ID] = i
	}
	slices.SortFunc(rows, func(a, b pageRow) int { return cmp.Compare(at[a.ID], at[b.ID]) })
	return rows, nil
}
