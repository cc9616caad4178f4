package wpsite_test

import (
	"context"
	"fmt"
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

// seedRows returns n published posts and, between them, rows the page
// query must skip: a draft, a revision and a page.
func seedRows(n int) []wpsite.Post {
	var rows []wpsite.Post
	for i := range n {
		id := uint64(i*4 + 1)
		date := fmt.Sprintf("2024-01-%02d 10:00:%02d", 1+i%28, i%3) // ties on purpose
		post := wpsite.Post{
			ID: id, Author: 1, Date: date, DateGMT: date, Modified: date,
			Content: strings.Repeat(fmt.Sprintf("<p>post %d</p>", i), 1+i%5),
			Title:   fmt.Sprintf("Post %d", i), Status: "publish", CommentStatus: "open",
			Name: fmt.Sprintf("post-%d", i), Type: "post", GUID: fmt.Sprintf("https://example.com/?p=%d", id),
		}
		draft, revision, page := post, post, post
		draft.ID, draft.Status = id+1, "draft"
		revision.ID, revision.Status, revision.Type, revision.Parent = id+2, "inherit", "revision", id
		page.ID, page.Type = id+3, "page"
		rows = append(rows, post, draft, revision, page)
	}
	return rows
}

func TestWriter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			// The test database has wp_posts; the writer must create
			// seed_posts itself.
			cfg := wpdbtest.New(t, driver, "wp_")
			cfg.TablePrefix = "seed_"
			s, err := wpsite.Open(ctx, cfg)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer s.Close()
			if id, err := s.MaxID(ctx); err != nil || id != 0 {
				t.Fatalf("MaxID of an empty table = %d, %v; want 0, nil", id, err)
			}
			rows := seedRows(40)
			if err := s.Insert(ctx, rows[:60]); err != nil {
				t.Fatalf("Insert: %v", err)
			}
			// A rerun overlapping what is there skips the present rows.
			if err := s.Insert(ctx, rows[40:]); err != nil {
				t.Fatalf("Insert again: %v", err)
			}
			if id, err := s.MaxID(ctx); err != nil || id != rows[len(rows)-1].ID {
				t.Fatalf("MaxID = %d, %v; want %d, nil", id, err, rows[len(rows)-1].ID)
			}

			if n, size, err := s.Size(ctx); err != nil || n != int64(len(rows)) || size <= 0 {
				t.Fatalf("Size = %d rows, %d bytes, %v; want %d rows", n, size, err, len(rows))
			}

			store, err := wpdb.Open(ctx, cfg, nil)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer store.Close()
			all, err := store.Posts(ctx, blog.Page{Offset: 0, Limit: 100})
			if err != nil {
				t.Fatalf("Posts: %v", err)
			}
			if len(all) != 40 {
				t.Fatalf("Posts found %d published posts, want 40", len(all))
			}
			for _, off := range []int{0, 1, 17, 38, 39, 40, 41} {
				page, err := store.Posts(ctx, blog.Page{Offset: off, Limit: 3})
				if err != nil {
					t.Fatalf("Posts(%d, 3): %v", off, err)
				}
				want := all[min(off, len(all)):min(off+3, len(all))]
				if diff := cmp.Diff(want, page); diff != "" {
					t.Errorf("offset %d: page differs from the whole list (-want +got):\n%s", off, diff)
				}
			}
		})
	}
}

func TestWriterCreatesSQLiteFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := wpdb.Config{Driver: wpdb.DriverSQLite, DSN: filepath.Join(t.TempDir(), "new.sqlite"), TablePrefix: "wp_"}
	s, err := wpsite.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if err := s.Insert(ctx, seedRows(2)); err != nil {
		t.Fatalf("Insert: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	cfg.PostTypes, cfg.QueryTimeout = []string{"post"}, 5*time.Second
	store, err := wpdb.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatalf("Open after seeding: %v", err)
	}
	defer store.Close()
	posts, err := store.Posts(ctx, blog.Page{Offset: 0, Limit: 10})
	if err != nil || len(posts) != 2 {
		t.Fatalf("Posts = %d posts, %v; want 2, nil", len(posts), err)
	}
}

func TestWriterRejectsBadConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  wpdb.Config
	}{
		{"unknown driver", wpdb.Config{Driver: "postgres", DSN: "x"}},
		{"bad prefix", wpdb.Config{Driver: wpdb.DriverSQLite, DSN: "x.sqlite", TablePrefix: "wp-"}},
		{"empty DSN", wpdb.Config{Driver: wpdb.DriverMySQL}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if s, err := wpsite.Open(context.Background(), tt.cfg); err == nil {
				s.Close()
				t.Fatal("Open succeeded, want an error")
			}
		})
	}
}

// TestWriterNamesTheServer: a writer that cannot reach MySQL says where it
// tried, as the store does.
func TestWriterNamesTheServer(t *testing.T) {
	t.Parallel()
	cfg := wpdb.Config{Driver: wpdb.DriverMySQL, DSN: "root:hunter2@tcp(127.0.0.1:1)/wordpress", TablePrefix: "wp_"}
	s, err := wpsite.Open(context.Background(), cfg)
	if err == nil {
		s.Close()
		t.Fatal("Open succeeded, want an error")
	}
	want := "wpdb: open for writing: create database wordpress at TCP 127.0.0.1:1: dial tcp 127.0.0.1:1: connect: connection refused"
	if err.Error() != want || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error %q, want %q", err, want)
	}
}
