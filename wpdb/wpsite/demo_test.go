package wpsite_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ and deploy/compose-init.sql")

// openDefault opens the demo database in dir as the server does, with the
// server's default post types and query timeout.
func openDefault(ctx context.Context, dir string) (*wpdb.Store, error) {
	cfg, err := wpsite.Demo(ctx, dir)
	if err != nil {
		return nil, err
	}
	cfg.PostTypes, cfg.QueryTimeout = []string{"post"}, 5*time.Second
	return wpdb.Open(ctx, cfg, nil)
}

func TestDemo(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")

	s, err := openDefault(ctx, dir)
	if err != nil {
		t.Fatalf("first start: %v", err)
	}
	first, err := s.Posts(ctx, wpdb.Page{Offset: 0, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(first) != 20 {
		t.Errorf("demo database has %d published posts, want 20", len(first))
	}
	// The five fields of the PHP script's answer, the excerpt as
	// post_content.
	type record struct {
		ID      uint64 `json:"ID"`
		Title   string `json:"post_title"`
		Excerpt string `json:"post_content"`
		Name    string `json:"post_name"`
		Date    string `json:"post_date"`
	}
	records := make([]record, len(first))
	for i, p := range first {
		if strings.Contains(p.Excerpt, "<p>") || !utf8.ValidString(p.Excerpt) || !strings.HasSuffix(p.Excerpt, "...") {
			t.Errorf("post %d excerpt %q is not text ending in ...", p.ID, p.Excerpt)
		}
		records[i] = record{p.ID, p.Title, p.Excerpt, p.Name, p.Date}
	}
	got, err := json.MarshalIndent(records, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "demo.golden.json", append(got, '\n'))

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{wpsite.DemoFile}, names); diff != "" {
		t.Errorf("data directory (-want +got):\n%s", diff)
	}

	// A later start reuses the file: a post added to it stays visible.
	info, err := os.Stat(filepath.Join(dir, wpsite.DemoFile))
	if err != nil {
		t.Fatal(err)
	}
	s, err = openDefault(ctx, dir)
	if err != nil {
		t.Fatalf("second start: %v", err)
	}
	defer s.Close()
	again, err := s.Posts(ctx, wpdb.Page{Offset: 0, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("second start (-first +second):\n%s", diff)
	}
	info2, err := os.Stat(filepath.Join(dir, wpsite.DemoFile))
	if err != nil {
		t.Fatal(err)
	}
	if !info2.ModTime().Equal(info.ModTime()) {
		t.Error("second start rewrote the database file")
	}
}

func TestDemoErrors(t *testing.T) {
	// A data "directory" that is a file cannot hold the database.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := openDefault(context.Background(), file); err == nil {
		s.Close()
		t.Fatal("OpenDefault under a file succeeded")
	} else if !strings.HasPrefix(err.Error(), "wpsite: demo database: ") {
		t.Errorf("error %q lacks context", err)
	}

	// A file that is not SQLite is refused, not overwritten.
	dir := t.TempDir()
	junk := filepath.Join(dir, wpsite.DemoFile)
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
