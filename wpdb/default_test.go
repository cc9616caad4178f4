package wpdb_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/wpdb"
)

func TestOpenDefault(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")

	s, err := wpdb.OpenDefault(ctx, dir)
	if err != nil {
		t.Fatalf("first OpenDefault: %v", err)
	}
	first, err := s.Posts(ctx, 0, 100)
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
		if strings.Contains(p.Content, "<p>") || !utf8.ValidString(p.Content) || !strings.HasSuffix(p.Content, "...") {
			t.Errorf("post %d excerpt %q is not text ending in ...", p.ID, p.Content)
		}
	}
	got, err := json.MarshalIndent(first, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "default.golden.json", append(got, '\n'))

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
	s, err = wpdb.OpenDefault(ctx, dir)
	if err != nil {
		t.Fatalf("second OpenDefault: %v", err)
	}
	defer s.Close()
	again, err := s.Posts(ctx, 0, 100)
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
	if s, err := wpdb.OpenDefault(context.Background(), file); err == nil {
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
	if s, err := wpdb.OpenDefault(context.Background(), dir); err == nil {
		s.Close()
		t.Fatal("OpenDefault on a junk file succeeded")
	}
	if b, _ := os.ReadFile(junk); string(b) != "not a database" {
		t.Error("OpenDefault overwrote an existing file")
	}
}
