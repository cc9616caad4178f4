package wpdb_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// explainRows fills cfg's table with enough rows of mixed types and
// statuses that the planners' choices are the ones a real site gets.
func explainRows(t *testing.T, cfg wpdb.Config, db *sql.DB) {
	t.Helper()
	types := []string{"post", "post", "post", "page", "attachment", "revision", "nav_menu_item"}
	statuses := []string{"publish", "publish", "publish", "draft", "inherit", "trash"}
	var rows []wpsite.Post
	for i := range 3000 {
		rows = append(rows, wpsite.Post{
			Type:    types[i%len(types)],
			Status:  statuses[i%len(statuses)],
			Date:    fmt.Sprintf("2023-%02d-%02d %02d:%02d:00", 1+i%12, 1+i%28, i%24, i%60),
			Title:   fmt.Sprintf("Post %d", i),
			Name:    fmt.Sprintf("post-%d", i),
			Content: strings.Repeat("<p>Some content. </p>", 50),
		})
	}
	wpdbtest.Insert(t, cfg, rows...)
	analyze := "ANALYZE TABLE wp_posts"
	if cfg.Driver == wpdb.DriverSQLite {
		analyze = "ANALYZE"
	}
	if _, err := db.Exec(analyze); err != nil {
		t.Fatal(err)
	}
}

// queryStrings runs query and returns its rows as maps of column to text.
func queryStrings(t testing.TB, db *sql.DB, query string, args ...any) []map[string]string {
	t.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for i, c := range cols {
			m[c] = vals[i].String
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var planTypes = []struct {
	name  string
	types []string
}{
	{"post only", []string{"post"}},
	{"post and page", []string{"post", "page"}},
	{"three types", []string{"post", "page", "attachment"}},
}

// TestExplainMySQL proves every read of wp_posts in the inner page query is
// a scan of the type_status_date index alone ("Using index") in index order
// (no filesort), that the outer query fetches rows by primary key, and that
// no temporary table holds full rows; and that the keyset page seeks
// instead (see checkMySQLKeysetPlan).
func TestExplainMySQL(t *testing.T) {
	cfg := wpdbtest.MySQL(t)
	db := wpdbtest.OpenDB(t, cfg)
	explainRows(t, cfg, db)
	for _, pt := range planTypes {
		t.Run(pt.name, func(t *testing.T) {
			c := cfg
			c.PostTypes = pt.types
			store := open(t, c)
			query, args := wpdb.PostsQuery(store, 500, 10)
			plan := queryStrings(t, db, "EXPLAIN "+query, args...)
			var scans int
			var outer map[string]string
			for _, row := range plan {
				t.Logf("EXPLAIN: id=%s select_type=%s table=%s type=%s key=%s rows=%s Extra=%s",
					row["id"], row["select_type"], row["table"], row["type"], row["key"], row["rows"], row["Extra"])
				// A temporary table would hold full rows, TEXT columns
				// included, which MariaDB writes to disk: the outer sort must
				// be over the derived (ID, post_date) rows only.
				if strings.Contains(row["Extra"], "Using temporary") {
					t.Errorf("plan uses a temporary table: %v", row)
				}
				switch row["table"] {
				case "p":
					outer = row
				case "wp_posts":
					scans++
					if row["key"] != "type_status_date" || !strings.Contains(row["Extra"], "Using index") ||
						strings.Contains(row["Extra"], "filesort") {
						t.Errorf("inner scan: key=%q Extra=%q, want an index-only scan of type_status_date with no filesort",
							row["key"], row["Extra"])
					}
				}
			}
			if scans != len(pt.types) {
				t.Errorf("plan has %d scans of wp_posts, want one per post type (%d)", scans, len(pt.types))
			}
			if outer == nil || outer["key"] != "PRIMARY" || outer["type"] != "eq_ref" {
				t.Errorf("outer read: %v, want eq_ref on PRIMARY", outer)
			}
			checkMySQLKeysetPlan(t, db, store, len(pt.types))
		})
	}
}

// checkMySQLKeysetPlan proves the keyset page seeks: MariaDB's EXPLAIN
// shows each post type's read of wp_posts as a range of the
// type_status_date index on all four of its columns ("Using index", no
// filesort), the position read by primary key, and ANALYZE, which runs the
// query, counts LIMIT index entries read per type (r_rows) at position 500
// of about 640.
func checkMySQLKeysetPlan(t *testing.T, db *sql.DB, store *wpdb.Store, types int) {
	t.Helper()
	all, err := store.Posts(context.Background(), blog.Page{Offset: 0, Limit: 1000})
	if err != nil || len(all) < 501 {
		t.Fatalf("%d posts, %v", len(all), err)
	}
	query, args := wpdb.KeysetQuery(store, all[500].ID, 501, 10)
	var seeks, positions int
	for _, row := range queryStrings(t, db, "EXPLAIN "+query, args...) {
		t.Logf("EXPLAIN: id=%s select_type=%s table=%s type=%s key=%s key_len=%s rows=%s Extra=%s",
			row["id"], row["select_type"], row["table"], row["type"], row["key"], row["key_len"], row["rows"], row["Extra"])
		if strings.Contains(row["Extra"], "Using temporary") {
			t.Errorf("plan uses a temporary table: %v", row)
		}
		switch {
		case row["table"] != "wp_posts":
		case row["select_type"] == "SUBQUERY":
			positions++
			if row["key"] != "PRIMARY" || row["type"] != "const" {
				t.Errorf("position read: %v, want const on PRIMARY", row)
			}
		default:
			seeks++
			// post_type and post_status (82 bytes each in utf8mb4),
			// post_date (5) and ID (8): the whole key.
			if row["type"] != "range" || row["key"] != "type_status_date" || row["key_len"] != "177" ||
				!strings.Contains(row["Extra"], "Using index") || strings.Contains(row["Extra"], "filesort") {
				t.Errorf("inner read: %v, want an index-only range of type_status_date on its four columns, no filesort", row)
			}
		}
	}
	if seeks != types || positions == 0 {
		t.Errorf("plan has %d seeks of wp_posts and %d position reads, want one seek per post type (%d)", seeks, positions, types)
	}
	analyzed := queryStrings(t, db, "ANALYZE FORMAT=JSON "+query, args...)
	var plan any
	if len(analyzed) != 1 || json.Unmarshal([]byte(analyzed[0]["ANALYZE"]), &plan) != nil {
		t.Fatalf("ANALYZE FORMAT=JSON: %v", analyzed)
	}
	read := 0
	for _, table := range jsonTables(plan) {
		if table["key"] == "type_status_date" {
			r, _ := table["r_rows"].(float64)
			t.Logf("ANALYZE: %s %s r_rows=%v", table["access_type"], table["key"], table["r_rows"])
			if r > 10 {
				t.Errorf("a seek read %v index entries, want at most LIMIT (10)", r)
			}
			read++
		}
	}
	if read != types {
		t.Errorf("ANALYZE shows %d reads of type_status_date, want %d", read, types)
	}
	checkMySQLGonePlan(t, db, store, types)
}

// checkMySQLGonePlan proves the keyset query's two branches exclude each
// other before reading: with the position's row there, the offset branch
// is an "Impossible WHERE" (checked above through ANALYZE's reads); with it
// gone, ANALYZE reads no entry for the seek and the offset's entries for
// the offset branch, one scan per post type.
func checkMySQLGonePlan(t *testing.T, db *sql.DB, store *wpdb.Store, types int) {
	t.Helper()
	query, args := wpdb.KeysetQuery(store, 1<<40, 100, 10)
	for _, row := range queryStrings(t, db, "EXPLAIN "+query, args...) {
		t.Logf("EXPLAIN, position gone: id=%s select_type=%s table=%s type=%s key=%s rows=%s Extra=%s",
			row["id"], row["select_type"], row["table"], row["type"], row["key"], row["rows"], row["Extra"])
	}
	analyzed := queryStrings(t, db, "ANALYZE FORMAT=JSON "+query, args...)
	var plan any
	if len(analyzed) != 1 || json.Unmarshal([]byte(analyzed[0]["ANALYZE"]), &plan) != nil {
		t.Fatalf("ANALYZE FORMAT=JSON: %v", analyzed)
	}
	var scans, seeks int
	for _, table := range jsonTables(plan) {
		if table["key"] != "type_status_date" {
			continue
		}
		r, _ := table["r_rows"].(float64)
		t.Logf("ANALYZE, position gone: %s %s r_rows=%v", table["access_type"], table["key"], table["r_rows"])
		switch {
		case table["access_type"] == "range":
			seeks++
			if r > 0 {
				t.Errorf("with the position gone, a seek read %v index entries, want none", r)
			}
		case r < 110 || r > 120:
			t.Errorf("the offset branch read %v index entries, want OFFSET+LIMIT (110)", r)
		default:
			scans++
		}
	}
	if scans != types {
		t.Errorf("with the position gone, ANALYZE shows %d offset scans (and %d seeks), want one per post type (%d)", scans, seeks, types)
	}
}

// jsonTables returns every "table" object in a MariaDB JSON plan.
func jsonTables(v any) []map[string]any {
	var out []map[string]any
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			if table, ok := child.(map[string]any); ok && k == "table" {
				out = append(out, table)
			}
			out = append(out, jsonTables(child)...)
		}
	case []any:
		for _, child := range v {
			out = append(out, jsonTables(child)...)
		}
	}
	return out
}

// TestExplainSQLite checks the same with SQLite's EXPLAIN QUERY PLAN, for
// the offset and the keyset page: each post type is a covering-index
// search of <prefix>posts__type_status_date, rows are fetched by primary
// key, and with one type nothing is sorted.
func TestExplainSQLite(t *testing.T) {
	cfg := wpdbtest.SQLite(t)
	db := wpdbtest.OpenDB(t, cfg)
	explainRows(t, cfg, db)
	for _, pt := range planTypes {
		t.Run(pt.name, func(t *testing.T) {
			c := cfg
			c.PostTypes = pt.types
			store := open(t, c)
			query, args := wpdb.PostsQuery(store, 500, 10)
			checkSQLitePlan(t, db, query, args, "(post_type=? AND post_status=?)", len(pt.types), false)
			// The keyset page seeks to the position: a range on post_date.
			// Its other branch, the offset's when the position is gone,
			// makes the page a compound, whose at most LIMIT rows the
			// outer query sorts.
			query, args = wpdb.KeysetQuery(store, 1500, 501, 10)
			checkSQLitePlan(t, db, query, args, "(post_type=? AND post_status=? AND post_date<?)", len(pt.types), true)
		})
	}
}

// checkSQLitePlan checks SQLite's plan of query: one covering-index search
// of type_status_date on the given terms per post type, rows fetched by
// primary key, and with one type nothing sorted unless pageSorted.
func checkSQLitePlan(t *testing.T, db *sql.DB, query string, args []any, terms string, types int, pageSorted bool) {
	t.Helper()
	var details []string
	for _, row := range queryStrings(t, db, "EXPLAIN QUERY PLAN "+query, args...) {
		details = append(details, row["detail"])
	}
	t.Logf("EXPLAIN QUERY PLAN: %q", details)
	all := strings.Join(details, "\n")
	search := "SEARCH wp_posts USING COVERING INDEX wp_posts__type_status_date " + terms
	if got := strings.Count(all, search); got != types {
		t.Errorf("plan has %d covering-index searches %s, want one per post type (%d): %q", got, terms, types, details)
	}
	if strings.Contains(all, "SCAN wp_posts") || !strings.Contains(all, "SEARCH p USING INTEGER PRIMARY KEY") {
		t.Errorf("plan is not index searches then primary-key lookups: %q", details)
	}
	if types == 1 && !pageSorted && strings.Contains(all, "TEMP B-TREE") {
		t.Errorf("plan sorts: %q", details)
	}
}
