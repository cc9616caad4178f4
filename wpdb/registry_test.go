package wpdb_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestRegistryKept reads the registry option through its changes: a good
// one is used; a truncated one, one of a newer schema and one naming a
// post type WordPress cannot have keep the last good one in use, each with
// one log line however often it is read again; a missing option is none.
// The terms snapshot carries the registry in use and its taxonomy's terms.
func TestRegistryKept(t *testing.T) {
	t.Parallel()
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.New(t, driver, "wp_")
			db := wpdbtest.OpenDB(t, cfg)
			set := func(value string) {
				t.Helper()
				if _, err := db.Exec("DELETE FROM wp_options WHERE option_name = ?", blog.RegistryOption); err != nil {
					t.Fatal(err)
				}
				if value == "" {
					return
				}
				if _, err := db.Exec("INSERT INTO wp_options (option_name, option_value, autoload) VALUES (?, ?, 'no')", blog.RegistryOption, value); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := db.Exec("INSERT INTO wp_terms (term_id, name, slug) VALUES (5, 'Jazz', 'jazz')"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("INSERT INTO wp_term_taxonomy (term_taxonomy_id, term_id, taxonomy, description, count) VALUES (5, 5, 'genre', '', 0)"); err != nil {
				t.Fatal(err)
			}
			const good = `{"schema":1,"post_types":{"book":{"publicly_queryable":true}},` +
				`"taxonomies":{"genre":{"publicly_queryable":true,"query_var":"genre","object_types":["book"]}}}`
			var logs bytes.Buffer
			store, err := wpdb.Open(context.Background(), cfg, slog.New(slog.NewTextHandler(&logs, nil)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { store.Close() })
			read := func() *blog.Registry {
				t.Helper()
				o, err := store.Options(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				return o.Registry
			}
			if read() != nil {
				t.Fatal("a registry with no option")
			}
			set(good)
			first := read()
			if _, ok := first.PostType("book"); !ok {
				t.Fatalf("registry %+v has no book", first)
			}
			terms, err := store.Terms(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if terms.Registry() != first {
				t.Error("the terms snapshot does not carry the registry in use")
			}
			q, err := blog.ParseArchiveIn(map[string][]string{"genre": {"jazz"}}, terms.Registry())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := terms.Resolve(q); err != nil {
				t.Errorf("genre=jazz: %v", err)
			}
			for _, bad := range []struct{ value, says string }{
				{good[:40], "is not a registry"},
				{`{"schema":2,"post_types":{}}`, "newer schema"},
				{`{"schema":1,"post_types":{"book') OR 1=1 --":{}}}`, "post type WordPress cannot have"},
			} {
				set(bad.value)
				before := strings.Count(logs.String(), bad.says)
				for range 3 {
					if got := read(); got != first {
						t.Errorf("%s: registry %+v in use, not the last good one", bad.value, got)
					}
				}
				if n := strings.Count(logs.String(), bad.says) - before; n != 1 {
					t.Errorf("%s: %d log lines saying %q, want 1:\n%s", bad.value, n, bad.says, logs.String())
				}
			}
			set("")
			if got := read(); got != nil {
				t.Errorf("registry %+v in use once the option is gone", got)
			}
		})
	}
}
