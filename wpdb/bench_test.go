package wpdb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/excerpt/excerpttest"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

const (
	benchRows    = 5000 // published posts; as many other rows sit between them
	benchContent = 4000 // bytes of post_content, a typical post
)

// benchStore fills a fresh table for driver with benchRows published posts
// of benchContent bytes, with pages, revisions and drafts between them.
func benchStore(b *testing.B, driver string) *wpdb.Store {
	b.Helper()
	cfg := wpdbtest.New(b, driver, "wp_")
	db := wpdbtest.OpenDB(b, cfg)
	content := "<!-- wp:paragraph -->\n<p>" + strings.Repeat("Lorem ipsum dolor sit amet, consectetur. ", benchContent/42) + "</p>\n<!-- /wp:paragraph -->"
	var rows []wpsite.Post
	for i := range benchRows * 2 { // i%6 in {0, 2, 3} are published posts: benchRows of them
		r := wpsite.Post{
			Date:    fmt.Sprintf("20%02d-%02d-%02d %02d:%02d:%02d", 10+i%15, 1+i%12, 1+i%28, i%24, i%60, i%59),
			Title:   fmt.Sprintf("Post number %d", i),
			Name:    fmt.Sprintf("post-number-%d", i),
			Content: content,
		}
		switch i % 6 {
		case 1:
			r.Type, r.Status = "revision", "inherit"
		case 4:
			r.Status = "draft"
		case 5:
			r.Type = "page"
		}
		rows = append(rows, r)
	}
	wpdbtest.Insert(b, cfg, rows...)
	analyze := "ANALYZE TABLE wp_posts"
	if driver == wpdb.DriverSQLite {
		analyze = "ANALYZE"
	}
	if _, err := db.Exec(analyze); err != nil {
		b.Fatal(err)
	}
	s := open(b, cfg)
	if driver == wpdb.DriverMySQL {
		query, args := wpdb.PostsQuery(s, 0, 10)
		for _, row := range queryStrings(b, db, "EXPLAIN "+query, args...) {
			b.Logf("EXPLAIN: id=%s select_type=%s table=%s type=%s key=%s rows=%s Extra=%s",
				row["id"], row["select_type"], row["table"], row["type"], row["key"], row["rows"], row["Extra"])
		}
	}
	return s
}

// BenchmarkPosts measures the deferred join at the first page and at a deep
// offset, 10 posts per page. scripts/bench compares it with the naive
// LIMIT/OFFSET over full rows.
func BenchmarkPosts(b *testing.B) {
	for _, driver := range wpdbtest.Drivers() {
		b.Run(driver, func(b *testing.B) {
			s := benchStore(b, driver)
			ctx := context.Background()
			for _, offset := range []int{0, 500, benchRows - 500} {
				b.Run(fmt.Sprintf("offset=%d", offset), func(b *testing.B) {
					for b.Loop() {
						posts, err := s.Posts(ctx, blog.Page{Offset: offset, Limit: 10})
						if err != nil {
							b.Fatal(err)
						}
						if len(posts) != 10 {
							b.Fatalf("got %d posts, want 10", len(posts))
						}
					}
				})
			}
		})
	}
}

// BenchmarkPostsLongContent fetches and shapes the first page, 10 posts of
// 2 KB or of 200 KB, excerpt memo off, on MariaDB: the bounded read must make
// the long posts cost about what the short ones do, on the wire and in
// memory (the target is at most 1.5 times, in ns/op and in B/op).
// read=whole reads all of post_content in the page query, for comparison.
func BenchmarkPostsLongContent(b *testing.B) {
	ctx := context.Background()
	for _, size := range []int{2 << 10, 200 << 10} {
		cfg := wpdbtest.New(b, wpdb.DriverMySQL, "wp_")
		// The 10 posts read are the newest of 2 000, so that MariaDB plans
		// the page as on a real site (see TestExplainMySQL).
		rows := make([]wpsite.Post, 2000)
		for i := range rows {
			rows[i] = wpsite.Post{
				Date:    fmt.Sprintf("20%02d-01-01 00:00:00", i*20/len(rows)),
				Title:   fmt.Sprintf("Post %d", i),
				Content: "<p>An older post.</p>",
			}
			if i >= len(rows)-10 {
				rows[i].Date = fmt.Sprintf("2030-01-01 00:%02d:00", i%60)
				rows[i].Content = excerpttest.GutenbergPost(size)
			}
		}
		wpdbtest.Insert(b, cfg, rows...)
		if _, err := wpdbtest.OpenDB(b, cfg).Exec("ANALYZE TABLE wp_posts"); err != nil {
			b.Fatal(err)
		}
		for _, read := range []struct {
			name  string
			chars int
		}{{"bounded", 4096}, {"whole", 1 << 24}} {
			s, err := wpdb.OpenReadingStart(ctx, cfg, read.chars)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			b.Run(fmt.Sprintf("read=%s/%dKB", read.name, size>>10), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					posts, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 10})
					if err != nil {
						b.Fatal(err)
					}
					if len(posts) != 10 {
						b.Fatalf("got %d posts, want 10", len(posts))
					}
				}
			})
		}
	}
}
