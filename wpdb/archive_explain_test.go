package wpdb_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// explainPosts is the size of the seeded site the archive plans are
// checked on: News holds about half its posts, Archive Oddities about
// 0.1% (see package sitegen).
const explainPosts = 4000

// explainSite seeds the fixture's site into a database of driver, analyzes
// it, and returns a store on it with its terms, and a connection pool.
func explainSite(t *testing.T, driver string) (*wpdb.Store, *blog.Terms, *sql.DB) {
	t.Helper()
	cfg := wpdbtest.New(t, driver, "wp_")
	seedSite(t, cfg, explainPosts)
	db := wpdbtest.OpenDB(t, cfg)
	analyze := "ANALYZE TABLE wp_posts, wp_term_relationships, wp_term_taxonomy"
	if driver == wpdb.DriverSQLite {
		analyze = "ANALYZE"
	}
	if _, err := db.Exec(analyze); err != nil {
		t.Fatal(err)
	}
	store := open(t, cfg)
	terms, err := store.Terms(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return store, terms, db
}

// archivePosition returns the ID of the post at position n of the
// archive, for keyset pages deep in it.
func archivePosition(t *testing.T, store *wpdb.Store, a blog.Archive, n int) uint64 {
	t.Helper()
	posts, err := store.Posts(context.Background(), blog.Page{In: a, Offset: n, Limit: 1})
	if err != nil || len(posts) != 1 {
		t.Fatalf("post at %d: %d posts, %v", n, len(posts), err)
	}
	return posts[0].ID
}

// TestArchivePlanChoice checks the threshold on the seeded site: the
// category holding half the posts is walked at any depth, the one holding
// 0.1% read from term_relationships; a deep offset page of a small
// category turns sparse where its first page is walked.
func TestArchivePlanChoice(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: seeds a site of 4 000 posts")
	}
	t.Parallel()
	_, terms, _ := explainSite(t, wpdb.DriverSQLite)
	news, rare := wpdbtest.ResolveArchive(t, terms, "category_name=news"), wpdbtest.ResolveArchive(t, terms, "category_name=archive-oddities")
	travel, tech := wpdbtest.ResolveArchive(t, terms, "category_name=travel"), wpdbtest.ResolveArchive(t, terms, "category_name=technology")
	for _, slug := range []string{"news", "travel", "technology", "archive-oddities"} {
		c, _ := terms.CategoryBySlug(slug)
		t.Logf("%s: %d of %d published posts", slug, c.Count, terms.Published())
	}
	for _, c := range []struct {
		name   string
		a      blog.Archive
		walk   int
		sparse bool
	}{
		{"news, first page", news, 10, false},
		{"news, offset 1500", news, 1510, false},
		{"archive-oddities, first page", rare, 10, true},
		{"archive-oddities, a page of 1", rare, 1, true},
		{"travel with its children, first page", travel, 10, false},
		{"travel with its children, offset 400", travel, 410, false},
		{"technology, first page", tech, 10, false},
		{"technology, offset 80", tech, 90, true},
		{"a year", wpdbtest.ResolveArchive(t, terms, "year=2015"), 10, false},
		{"archive-oddities and a tag", wpdbtest.ResolveArchive(t, terms, "category_name=archive-oddities&tag=quick-recipes"), 10, true},
	} {
		if got := wpdb.ArchiveSparse(c.a, c.walk); got != c.sparse {
			t.Errorf("%s: sparse %v, want %v", c.name, got, c.sparse)
		}
	}
}

// TestArchiveExplainMySQL proves the two plans on MariaDB: the dense
// category walks type_status_date backwards, index only, with no filesort,
// probing term_relationships' primary key once a post (a dependent
// subquery, never a materialized one), and its keyset page is a range of
// all four index columns; the sparse category is read from
// term_relationships' term_taxonomy_id index and its posts by primary key.
// ANALYZE counts the entries each reads.
func TestArchiveExplainMySQL(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: seeds a site of 4 000 posts")
	}
	t.Parallel()
	store, terms, db := explainSite(t, wpdb.DriverMySQL)
	news, rare := wpdbtest.ResolveArchive(t, terms, "category_name=news"), wpdbtest.ResolveArchive(t, terms, "category_name=archive-oddities")
	deep := archivePosition(t, store, news, 1000)

	dense := mysqlPlan(t, db, wpdb.ArchiveQueryText(store, news, 0, 500, 10))
	dense.requireWalk(t, "news at offset 500", "ref")
	keyset := mysqlPlan(t, db, wpdb.ArchiveQueryText(store, news, deep, 0, 10))
	keyset.requireWalk(t, "news after its 1000th post", "range")
	sparse := mysqlPlan(t, db, wpdb.ArchiveQueryText(store, rare, 0, 0, 10))
	sparse.requireSparse(t, "archive-oddities")
	mysqlPlan(t, db, wpdb.ArchiveQueryText(store, rare, archivePosition(t, store, rare, 0), 0, 10)).requireSparse(t, "archive-oddities after its first post")

	// What each reads, in index entries.
	for _, c := range []struct {
		name  string
		query string
		max   float64
	}{
		{"news, keyset after post 1000, 10 posts", wpdb.ArchiveQueryText(store, news, deep, 0, 10), 60},
		{"news, offset 0, 10 posts", wpdb.ArchiveQueryText(store, news, 0, 0, 10), 60},
		{"news, offset 1000, 10 posts", wpdb.ArchiveQueryText(store, news, 0, 1000, 10), explainPosts},
		{"archive-oddities, 10 posts", wpdb.ArchiveQueryText(store, rare, 0, 0, 10), 20},
		{"archive-oddities walked instead", wpdb.DenseArchiveQueryText(store, rare, 0, 0, 10), explainPosts},
	} {
		read := analyzedRows(t, db, c.query)
		t.Logf("ANALYZE %s: %v entries read", c.name, read)
		if read > c.max {
			t.Errorf("%s: %v entries read, want at most %v", c.name, read, c.max)
		}
	}
}

// mysqlExplain is MariaDB's EXPLAIN of an archive query.
type mysqlExplain []map[string]string

func mysqlPlan(t *testing.T, db *sql.DB, query string) mysqlExplain {
	t.Helper()
	plan := mysqlExplain(queryStrings(t, db, "EXPLAIN "+query))
	for _, row := range plan {
		t.Logf("EXPLAIN: id=%s select_type=%s table=%s type=%s key=%s key_len=%s rows=%s Extra=%s",
			row["id"], row["select_type"], row["table"], row["type"], row["key"], row["key_len"], row["rows"], row["Extra"])
	}
	return plan
}

// requireWalk checks a dense plan: access is how type_status_date is
// read ("ref" from the top, "range" from a keyset position).
func (plan mysqlExplain) requireWalk(t *testing.T, name, access string) {
	t.Helper()
	var walks, probes int
	for _, row := range plan {
		switch {
		case row["select_type"] == "MATERIALIZED" || strings.Contains(row["Extra"], "Using temporary"):
			t.Errorf("%s: materializes or sorts in a temporary table: %v", name, row)
		case row["key"] == "type_status_date":
			walks++
			if row["type"] != access || strings.Contains(row["Extra"], "filesort") || !strings.Contains(row["Extra"], "Using index") ||
				access == "range" && row["key_len"] != "177" {
				t.Errorf("%s: walk %v, want an index-only %s of type_status_date (all four columns for a range), no filesort", name, row, access)
			}
		case row["table"] == "tr":
			probes++
			if row["select_type"] != "DEPENDENT SUBQUERY" || row["key"] != "PRIMARY" {
				t.Errorf("%s: term probe %v, want a dependent subquery on term_relationships' primary key", name, row)
			}
		}
	}
	if walks != 1 || probes != 1 {
		t.Errorf("%s: %d walks of type_status_date and %d probes of term_relationships, want 1 and 1", name, walks, probes)
	}
}

// requireSparse checks a sparse plan: term_relationships by its
// term_taxonomy_id index, then each post by primary key.
func (plan mysqlExplain) requireSparse(t *testing.T, name string) {
	t.Helper()
	var terms, rows bool
	for _, row := range plan {
		switch {
		case row["key"] == "type_status_date":
			t.Errorf("%s: walks type_status_date: %v", name, row)
		case row["table"] == "wp_term_relationships":
			terms = row["key"] == "term_taxonomy_id" && strings.Contains(row["Extra"], "Using index")
		case row["table"] == "p" && row["type"] == "eq_ref" && row["ref"] == "r.object_id":
			rows = row["key"] == "PRIMARY"
		}
	}
	if !terms || !rows {
		t.Errorf("%s: want term_relationships read by its term_taxonomy_id index, then posts by primary key", name)
	}
}

// analyzedRows runs query with ANALYZE and returns the entries read from
// type_status_date and from term_relationships' term_taxonomy_id index.
func analyzedRows(t *testing.T, db *sql.DB, query string) float64 {
	t.Helper()
	analyzed := queryStrings(t, db, "ANALYZE FORMAT=JSON "+query)
	var plan any
	if len(analyzed) != 1 || json.Unmarshal([]byte(analyzed[0]["ANALYZE"]), &plan) != nil {
		t.Fatalf("ANALYZE FORMAT=JSON: %v", analyzed)
	}
	var read float64
	for _, table := range jsonTables(plan) {
		if key := table["key"]; key == "type_status_date" || key == "term_taxonomy_id" {
			r, _ := table["r_rows"].(float64)
			loops, _ := table["r_loops"].(float64)
			read += r * max(loops, 1)
		}
	}
	return read
}

// TestArchiveExplainSQLite checks the same plans with SQLite's EXPLAIN
// QUERY PLAN: the dense category a covering-index search of
// type_status_date (a range on post_date after a keyset position) with a
// correlated probe of term_relationships' primary key and nothing sorted;
// the sparse one a search of term_relationships' term_taxonomy_id index,
// then posts by primary key.
func TestArchiveExplainSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: seeds a site of 4 000 posts")
	}
	t.Parallel()
	store, terms, db := explainSite(t, wpdb.DriverSQLite)
	news, rare := wpdbtest.ResolveArchive(t, terms, "category_name=news"), wpdbtest.ResolveArchive(t, terms, "category_name=archive-oddities")
	deep := archivePosition(t, store, news, 1000)
	plan := func(query string) string {
		var details []string
		for _, row := range queryStrings(t, db, "EXPLAIN QUERY PLAN "+query) {
			details = append(details, row["detail"])
		}
		t.Logf("EXPLAIN QUERY PLAN: %q", details)
		return strings.Join(details, "\n")
	}
	probe := "SEARCH tr USING COVERING INDEX sqlite_autoindex_wp_term_relationships_1 (object_id=? AND term_taxonomy_id=?)"
	for _, c := range []struct {
		name, query, walk string
	}{
		{"news at offset 500", wpdb.ArchiveQueryText(store, news, 0, 500, 10), "(post_type=? AND post_status=?)"},
		{"news after its 1000th post", wpdb.ArchiveQueryText(store, news, deep, 0, 10), "(post_type=? AND post_status=? AND post_date<?)"},
	} {
		got := plan(c.query)
		if !strings.Contains(got, "SEARCH p USING COVERING INDEX wp_posts__type_status_date "+c.walk) ||
			!strings.Contains(got, "CORRELATED SCALAR SUBQUERY") || !strings.Contains(got, probe) || strings.Contains(got, "TEMP B-TREE") {
			t.Errorf("%s: want a covering-index search of type_status_date %s probing term_relationships' primary key, nothing sorted", c.name, c.walk)
		}
	}
	got := plan(wpdb.ArchiveQueryText(store, rare, 0, 0, 10))
	if !strings.Contains(got, "SEARCH wp_term_relationships USING INDEX wp_term_relationships__term_taxonomy_id (term_taxonomy_id=?)") ||
		!strings.Contains(got, "SEARCH p USING INTEGER PRIMARY KEY (rowid=?)") || strings.Contains(got, "type_status_date") {
		t.Errorf("archive-oddities: want term_relationships by term_taxonomy_id, then posts by primary key")
	}
}
