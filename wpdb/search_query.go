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
)

// DefaultSearchPostTypes are the types a search lists when
// Config.SearchPostTypes names none: WordPress's search page lists every
// type not excluded from search, of which a site's own are posts and
// pages (attachments, which WordPress adds, are left out).
var DefaultSearchPostTypes = []string{"post", "page"}

// Ranking is a search's posts in WordPress's order, as [Store.Rank] read
// them in one scan: each with what places it in that order, so that a
// page after a post that has since left the search is found too.
type Ranking struct {
	entries []rankEntry
	read    time.Time
}

// rankEntry is one post of a Ranking: the order is rank ascending (the
// CASE of parse_search_order, 0 without one), then date and ID
// descending. date is post_date's digits, YYYYMMDDhhmmss, which order as
// the dates do.
type rankEntry struct {
	id   uint64
	date int64
	rank int8
}

// rankEntryBytes is what one entry takes in memory.
const rankEntryBytes = 24

// Len is the number of posts the search found.
func (r *Ranking) Len() int { return len(r.entries) }

// Bytes is what r takes in memory, roughly: what a budget counts.
func (r *Ranking) Bytes() int { return 64 + cap(r.entries)*rankEntryBytes }

// Read is when r's query started: r is at least as fresh.
func (r *Ranking) Read() time.Time { return r.read }

// IDs returns the IDs of the posts in order.
func (r *Ranking) IDs() []uint64 {
	ids := make([]uint64, len(r.entries))
	for i, e := range r.entries {
		ids[i] = e.id
	}
	return ids
}

// before reports whether a comes before b in the search's order.
func (a rankEntry) before(b rankEntry) bool {
	return cmp.Or(cmp.Compare(a.rank, b.rank), -cmp.Compare(a.date, b.date), -cmp.Compare(a.id, b.id)) < 0
}

// Ranked returns q paging through r, which [Store.Rank] read for q: its
// pages are read by primary key, with no scan.
func (q Search) Ranked(r *Ranking) Search {
	q.ranking = r
	return q
}

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
func (s *Store) Rank(ctx context.Context, q Search) (*Ranking, error) {
	return read(ctx, s, func(ctx context.Context, t *target) (*Ranking, error) {
		ctx, cancel := context.WithTimeout(ctx, s.scanTimeout)
		defer cancel()
		r, err := s.rank(ctx, t, q)
		if err != nil {
			return nil, fmt.Errorf("wpdb: search %q: %w", q.Key(), err)
		}
		return r, nil
	})
}

func (s *Store) rank(ctx context.Context, t *target, q Search) (*Ranking, error) {
	r := &Ranking{read: time.Now()}
	if q.nothing {
		return r, nil
	}
	query, args := s.scanQuery(q)
	rows, err := t.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, unavailable(err)
	}
	defer rows.Close()
	for rows.Next() {
		var e rankEntry
		var date string
		if err := rows.Scan(&e.id, &e.rank, &date); err != nil {
			return nil, unavailable(err)
		}
		e.date = dateDigits(date)
		r.entries = append(r.entries, e)
	}
	if err := rows.Err(); err != nil {
		return nil, unavailable(err)
	}
	// Sorted here, not by the database: MariaDB sorts the scan's rows by
	// the computed rank through a second pass over the table's text, which
	// doubled the scan of 100 000 posts (16.6 s against 8.2 s unsorted).
	slices.SortFunc(r.entries, func(a, b rankEntry) int {
		if a.before(b) {
			return -1
		}
		if b.before(a) {
			return 1
		}
		return 0
	})
	return r, nil
}

// scanQuery is the query of q's scan, every post it finds ranked, and its
// parameters.
func (s *Store) scanQuery(q Search) (string, []any) {
	rank, rankArgs := s.searchRank(q)
	where, whereArgs := s.searchWhere(q)
	return "SELECT p.ID, " + rank + " AS search_rank, " + s.dateText() + " AS post_date FROM " + quoteIdent(s.driver, s.table) + " AS p" +
		" WHERE " + where, append(rankArgs, whereArgs...)
}

// searchRank is the relevance rank of the posts row p under q, as
// parse_search_order's CASE, and its parameters; "0" when WordPress
// orders by date alone. A single raw term ranks a title holding it first,
// as WordPress's post_title LIKE … DESC does.
func (s *Store) searchRank(q Search) (string, []any) {
	o := q.order
	if o == nil {
		return "0", nil
	}
	if !o.several {
		return "CASE WHEN " + s.like("p.post_title", false) + " THEN 1 ELSE 2 END", []any{o.titleLikes[0]}
	}
	var b strings.Builder
	var args []any
	b.WriteString("CASE")
	when := func(cond string, rank int, condArgs ...any) {
		fmt.Fprintf(&b, " WHEN %s THEN %d", cond, rank)
		args = append(args, condArgs...)
	}
	titles := make([]string, len(o.titleLikes))
	titleArgs := make([]any, len(o.titleLikes))
	for i, like := range o.titleLikes {
		titles[i], titleArgs[i] = s.like("p.post_title", false), like
	}
	if o.sentence != "" {
		when(s.like("p.post_title", false), 1, o.sentence)
	}
	if o.all {
		when("("+strings.Join(titles, " AND ")+")", 2, titleArgs...)
	}
	if o.any {
		when("("+strings.Join(titles, " OR ")+")", 3, titleArgs...)
	}
	if o.sentence != "" {
		when(s.like("p.post_excerpt", false), 4, o.sentence)
		when(s.like("p.post_content", false), 5, o.sentence)
	}
	b.WriteString(" ELSE 6 END")
	return b.String(), args
}

// searchWhere is q's condition on the posts row p, and its parameters:
// the search types, published, q's archive, and each term, as
// parse_search writes them.
func (s *Store) searchWhere(q Search) (string, []any) {
	types := s.searchTypes
	where := []string{"p.post_type IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(types)), ", ") + ")", "p.post_status = 'publish'"}
	args := make([]any, 0, len(types)+3*len(q.terms))
	for _, pt := range types {
		args = append(args, pt)
	}
	where = append(where, s.archiveConditions(&q.archive, -1, 0)...)
	for _, term := range q.terms {
		op := " OR "
		if term.exclude {
			op = " AND "
		}
		cols := []string{"p.post_title", "p.post_excerpt", "p.post_content"}
		for i, col := range cols {
			cols[i] = "(" + s.like(col, term.exclude) + ")"
			args = append(args, term.like)
		}
		where = append(where, "("+strings.Join(cols, op)+")")
	}
	if len(q.terms) > 0 {
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

// pageRows reads page p of q from its ranking, reading the ranking
// first when q has none.
func (q Search) pageRows(ctx context.Context, s *Store, t *target, p Page) ([]pageRow, error) {
	r := q.ranking
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
	end := min(from+p.Limit, len(r.entries))
	if from >= end {
		return []pageRow{}, nil
	}
	return s.rowsInOrder(ctx, t, r.entries[from:end])
}

// rankedFrom is where page p starts in r: after p.LastPost when it has a
// place in q's order (in r, or, when it left the search since, by its
// row's rank and date now), else at p.Offset.
func (s *Store) rankedFrom(ctx context.Context, t *target, q Search, r *Ranking, p Page) (int, error) {
	if p.LastPost == 0 {
		return min(p.Offset, len(r.entries)), nil
	}
	if i := slices.IndexFunc(r.entries, func(e rankEntry) bool { return e.id == p.LastPost }); i >= 0 {
		return i + 1, nil
	}
	rank, args := s.searchRank(q)
	at := rankEntry{id: p.LastPost}
	var date string
	err := t.db.QueryRowContext(ctx, "SELECT "+rank+", "+s.dateText()+" FROM "+quoteIdent(s.driver, s.table)+" AS p WHERE p.ID = ?",
		append(args, p.LastPost)...).Scan(&at.rank, &date)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return min(p.Offset, len(r.entries)), nil
	case err != nil:
		return 0, fmt.Errorf("position of post %d: %w", p.LastPost, unavailable(err))
	}
	at.date = dateDigits(date)
	i, _ := slices.BinarySearchFunc(r.entries, at, func(e, target rankEntry) int {
		if e.before(target) || e == target {
			return -1
		}
		return 1
	})
	return i, nil
}

// rowsInOrder reads the page rows of entries by primary key, in their
// order. A post deleted since the ranking was read is left out.
func (s *Store) rowsInOrder(ctx context.Context, t *target, entries []rankEntry) ([]pageRow, error) {
	args := make([]any, len(entries))
	for i, e := range entries {
		args[i] = e.id
	}
	inner := "SELECT ID, post_date FROM " + quoteIdent(s.driver, s.table) +
		" WHERE ID IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(entries)), ", ") + ")"
	var rows []pageRow
	if err := t.db.SelectContext(ctx, &rows, outerPageQuery(s.driver, s.table, s.queries.startChars, inner), args...); err != nil {
		return nil, unavailable(err)
	}
	at := make(map[uint64]int, len(entries))
	for i, e := range entries {
		at[e.id] = i
	}
	slices.SortFunc(rows, func(a, b pageRow) int { return cmp.Compare(at[a.ID], at[b.ID]) })
	return rows, nil
}
