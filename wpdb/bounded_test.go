package wpdb_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/excerpt"
	"github.com/wploadmore/wploadmore/wpdb/excerpt/excerpttest"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// boundedStarts are the content starts, in characters, the bounded-read
// tests open Stores with: tiny ones so that short posts cross the cut
// everywhere, and the product's.
var boundedStarts = []int{1, 2, 3, 5, 8, 13, 40, 300, 4096}

// adversarialPosts are posts whose excerpts a bounded read gets wrong
// unless it reads more: shortcodes straddling the cut or closed far past
// it, huge leading script, style and comments, entities and multi-byte
// characters at every cut, escaped shortcodes, all-markup posts.
func adversarialPosts() []string {
	long := strings.Repeat("Lorem ipsum dolor sit amet. ", 10)
	huge := strings.Repeat("x", 20<<10)
	return []string{
		"",
		"short",
		long,
		`[caption id="a"]<img src="x.jpg"> A caption[/caption]` + long,
		`[caption]` + long + long + `[/caption] after`,
		`[caption]` + long + long,
		`[gallery ids="1,2"]` + long,
		`[gallery ids="1,2"]` + long + `[/gallery]` + long,
		long + `[gallery]` + long + `[/gallery]` + long,
		`[[gallery]]` + long,
		`[[caption]x[/caption]]` + long,
		`&#91;x&#93; ` + long + `[gallery]`,
		`&#91;x&#93; ` + long,
		`<xmp>&#91;</xmp>` + long + `[gallery]`,
		`[gallery.x] ` + long + ` [gallery]`,
		`[gallery.x] ` + long,
		"<script>" + huge + "</script>" + long,
		"<style>" + huge + "</style>" + long,
		"<!--" + huge + "-->" + long,
		`<img alt="` + huge + `">` + long,
		"<p>" + strings.Repeat("<b></b>", 2000) + "</p>",
		strings.Repeat("<!-- wp:image --><figure><img src=\"a.jpg\"/></figure><!-- /wp:image -->", 100),
		strings.Repeat("&amp;&nbsp;&#8217;&#x1F600;&notit;", 80),
		strings.Repeat("é漢😀 ", 120),
		strings.Repeat("👩‍👩‍👧‍👦", 80),
		strings.Repeat("&nbsp;", 400) + long,
		strings.Repeat(" \n\t", 300) + long,
		"a\x00b " + long + "\x00" + long,
		excerpttest.GutenbergPost(8 << 10),
	}
}

// boundedStore is a Store reading a start of post_content, memo off, so
// that it shapes every post itself.
type boundedStore struct {
	name     string
	store    *wpdb.Store
	excerpts *excerpt.Shaper // the same shortcodes, for the whole post
}

// boundedStores opens, for cfg, a Store per content start and per
// shortcode list (none, core's).
func boundedStores(t testing.TB, cfg wpdb.Config) []boundedStore {
	t.Helper()
	var stores []boundedStore
	for _, shortcodes := range [][]string{nil, excerpt.CoreShortcodes()} {
		for _, n := range boundedStarts {
			c := cfg
			c.StripShortcodes = shortcodes
			s, err := wpdb.OpenReadingStart(context.Background(), c, n)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			name := fmt.Sprintf("%s start=%d shortcodes=%d", cfg.Driver, n, len(shortcodes))
			stores = append(stores, boundedStore{name, s, excerpt.New(shortcodes)})
		}
	}
	return stores
}

// storedContent is content as driver stores it: MariaDB refuses invalid
// UTF-8 in a utf8mb4 column.
func storedContent(driver, content string) string {
	if driver == wpdb.DriverMySQL {
		return strings.ToValidUTF8(content, "\uFFFD")
	}
	return content
}

// boundedTable is a posts table of two posts: the one checked, listed
// second, and a newer one, whose ID the keyset page starts from.
type boundedTable struct {
	driver  string
	db      *sql.DB
	checked uint64
	newer   uint64
	stores  []boundedStore
}

func newBoundedTable(t testing.TB, driver string) *boundedTable {
	t.Helper()
	cfg := wpdbtest.New(t, driver, "wp_")
	ids := wpdbtest.Insert(t, cfg,
		wpsite.Post{Title: "checked", Date: "2024-01-01 00:00:00", Content: "x"},
		wpsite.Post{Title: "newer", Date: "2024-06-01 00:00:00", Content: "<p>newer</p>"},
	)
	// Older posts, so that the databases plan the page as on a real site
	// (see TestExplainMySQL), not as a scan of a tiny table.
	older := make([]wpsite.Post, 2000)
	for i := range older {
		older[i] = wpsite.Post{Title: "older", Date: fmt.Sprintf("20%02d-01-01 00:00:00", i*20/len(older)), Content: "<p>older</p>"}
	}
	wpdbtest.Insert(t, cfg, older...)
	db := wpdbtest.OpenDB(t, cfg)
	analyze := "ANALYZE TABLE wp_posts"
	if driver == wpdb.DriverSQLite {
		analyze = "ANALYZE"
	}
	if _, err := db.Exec(analyze); err != nil {
		t.Fatal(err)
	}
	return &boundedTable{driver, db, ids[0], ids[1], boundedStores(t, cfg)}
}

// check stores content in the checked post, has every store read it at
// an offset and after the newer post, and compares the excerpts with the
// Shaper's of the whole content.
func (tb *boundedTable) check(t *testing.T, content string) {
	t.Helper()
	ctx := context.Background()
	content = storedContent(tb.driver, content)
	if _, err := tb.db.Exec("UPDATE wp_posts SET post_content = ? WHERE ID = ?", content, tb.checked); err != nil {
		t.Fatal(err)
	}
	for _, bs := range tb.stores {
		want := bs.excerpts.Excerpt(content)
		posts, err := bs.store.Posts(ctx, blog.Page{Offset: 1, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		after, err := bs.store.Posts(ctx, blog.Page{LastPost: tb.newer, Offset: 0, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		for how, got := range map[string][]blog.Post{"offset page": posts, "keyset page": after} {
			if len(got) != 1 || got[0].ID != tb.checked {
				t.Fatalf("%s: %s returned %+v, want post %d", bs.name, how, got, tb.checked)
			}
			if got[0].Excerpt != want {
				t.Fatalf("%s: %s of %q (%d bytes) (-whole +bounded):\n%s", bs.name, how, content, len(content), cmp.Diff(want, got[0].Excerpt))
			}
		}
	}
}

// TestBoundedRead: for adversarial and realistic posts, on both drivers,
// with starts of 1 character up to the product's, offset and keyset pages
// return exactly the excerpt of the whole post.
func TestBoundedRead(t *testing.T) {
	t.Parallel()
	posts := append(adversarialPosts(), excerpttest.Seeds()...)
	posts = append(posts, excerpttest.ShortcodeSeeds()...)
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			tb := newBoundedTable(t, driver)
			for _, content := range posts {
				tb.check(t, content)
			}
		})
	}
}

// FuzzBoundedExcerpt is TestBoundedRead over fuzzed posts: a Store reading
// a bounded start of post_content, on MariaDB and SQLite, returns exactly
// excerpt.Shaper.Excerpt of the whole post, with and without shortcodes, for
// starts from 1 character to the product's.
func FuzzBoundedExcerpt(f *testing.F) {
	if testing.Short() {
		f.Skip("-short: every seed through every content start, on MariaDB and SQLite")
	}
	for _, s := range adversarialPosts() {
		f.Add(s)
	}
	for _, s := range excerpttest.ShortcodeSeeds()[:20] {
		f.Add(s)
	}
	var tables []*boundedTable
	for _, driver := range wpdbtest.Drivers() {
		tables = append(tables, newBoundedTable(f, driver))
	}
	f.Fuzz(func(t *testing.T, content string) {
		for _, tb := range tables {
			tb.check(t, content)
		}
	})
}
