package wpdb_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// TestTermsPrefixAndMissingTables reads the terms snapshot under another
// table prefix, and from a database without the term and user tables (a
// posts table copied on its own): no categories, tags or authors, so
// their archives are not found, and the date archives still read.
func TestTermsPrefixAndMissingTables(t *testing.T) {
	t.Parallel()
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			cfg := wpdbtest.New(t, driver, "blog_")
			seedSite(t, cfg, 40)
			terms, err := open(t, cfg).Terms(ctx)
			if err != nil {
				t.Fatal(err)
			}
			news, ok := terms.CategoryBySlug("news")
			if !ok || news.Name != "News" || news.Count == 0 || terms.Published() != 40 {
				t.Fatalf("news %+v (found %v), %d published", news, ok, terms.Published())
			}
			if a, ok := terms.AuthorByNicename("anna-schmidt"); !ok || a.DisplayName != "Anna Schmidt" {
				t.Errorf("author anna-schmidt: %+v, %v", a, ok)
			}
			if c, _ := terms.CategoryBySlug("france"); c.Parent == 0 {
				t.Errorf("france has no parent: %+v", c)
			}
			db := wpdbtest.OpenDB(t, cfg)
			for _, table := range []string{"terms", "term_taxonomy", "term_relationships", "users"} {
				if _, err := db.Exec("DROP TABLE blog_" + table); err != nil {
					t.Fatal(err)
				}
			}
			store := open(t, cfg)
			terms, err = store.Terms(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, query := range []string{"category_name=news", "tag=quick-recipes", "author_name=admin"} {
				q, err := blog.ParseArchive(testkit.PHPQueryVars(t, query))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := terms.Resolve(q); !errors.Is(err, blog.ErrNoArchive) {
					t.Errorf("%s without the tables: %v, want ErrNoArchive", query, err)
				}
			}
			all, err := store.Posts(ctx, blog.Page{Offset: 0, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			year := all[0].Date[:4]
			got, err := store.Posts(ctx, blog.Page{In: wpdbtest.ResolveArchive(t, terms, "year="+year), Offset: 0, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			var want []uint64
			for _, p := range all {
				if strings.HasPrefix(p.Date, year) {
					want = append(want, p.ID)
				}
			}
			if diff := cmp.Diff(want, ids(got)); diff != "" {
				t.Errorf("year=%s without the term tables (-want +got):\n%s", year, diff)
			}
		})
	}
}

// TestArchiveSeveralTypes reads date archives of posts and pages, which
// walk type_status_date once a type and merge the walks, as the listing
// does: each page, and a lastPost walk, is the listing's posts of that
// month, in its order, ties on post_date included.
func TestArchiveSeveralTypes(t *testing.T) {
	t.Parallel()
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			cfg := wpdbtest.New(t, driver, "wp_")
			cfg.PostTypes = []string{"post", "page"}
			var rows []wpsite.Post
			for i := range 60 {
				rows = append(rows, wpsite.Post{Type: []string{"post", "page", "attachment"}[i%3],
					Date: fmt.Sprintf("2024-%02d-%02d 10:00:00", 1+i%3, 1+i%5), Title: fmt.Sprint(i)})
			}
			wpdbtest.Insert(t, cfg, rows...)
			store := open(t, cfg)
			terms, err := store.Terms(ctx)
			if err != nil {
				t.Fatal(err)
			}
			all, err := store.Posts(ctx, blog.Page{Offset: 0, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			var want []uint64
			for _, p := range all {
				if strings.HasPrefix(p.Date, "2024-02") {
					want = append(want, p.ID)
				}
			}
			a := wpdbtest.ResolveArchive(t, terms, "year=2024&monthnum=2")
			for _, page := range [][2]int{{0, 3}, {2, 5}, {10, 10}} {
				got, err := store.Posts(ctx, blog.Page{In: a, Offset: page[0], Limit: page[1]})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want[min(page[0], len(want)):min(page[0]+page[1], len(want))], ids(got)); diff != "" {
					t.Errorf("offset %d, %d posts (-want +got):\n%s", page[0], page[1], diff)
				}
			}
			var walked []uint64
			page, err := store.Posts(ctx, blog.Page{In: a, Offset: 0, Limit: 2})
			for err == nil && len(page) > 0 && len(walked) <= len(want) {
				walked = append(walked, ids(page)...)
				page, err = store.Posts(ctx, blog.Page{In: a, LastPost: walked[len(walked)-1], Offset: len(walked), Limit: 2})
			}
			if diff := cmp.Diff(want, walked); err != nil || diff != "" {
				t.Errorf("lastPost walk (-want +got), %v:\n%s", err, diff)
			}
		})
	}
}

// TestArchiveStatements counts what an archive costs the database: the
// terms snapshot is three statements whatever the site's size, and a page
// of an archive, dense or sparse, offset or keyset, is one statement, as
// a page of the listing is, before its cards. Each page is read twice and
// the second read counted, so that the excerpts are in the memo, and with
// plain links, so that the cards are the featured images alone: one more
// statement.
func TestArchiveStatements(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg, proxy := wpdbtest.ThroughProxy(t, wpdbtest.MySQL(t))
	seedSite(t, cfg, 60)
	store := open(t, cfg)
	count := func(name string, f func() error) {
		t.Helper()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		before := proxy.Queries()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := proxy.Queries() - before; got != 2 {
			t.Errorf("%s: %d statements, want 2 (the page and the featured images)", name, got)
		}
	}
	before := proxy.Queries()
	terms, err := store.Terms(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := proxy.Queries() - before; got != 3 {
		t.Errorf("terms: %d statements, want 3", got)
	}
	first, err := store.Posts(ctx, blog.Page{Offset: 0, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	count("the listing", func() error { _, err := store.Posts(ctx, blog.Page{Offset: 0, Limit: 10}); return err })
	a := wpdbtest.ResolveArchive(t, terms, "category_name=news")
	for _, sparse := range []bool{false, true} {
		planned := wpdb.ForcePlan(store, sparse)
		count(fmt.Sprintf("news, sparse %v", sparse), func() error {
			_, err := planned.Posts(ctx, blog.Page{In: a, Offset: 0, Limit: 10})
			return err
		})
		count(fmt.Sprintf("news after a post, sparse %v", sparse), func() error {
			_, err := planned.Posts(ctx, blog.Page{In: a, LastPost: first[0].ID, Offset: 1, Limit: 10})
			return err
		})
	}
}

// TestArchiveOutage: while the database is down or hangs, the terms
// snapshot and archive pages fail within the query timeout with errors
// wrapping ErrUnavailable (a 503, not a bug), and read again once it is
// back.
func TestArchiveOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out query timeouts")
	}
	t.Parallel()
	ctx := context.Background()
	base := wpdbtest.MySQL(t)
	seedSite(t, base, 20)
	cfg, proxy := wpdbtest.ThroughProxy(t, base)
	cfg.QueryTimeout = 300 * time.Millisecond
	store := open(t, cfg)
	terms, err := store.Terms(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a := wpdbtest.ResolveArchive(t, terms, "category_name=news")
	reads := map[string]func() error{
		"terms":       func() error { _, err := store.Terms(ctx); return err },
		"offset page": func() error { _, err := store.Posts(ctx, blog.Page{In: a, Offset: 0, Limit: 5}); return err },
		"keyset page": func() error {
			_, err := store.Posts(ctx, blog.Page{In: a, LastPost: 1, Offset: 0, Limit: 5})
			return err
		},
	}
	for state, cut := range map[string]func(){"refused": proxy.Refuse, "hung": proxy.Hang} {
		cut()
		for name, read := range reads {
			start := time.Now()
			err := read()
			if !errors.Is(err, wpdb.ErrUnavailable) || time.Since(start) > testkit.Scale(2*time.Second) {
				t.Errorf("%s, database %s: %v after %v, want ErrUnavailable within the query timeout", name, state, err, time.Since(start))
			}
		}
		proxy.Restore()
		for name, read := range reads {
			if err := read(); err != nil {
				t.Errorf("%s, database back after %s: %v", name, state, err)
			}
		}
	}
}
