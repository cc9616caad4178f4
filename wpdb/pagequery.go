package wpdb

import (
	"fmt"
	"strings"

	"github.com/wploadmore/wploadmore/blog"
)

// queryTexts are the texts of the statements a Store prepares on each of
// its databases, built once at Open.
type queryTexts struct {
	page, keyset string
	startChars   int // what each page reads of post_content, for the queries built per call
}

// buildQueries returns the statements for table (already validated) and n
// post types, reading startChars characters of each post's content.
func buildQueries(driver, table string, n, startChars int) queryTexts {
	return queryTexts{
		page:       postsQuery(driver, table, n, startChars),
		keyset:     keysetQuery(driver, table, n, startChars),
		startChars: startChars,
	}
}

// postsQuery builds the page query for table (already validated) and n
// post types, reading startChars characters of each post's content; post
// types, LIMIT and OFFSET are bound parameters (see [Store.args]). It is a
// deferred join: the inner SELECT walks the type_status_date (post_type,
// post_status, post_date, ID) index backwards, one scan per post type cut
// at OFFSET+LIMIT, so skipping OFFSET reads no row data and no IN list
// makes the database sort every post; the outer query reads the LIMIT
// full rows. docs/design.md, "Page queries", says why.
func postsQuery(driver, table string, n, startChars int) string {
	return outerPageQuery(driver, table, startChars, offsetScan(driver, table, n, ""))
}

// offsetScan is the inner (ID, post_date) query of the page after OFFSET
// entries, each post type's scan also held to the condition also (empty,
// or starting with " AND"). Its parameters are, for each post type, the
// type, those of also, and OFFSET+LIMIT when there are several types; then
// LIMIT and OFFSET.
func offsetScan(driver, table string, n int, also string) string {
	const order = " ORDER BY post_date DESC, ID DESC"
	scan := "SELECT ID, post_date FROM " + quoteIdent(driver, table) +
		" WHERE post_type = ? AND post_status = 'publish'" + also + order
	if n == 1 {
		return scan + " LIMIT ? OFFSET ?"
	}
	branches := make([]string, n)
	for i := range branches {
		branches[i] = fmt.Sprintf("SELECT ID, post_date FROM (%s LIMIT ?) AS t%d", scan, i)
	}
	return "SELECT ID, post_date FROM (" + strings.Join(branches, " UNION ALL ") + ") AS u" +
		order + " LIMIT ? OFFSET ?"
}

// outerPageQuery fetches the rows of the (ID, post_date) rows inner
// returns, by primary key, in the listing order, with the first
// startChars characters of their content (see contentColumns).
func outerPageQuery(driver, table string, startChars int, inner string) string {
	return "SELECT p.ID, p.post_title, p.post_name, p.post_type, p.post_author, p.post_parent, " + contentColumns(driver, startChars) +
		" FROM " + quoteIdent(driver, table) + " AS p" +
		" JOIN (" + inner + ") AS page ON page.ID = p.ID" +
		" ORDER BY page.post_date DESC, page.ID DESC"
}

// args returns the parameters of the page query: each post type (followed,
// when there are several, by OFFSET+LIMIT, where its own scan is cut), then
// LIMIT and OFFSET.
func (s *Store) args(offset, limit int) []any {
	args := make([]any, 0, 2*len(s.types)+2)
	for _, pt := range s.types {
		args = append(args, pt)
		if len(s.types) > 1 {
			args = append(args, offset+limit)
		}
	}
	return append(args, limit, offset)
}

// pageRow is one row of the page queries: the post's row, what names its
// version for the excerpt memo, and the start of its content.
type pageRow struct {
	postRow
	Modified      string `db:"post_modified_gmt"`
	ContentStart  string `db:"content_start"`
	ContentLength int64  `db:"content_length"`
	ContentWhole  bool   `db:"content_whole"` // ContentStart is all of it
}

// postRow is the row of a [blog.Post], as the page queries select it.
type postRow struct {
	ID        uint64 `db:"ID"`
	Title     string `db:"post_title"`
	Name      string `db:"post_name"`
	Date      string `db:"post_date"` // exactly as stored
	Type      string `db:"post_type"`
	AuthorID  uint64 `db:"post_author"`
	ParentID  uint64 `db:"post_parent"`
	Protected bool   `db:"protected"`
}

// post is the Post of r, with no excerpt or card yet.
func (r postRow) post() blog.Post {
	return blog.Post{ID: r.ID, Title: r.Title, Name: r.Name, Date: r.Date, Type: r.Type,
		AuthorID: r.AuthorID, ParentID: r.ParentID, Protected: r.Protected}
}
