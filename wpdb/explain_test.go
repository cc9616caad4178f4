package wpdb_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// explainRows fills cfg's table with enough rows of mixed types and
// statuses that the planners' choices are the ones a real site gets.
func explainRows(t *testing.T, cfg wpdb.Config, db *sql.DB) {
	t.Helper()
	types := []string{"post", "post", "post", "page", "attachment", "revision", "nav_menu_item"}
	statuses := []string{"publish", "publish", "publish", "draft", "inherit", "trash"}
	var rows []wpdbtest.Row
	for i := range 3000 {
		rows = append(rows, wpdbtest.Row{
			Type:    types[i%len(types)],
			Status:  statuses[i%len(statuses)],
			Date:    fmt.Sprintf("2023-%02d-%02d %02d:%02d:00", 1+i%12, 1+i%28, i%24, i%60),
			Title:   fmt.Sprintf("Post %d", i),
			Name:    fmt.Sprintf("post-%d", i),
			Content: strings.Repeat("<p>Some content. </p>", 50),
		})
	}
	if _, err := wpdbtest.InsertDB(context.Background(), db, cfg.TablePrefix, rows...); err != nil {
		t.Fatal(err)
	}
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
}

// TestExplainMySQL proves the inner page query reads only the
// type_status_date index ("Using index") in index order (no filesort), and
// the outer one fetches rows by primary key.
func TestExplainMySQL(t *testing.T) {
	cfg := wpdbtest.MySQL(t)
	db := wpdbtest.OpenDB(t, cfg)
	explainRows(t, cfg, db)
	for _, pt := range planTypes {
		t.Run(pt.name, func(t *testing.T) {
			c := cfg
			c.PostTypes = pt.types
			s := open(t, c)
			query, args := wpdb.PostsQuery(s)
			args = append(args, 10, 500)
			plan := queryStrings(t, db, "EXPLAIN "+query, args...)
			var derived, outer map[string]string
			for _, row := range plan {
				// A temporary table would hold full rows, TEXT columns
				// included, which MariaDB writes to disk: the outer sort must
				// be over the derived (ID, post_date) rows only.
				if strings.Contains(row["Extra"], "Using temporary") {
					t.Errorf("plan uses a temporary table: %v", row)
				}
				t.Logf("EXPLAIN: id=%s select_type=%s table=%s type=%s key=%s rows=%s Extra=%s",
					row["id"], row["select_type"], row["table"], row["type"], row["key"], row["rows"], row["Extra"])
				switch {
				case row["select_type"] == "DERIVED":
					derived = row
				case row["table"] == "p":
					outer = row
				}
			}
			if derived == nil || outer == nil {
				t.Fatalf("plan has no derived table or no outer read of p: %v", plan)
			}
			if derived["key"] != "type_status_date" || !strings.Contains(derived["Extra"], "Using index") {
				t.Errorf("inner scan: key=%q Extra=%q, want type_status_date and Using index", derived["key"], derived["Extra"])
			}
			if len(pt.types) == 1 && strings.Contains(derived["Extra"], "filesort") {
				t.Errorf("inner scan sorts: Extra=%q, want a backward index scan", derived["Extra"])
			}
			if outer["key"] != "PRIMARY" || outer["type"] != "eq_ref" {
				t.Errorf("outer read: type=%q key=%q, want eq_ref on PRIMARY", outer["type"], outer["key"])
			}
		})
	}
}

// TestExplainSQLite checks the same with SQLite's EXPLAIN QUERY PLAN: the
// page subquery is a covering-index scan of <prefix>posts__type_status_date
// with no temporary B-tree for its ORDER BY.
func TestExplainSQLite(t *testing.T) {
	cfg := wpdbtest.SQLite(t)
	db := wpdbtest.OpenDB(t, cfg)
	explainRows(t, cfg, db)
	for _, pt := range planTypes {
		t.Run(pt.name, func(t *testing.T) {
			c := cfg
			c.PostTypes = pt.types
			s := open(t, c)
			_, args := wpdb.PostsQuery(s)
			args = append(args, 10, 500)
			inner := wpdb.InnerPostsQuery(s)
			plan := queryStrings(t, db, "EXPLAIN QUERY PLAN "+inner, args...)
			var details []string
			for _, row := range plan {
				details = append(details, row["detail"])
			}
			t.Logf("EXPLAIN QUERY PLAN (inner): %q", details)
			all := strings.Join(details, "\n")
			if !strings.Contains(all, "USING COVERING INDEX wp_posts__type_status_date") {
				t.Errorf("inner plan does not use the covering index: %q", details)
			}
			if len(pt.types) == 1 && strings.Contains(all, "TEMP B-TREE") {
				t.Errorf("inner plan sorts: %q", details)
			}

			query, _ := wpdb.PostsQuery(s)
			plan = queryStrings(t, db, "EXPLAIN QUERY PLAN "+query, args...)
			details = details[:0]
			for _, row := range plan {
				details = append(details, row["detail"])
			}
			t.Logf("EXPLAIN QUERY PLAN (whole): %q", details)
			all = strings.Join(details, "\n")
			if !strings.Contains(all, "USING COVERING INDEX wp_posts__type_status_date") ||
				!strings.Contains(all, "USING INTEGER PRIMARY KEY") {
				t.Errorf("page plan is not index scan then primary-key lookups: %q", details)
			}
			if len(pt.types) == 1 && strings.Contains(all, "TEMP B-TREE") {
				t.Errorf("page plan sorts: %q", details)
			}
		})
	}
}
