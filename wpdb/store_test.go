package wpdb_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// open opens a Store for cfg and closes it when t ends.
func open(t testing.TB, cfg wpdb.Config) *wpdb.Store {
	t.Helper()
	s, err := wpdb.Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func ids(posts []blog.Post) []uint64 {
	out := []uint64{}
	for _, p := range posts {
		out = append(out, p.ID)
	}
	return out
}

// goldenJSON is posts as the golden files hold them: the five fields of the
// PHP script's answer, with the excerpt as post_content. The files predate
// the wire format's move into the server; keeping their bytes shows the
// values did not change.
func goldenJSON(t *testing.T, posts []blog.Post) []byte {
	t.Helper()
	type record struct {
		ID      uint64 `json:"ID"`
		Title   string `json:"post_title"`
		Excerpt string `json:"post_content"`
		Name    string `json:"post_name"`
		Date    string `json:"post_date"`
	}
	records := make([]record, len(posts))
	for i, p := range posts {
		records[i] = record{p.ID, p.Title, p.Excerpt, p.Name, p.Date}
	}
	got, err := json.MarshalIndent(records, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(got, '\n')
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

// TestStore runs one suite against each driver on the same fixture; both
// must produce the same golden JSON.
func TestStore(t *testing.T) {
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			rows := fixture()
			cfg := wpdbtest.New(t, driver, "wp_")
			wpdbtest.Insert(t, cfg, rows...)
			s := open(t, cfg)
			ctx := context.Background()
			if got := s.Driver(); got != driver {
				t.Errorf("Driver() = %q, want %q", got, driver)
			}

			t.Run("golden JSON", func(t *testing.T) {
				posts, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				golden(t, "posts.golden.json", goldenJSON(t, posts))
			})

			t.Run("only published posts, newest first", func(t *testing.T) {
				posts, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(publishedIDs(rows, "post"), ids(posts)); diff != "" {
					t.Errorf("IDs (-want +got):\n%s", diff)
				}
			})

			for _, k := range []int{1, 2, 3, 7} {
				t.Run(fmt.Sprintf("paging K=%d", k), func(t *testing.T) {
					var got []uint64
					for offset := 0; ; offset += k {
						page, err := s.Posts(ctx, blog.Page{Offset: offset, Limit: k})
						if err != nil {
							t.Fatalf("Posts(%d, %d): %v", offset, k, err)
						}
						if len(page) > k {
							t.Fatalf("Posts(%d, %d) returned %d posts", offset, k, len(page))
						}
						got = append(got, ids(page)...)
						if len(page) < k {
							break
						}
					}
					if diff := cmp.Diff(publishedIDs(rows, "post"), got); diff != "" {
						t.Errorf("IDs over all pages (-want +got):\n%s", diff)
					}
				})
			}

			for _, tt := range []struct {
				name          string
				offset, limit int
			}{
				{"past the end", 1000, 2},
				{"limit zero", 0, 0},
			} {
				t.Run(tt.name, func(t *testing.T) {
					posts, err := s.Posts(ctx, blog.Page{Offset: tt.offset, Limit: tt.limit})
					if err != nil {
						t.Fatal(err)
					}
					if posts == nil || len(posts) != 0 {
						t.Errorf("Posts(%d, %d) = %#v, want an empty non-nil slice", tt.offset, tt.limit, posts)
					}
					if b, _ := json.Marshal(posts); string(b) != "[]" {
						t.Errorf("JSON = %s, want []", b)
					}
				})
			}

			for _, tt := range []struct {
				name          string
				offset, limit int
			}{
				{"negative offset", -1, 2},
				{"negative limit", 0, -2},
				{"offset overflows", math.MaxInt, 2},
			} {
				t.Run(tt.name, func(t *testing.T) {
					if _, err := s.Posts(ctx, blog.Page{Offset: tt.offset, Limit: tt.limit}); err == nil {
						t.Errorf("Posts(%d, %d) succeeded, want an error", tt.offset, tt.limit)
					}
				})
			}

			t.Run("canceled context", func(t *testing.T) {
				cctx, cancel := context.WithCancel(ctx)
				cancel()
				_, err := s.Posts(cctx, blog.Page{Offset: 0, Limit: 2})
				if !errors.Is(err, context.Canceled) || !errors.Is(err, wpdb.ErrUnavailable) {
					t.Errorf("Posts error = %v, want context.Canceled and wpdb.ErrUnavailable", err)
				}
				if err != nil && !strings.HasPrefix(err.Error(), "wpdb: posts after offset 0: ") {
					t.Errorf("error %q lacks the wpdb context", err)
				}
			})

			t.Run("ping", func(t *testing.T) {
				if err := s.Ping(ctx); err != nil {
					t.Error(err)
				}
			})

			for _, tt := range []struct {
				name  string
				types []string
			}{
				{"posts and pages", []string{"post", "page"}},
				{"pages only", []string{"page"}},
				{"custom type", []string{"product", "post"}},
				{"every shown type", []string{"post", "page", "nav_menu_item", "product", "wp_block"}},
			} {
				t.Run("post types "+tt.name, func(t *testing.T) {
					c := cfg
					c.PostTypes = tt.types
					s := open(t, c)
					posts, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 100})
					if err != nil {
						t.Fatal(err)
					}
					want := publishedIDs(rows, tt.types...)
					if diff := cmp.Diff(want, ids(posts)); diff != "" {
						t.Errorf("IDs (-want +got):\n%s", diff)
					}
					// Each type is scanned separately and merged: paging must
					// still visit every post once, in order.
					for _, k := range []int{1, 2, 3} {
						var got []uint64
						for offset := 0; offset <= len(want); offset += k {
							page, err := s.Posts(ctx, blog.Page{Offset: offset, Limit: k})
							if err != nil {
								t.Fatal(err)
							}
							got = append(got, ids(page)...)
						}
						if diff := cmp.Diff(want, got); diff != "" {
							t.Errorf("IDs paging by %d (-want +got):\n%s", k, diff)
						}
					}
				})
			}
		})
	}
}

func TestStorePrefix(t *testing.T) {
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.New(t, driver, "blog2_")
			wpdbtest.Insert(t, cfg, wpsite.Post{ID: 5, Title: "in blog2", Date: "2024-05-05 05:05:05"})
			posts, err := open(t, cfg).Posts(context.Background(), blog.Page{Offset: 0, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]uint64{5}, ids(posts)); diff != "" {
				t.Errorf("IDs (-want +got):\n%s", diff)
			}

			cfg.TablePrefix = "wp_"
			_, err = wpdb.Open(context.Background(), cfg, nil)
			if !errors.Is(err, wpdb.ErrNoPostsTable) || !strings.Contains(err.Error(), "table wp_posts not found in ") {
				t.Errorf("Open with the wrong prefix: error = %v, want table wp_posts not found", err)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.sqlite")
	// config is a Config complete but for the driver, DSN and prefix.
	config := func(driver, dsn, prefix string) wpdb.Config {
		return wpdb.Config{Driver: driver, DSN: dsn, TablePrefix: prefix, Settings: wpdb.Settings{PostTypes: []string{"post"}, QueryTimeout: 5 * time.Second}}
	}
	// silent accepts connections and never answers, as a firewall that
	// drops packets, or a server stuck before its greeting, looks.
	silent := wpdbtest.StartProxy(t, "127.0.0.1:1")
	silent.Hang()
	timeout := func(cfg wpdb.Config, d time.Duration) wpdb.Config {
		cfg.QueryTimeout = d
		return cfg
	}
	memo := func(cfg wpdb.Config, entries, bytes int) wpdb.Config {
		cfg.ExcerptMemoEntries, cfg.ExcerptMemoBytes = entries, bytes
		return cfg
	}
	tests := []struct {
		name string
		cfg  wpdb.Config
		want string
	}{
		{"bad prefix", config("sqlite", "x", "wp_'"), "table prefix"},
		{"unknown driver", config("oracle", "x", "wp_"), "unknown driver"},
		{"missing sqlite file", config("sqlite", missing, "wp_"), "connect to sqlite file " + missing},
		{"mysql without database", config("mysql", "root@tcp(127.0.0.1:3306)/", "wp_"), "names no database"},
		{"mysql closed port", config("mysql", "root@tcp(127.0.0.1:1)/wordpress", "wp_"), "connect to mysql database wordpress at TCP 127.0.0.1:1: dial tcp 127.0.0.1:1: connect: connection refused"},
		{"mysql that never answers", timeout(config("mysql", "root@tcp("+silent.Addr+")/wordpress", "wp_"), 200*time.Millisecond), "connect to mysql database wordpress at TCP " + silent.Addr + ": no answer, timed out"},
		{"mysql missing socket", config("mysql", "root@unix("+filepath.Join(t.TempDir(), "mysqld.sock")+")/wordpress", "wp_"), "connect to mysql database wordpress at Unix socket /"},
		{"mysql unknown database", config("mysql", "root@tcp(127.0.0.1:3306)/wpdbtest_no_such_db", "wp_"), "Unknown database"},
		{"mysql refused password", config("mysql", "root:wrong@tcp(127.0.0.1:3306)/wordpress", "wp_"), "Error 1045 (28000): Access denied"},
		{"zero config", wpdb.Config{}, "unknown driver"},
		{"no prefix", config("sqlite", "x", ""), "table prefix is empty"},
		{"no post types", wpdb.Config{Driver: "sqlite", DSN: "x", TablePrefix: "wp_", Settings: wpdb.Settings{QueryTimeout: time.Second}}, "no post types"},
		{"no query timeout", wpdb.Config{Driver: "sqlite", DSN: "x", TablePrefix: "wp_", Settings: wpdb.Settings{PostTypes: []string{"post"}}}, "query timeout"},
		{"negative memo entries", memo(config("sqlite", "x", "wp_"), -1, 1<<20), "excerpt memo of -1 entries"},
		{"memo without bytes", memo(config("sqlite", "x", "wp_"), 100, 0), "excerpt memo of 0 bytes"},
		{"memo of negative bytes", memo(config("sqlite", "x", "wp_"), 100, -1), "excerpt memo of -1 bytes"},
	}
	// An outage, which a server waits out at start, wraps ErrUnavailable;
	// the other rows are configurations to fix, which it must not wait on.
	outages := map[string]bool{"mysql closed port": true, "mysql that never answers": true, "mysql missing socket": true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := wpdb.Open(context.Background(), tt.cfg, nil)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
			if got := errors.Is(err, wpdb.ErrUnavailable); got != outages[tt.name] {
				t.Errorf("errors.Is(%q, ErrUnavailable) = %v, want %v", err, got, outages[tt.name])
			}
		})
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open created the missing SQLite file (stat: %v)", err)
	}
}
