package wpdb_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
)

// openDefault opens the demo database in dir as the server does, with the
// server's default post types and query timeout.
func openDefault(ctx context.Context, dir string) (*wpdb.Store, error) {
	cfg, err := wpdb.CreateDefault(ctx, dir)
	if err != nil {
		return nil, err
	}
	cfg.PostTypes, cfg.QueryTimeout = []string{"post"}, 5*time.Second
	return wpdb.Open(ctx, cfg, nil)
}

func TestOpenDefault(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")

	s, err := openDefault(ctx, dir)
	if err != nil {
		t.Fatalf("first OpenDefault: %v", err)
	}
	first, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(first) != 20 {
		t.Errorf("demo database has %d published posts, want 20", len(first))
	}
	for _, p := range first {
		if strings.Contains(p.Excerpt, "<p>") || !utf8.ValidString(p.Excerpt) || !strings.HasSuffix(p.Excerpt, "...") {
			t.Errorf("post %d excerpt %q is not text ending in ...", p.ID, p.Excerpt)
		}
	}
	golden(t, "default.golden.json", goldenJSON(t, first))

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{wpdb.DefaultDatabaseFile}, names); diff != "" {
		t.Errorf("data directory (-want +got):\n%s", diff)
	}

	// A later start reuses the file: a post added to it stays visible.
	info, err := os.Stat(filepath.Join(dir, wpdb.DefaultDatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	s, err = openDefault(ctx, dir)
	if err != nil {
		t.Fatalf("second OpenDefault: %v", err)
	}
	defer s.Close()
	again, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("second start (-first +second):\n%s", diff)
	}
	info2, err := os.Stat(filepath.Join(dir, wpdb.DefaultDatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	if !info2.ModTime().Equal(info.ModTime()) {
		t.Error("second start rewrote the database file")
	}
}

func TestOpenDefaultErrors(t *testing.T) {
	// A data "directory" that is a file cannot hold the database.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := openDefault(context.Background(), file); err == nil {
		s.Close()
		t.Fatal("OpenDefault under a file succeeded")
	} else if !strings.HasPrefix(err.Error(), "wpdb: default database: ") {
		t.Errorf("error %q lacks context", err)
	}

	// A file that is not SQLite is refused, not overwritten.
	dir := t.TempDir()
	junk := filepath.Join(dir, wpdb.DefaultDatabaseFile)
	if err := os.WriteFile(junk, []byte("not a database"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := openDefault(context.Background(), dir); err == nil {
		s.Close()
		t.Fatal("OpenDefault on a junk file succeeded")
	}
	if b, _ := os.ReadFile(junk); string(b) != "not a database" {
		t.Error("OpenDefault overwrote an existing file")
	}
}
