package wpdb_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// TestKeysetPages pages after a post (Page.LastPost) through posts that
// share dates, of several types, and checks each page is the next slice
// of the listing, also when the last post shown has since been
// unpublished, and that a position that no longer exists falls back to
// the offset.
func TestKeysetPages(t *testing.T) {
	t.Parallel()
	for _, driver := range wpdbtest.Drivers() {
		for _, types := range [][]string{{"post"}, {"post", "page"}} {
			t.Run(driver+"/"+strings.Join(types, ","), func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				cfg := wpdbtest.New(t, driver, "wp_")
				cfg.PostTypes = types
				var rows []wpsite.Post
				for i := range 30 {
					rows = append(rows, wpsite.Post{Type: []string{"post", "page", "attachment"}[i%3],
						Date: fmt.Sprintf("2024-01-%02d 10:00:00", 1+i%7), Title: "t" + strconv.Itoa(i)}) // ties on the date
				}
				wpdbtest.Insert(t, cfg, rows...)
				store := wpdbtest.Store(t, cfg)
				all, err := store.Posts(ctx, blog.Page{Offset: 0, Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				for i := range all {
					got, err := store.Posts(ctx, blog.Page{LastPost: all[i].ID, Offset: 999, Limit: 3})
					if err != nil {
						t.Fatalf("page after post %d: %v", all[i].ID, err)
					}
					if diff := cmp.Diff(ids(all[i+1:min(i+4, len(all))]), ids(got)); diff != "" {
						t.Errorf("after post %d (position %d) (-want +got):\n%s", all[i].ID, i, diff)
					}
					for _, p := range got {
						if p.Excerpt == "" || p.Date == "" {
							t.Errorf("post %d without excerpt or date: %+v", p.ID, p)
						}
					}
				}
				// The last post shown is trashed: its row still marks the place.
				db := wpdbtest.OpenDB(t, cfg)
				if _, err := db.Exec("UPDATE wp_posts SET post_status = 'trash' WHERE ID = ?", all[5].ID); err != nil {
					t.Fatal(err)
				}
				if got, _ := store.Posts(ctx, blog.Page{LastPost: all[5].ID, Offset: 0, Limit: 2}); !cmp.Equal(ids(got), ids(all[6:8])) {
					t.Errorf("after a trashed post: %v, want %v", ids(got), ids(all[6:8]))
				}
				// No such row: start decides.
				want, err := store.Posts(ctx, blog.Page{Offset: 4, Limit: 2})
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := store.Posts(ctx, blog.Page{LastPost: 999999, Offset: 4, Limit: 2}); !cmp.Equal(ids(got), ids(want)) {
					t.Errorf("after a deleted post, start=4: %v, want %v", ids(got), ids(want))
				}
				if _, err := store.Posts(ctx, blog.Page{LastPost: all[0].ID, Offset: -1, Limit: 2}); err == nil {
					t.Error("negative offset: no error")
				}
			})
		}
	}
}

// TestKeysetReadsOnlyAPage proves on MariaDB, with its handler counters,
// that the keyset query reads about LIMIT index entries whether the
// position is near the top or 5 000 posts deep, for one post type and for
// several (one seek per type), where the offset query reads every entry it
// skips.
func TestKeysetReadsOnlyAPage(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.MySQL(t)
	// 5 500 published posts, a published page or attachment every few, and
	// drafts among them; dates tie in pairs.
	var rows []wpsite.Post
	for i := range 7200 {
		row := wpsite.Post{Date: time.Date(2020, 1, 1, 0, i/2, 0, 0, time.UTC).Format(time.DateTime), Title: "t"}
		switch {
		case i%13 == 0:
			row.Status = "draft"
		case i%10 == 9:
			row.Type = "page"
		case i%10 == 8:
			row.Type = "attachment"
		}
		rows = append(rows, row)
	}
	wpdbtest.Insert(t, cfg, rows...)
	db := wpdbtest.OpenDB(t, cfg)
	if _, err := db.Exec("ANALYZE TABLE wp_posts"); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	reads := func(query string, args ...any) int {
		if _, err := conn.ExecContext(context.Background(), "FLUSH STATUS"); err != nil {
			t.Fatal(err)
		}
		rows, err := conn.QueryContext(context.Background(), query, args...)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
		}
		rows.Close()
		total := 0
		status, err := conn.QueryContext(context.Background(), "SHOW SESSION STATUS LIKE 'Handler_read%'")
		if err != nil {
			t.Fatal(err)
		}
		defer status.Close()
		for status.Next() {
			var name string
			var n int
			if err := status.Scan(&name, &n); err != nil {
				t.Fatal(err)
			}
			if name != "Handler_read_rnd_deleted" {
				total += n
			}
		}
		return total
	}
	for _, pt := range planTypes[:2] {
		c := cfg
		c.PostTypes = pt.types
		store := open(t, c)
		all, err := store.Posts(context.Background(), blog.Page{Offset: 0, Limit: 6000})
		if err != nil || len(all) < 5001 {
			t.Fatalf("%s: %d posts, %v", pt.name, len(all), err)
		}
		first := -1
		for _, depth := range []int{10, 1000, 5000} {
			query, args := wpdb.KeysetQuery(store, all[depth].ID, depth+1, 10)
			keyset := reads(query, args...)
			query, args = wpdb.PostsQuery(store, depth+1, 10)
			offset := reads(query, args...)
			t.Logf("%s, position %d: keyset %d handler reads, offset %d", pt.name, depth, keyset, offset)
			// 10 index entries per type, 10 rows by primary key, the
			// position by primary key, and the derived tables' own reads:
			// a constant, whatever the depth. The offset branch, for a
			// position gone, reads nothing.
			if first < 0 {
				first = keyset
			}
			if keyset > 70*len(pt.types) || keyset > first+5 {
				t.Errorf("%s, position %d: the keyset query made %d handler reads (%d at position 10), want a constant at most %d",
					pt.name, depth, keyset, first, 70*len(pt.types))
			}
			if depth >= 1000 && offset < depth {
				t.Errorf("%s, position %d: the offset query made only %d reads: the test does not tell the two apart", pt.name, depth, offset)
			}
		}
	}
}

// TestKeysetPageOneQuery counts, through a proxy, the statements a page
// after a post sends MariaDB: one page query, whether the position is in the
// listing, at its end, or gone (then the offset decides, in the same
// query), plus the card queries any page of posts costs (the featured
// images: Posts of the same page costs as much). Before, a position gone
// cost two more: the position, then the offset query after the seek.
func TestKeysetPageOneQuery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := wpdbtest.MySQL(t)
	var rows []wpsite.Post
	for i := range 20 {
		rows = append(rows, wpsite.Post{Date: fmt.Sprintf("2024-01-01 10:%02d:00", i), Title: "t" + strconv.Itoa(i)})
	}
	wpdbtest.Insert(t, cfg, rows...)
	cfg, proxy := wpdbtest.ThroughProxy(t, cfg)
	store := wpdbtest.Store(t, cfg)
	all, err := store.Posts(ctx, blog.Page{Offset: 0, Limit: 100})
	if err != nil || len(all) != 20 {
		t.Fatalf("Posts: %d posts, %v", len(all), err)
	}
	before := proxy.Queries()
	if _, err := store.Posts(ctx, blog.Page{Offset: 7, Limit: 2}); err != nil {
		t.Fatal(err)
	}
	page := proxy.Queries() - before
	for _, tc := range []struct {
		name       string
		lastID     uint64
		want       []uint64
		statements int
	}{
		{"in the listing", all[3].ID, ids(all[4:6]), page},
		{"at its end", all[19].ID, []uint64{}, 1},
		{"gone: the offset decides", 1 << 40, ids(all[7:9]), page},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := proxy.Queries()
			got, err := store.Posts(ctx, blog.Page{LastPost: tc.lastID, Offset: 7, Limit: 2})
			if err != nil {
				t.Fatal(err)
			}
			if n := proxy.Queries() - before; n != tc.statements {
				t.Errorf("the page after a post ran %d statements, want %d (a page at an offset: %d)", n, tc.statements, page)
			}
			if diff := cmp.Diff(tc.want, ids(got)); diff != "" {
				t.Errorf("posts (-want +got):\n%s", diff)
			}
		})
	}
}
