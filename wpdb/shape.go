package wpdb

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb/excerpt"
)

// contentStartChars is how many characters of post_content the page
// queries read: as many as the excerpt walk's first window
// (excerpt.WindowBytes) has bytes, so every post the walk decides in that
// window is decided from this start, whatever its length; the others are
// read again whole (see Store.shape). It must stay far below 2^28: MariaDB
// (10.11) sizes SUBSTRING's sort column at 4 bytes a character, and at 2^30 that
// overflows to an empty start while content_whole still says whole.
const contentStartChars = excerpt.WindowBytes

// shaper is what the Store asks of the excerpt engine, an
// [*excerpt.Shaper]: the excerpt of a whole post, or of a start of one,
// which may not decide it.
type shaper interface {
	Excerpt(content string) string
	FromStart(start string) (excerpt string, decided bool)
}

// reading is how a Store reads post_content and shapes it into excerpts.
type reading struct {
	startChars int    // characters of post_content the page queries read
	shaper     shaper // strips the Config's shortcodes
}

// contentReading is how Open reads and shapes the content of posts.
func contentReading(cfg Config) reading {
	return reading{startChars: contentStartChars, shaper: excerpt.New(cfg.StripShortcodes)}
}

// wholeRow is a post whose content is read whole, when its start did not
// decide its excerpt.
type wholeRow struct {
	ID            uint64 `db:"ID"`
	Modified      string `db:"post_modified_gmt"`
	Content       string `db:"post_content"`
	ContentLength int64  `db:"content_length"`
}

// contentColumns is the select list of the page queries after ID, title
// and name, over the posts table aliased p, reading the first n characters
// of post_content (SUBSTRING and substr both count characters).
// content_length is in bytes, which MariaDB knows without decoding the
// content as CHAR_LENGTH would. content_whole compares it with the start's
// on the server, in the column's charset, so neither a latin1 connection
// nor a NUL (where SQLite's substr stops) makes a cut start look whole.
// A password-protected post's content reads as empty in the database, so no
// byte of it reaches the server, its memo or its logs (WordPress shows none);
// protected is the one bit of post_password the server reads.
func contentColumns(driver string, n int) string {
	start := "SUBSTRING(p.post_content, 1, " + strconv.Itoa(n) + ")"
	cols := "p.post_date, p.post_modified_gmt, "
	if driver == DriverSQLite {
		start = "substr(p.post_content, 1, " + strconv.Itoa(n) + ")"
		// SQLite returns a column declared DATETIME as time.Time; the cast
		// keeps the stored text. MySQL without parseTime returns DATETIME as
		// text.
		cols = "CAST(p.post_date AS TEXT) AS post_date, CAST(p.post_modified_gmt AS TEXT) AS post_modified_gmt, "
	}
	content := unprotected("p.post_content")
	start = unprotected(start)
	return cols + "p.post_password <> '' AS protected, " + start + " AS content_start, " +
		byteLength(driver, content) + " AS content_length, " +
		byteLength(driver, start) + " = " + byteLength(driver, content) + " AS content_whole"
}

// unprotected is expr, or the empty text when the post of the row (aliased
// p) has a password.
func unprotected(expr string) string {
	return "CASE WHEN p.post_password = '' THEN " + expr + " ELSE '' END"
}

// byteLength is the length in bytes of the text expr: SQLite's length
// counts characters up to the first NUL, unless the text is cast to BLOB.
func byteLength(driver, expr string) string {
	if driver == DriverSQLite {
		return "length(CAST(" + expr + " AS BLOB))"
	}
	return "LENGTH(" + expr + ")"
}

// wholeQuery reads the whole content of n posts by ID, whatever their
// status: one published a moment ago may have been unpublished since, and
// its excerpt is still owed.
func wholeQuery(driver, table string, n int) string {
	modified := "p.post_modified_gmt"
	if driver == DriverSQLite {
		modified = "CAST(p.post_modified_gmt AS TEXT) AS post_modified_gmt"
	}
	// A post protected since the page query read it stays unread.
	content := unprotected("p.post_content")
	return "SELECT p.ID, " + modified + ", " + content + " AS post_content, " + byteLength(driver, content) + " AS content_length" +
		" FROM " + quoteIdent(driver, table) + " AS p WHERE p.ID IN (" + strings.Repeat("?, ", n-1) + "?)"
}

// shape returns the posts of rows, each with its excerpt: from the memo,
// else shaped from the start of its content, else, for the posts whose
// start did not decide, from their whole content, read in one more query.
// That query goes to t, the database that returned rows, and ctx bounds
// it. It returns an error when that query fails.
func (s *Store) shape(ctx context.Context, t *target, rows []pageRow) ([]blog.Post, error) {
	posts := make([]blog.Post, len(rows))
	var undecided []int // indexes into rows
	for i := range rows {
		r := &rows[i]
		posts[i] = r.post()
		version := excerpt.Version{ID: r.ID, Modified: r.Modified, Length: r.ContentLength}
		if text, ok := s.memo.Get(version); ok {
			posts[i].Excerpt = text
			continue
		}
		if r.ContentWhole {
			posts[i].Excerpt = s.shaper.Excerpt(r.ContentStart)
		} else if text, ok := s.shaper.FromStart(r.ContentStart); ok {
			posts[i].Excerpt = text
		} else {
			undecided = append(undecided, i)
			continue
		}
		s.memo.Put(version, posts[i].Excerpt)
	}
	if len(undecided) == 0 {
		return posts, nil
	}
	excerpts, err := s.shapeWhole(ctx, t, rows, undecided)
	if err != nil {
		return nil, err
	}
	for _, i := range undecided {
		text, ok := excerpts[rows[i].ID]
		if !ok {
			// Deleted between the two queries: its start is all there is
			// left to show.
			text = s.shaper.Excerpt(rows[i].ContentStart)
		}
		posts[i].Excerpt = text
	}
	return posts, nil
}

// shapeWhole reads the whole content of the posts rows[undecided] on t
// and returns their excerpts by ID; a post deleted since has none. It
// returns an error when the query fails.
func (s *Store) shapeWhole(ctx context.Context, t *target, rows []pageRow, undecided []int) (map[uint64]string, error) {
	ids := make([]any, len(undecided))
	for j, i := range undecided {
		ids[j] = rows[i].ID
	}
	var whole []wholeRow
	if err := t.db.SelectContext(ctx, &whole, wholeQuery(s.driver, s.table, len(ids)), ids...); err != nil {
		return nil, fmt.Errorf("wpdb: content of %d posts: %w", len(ids), unavailable(err))
	}
	excerpts := make(map[uint64]string, len(whole))
	for _, w := range whole {
		excerpts[w.ID] = s.shaper.Excerpt(w.Content)
		// Keyed by what this query read: an edit between the two queries
		// must not file the new excerpt under the old version.
		s.memo.Put(excerpt.Version{ID: w.ID, Modified: w.Modified, Length: w.ContentLength}, excerpts[w.ID])
	}
	return excerpts, nil
}
