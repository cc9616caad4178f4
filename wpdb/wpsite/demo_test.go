package wpsite_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
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
	first, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(first) != 24 {
		t.Errorf("demo database has %d published posts, want 24", len(first))
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
	again, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 100})
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

// TestDemoHolds checks the demo site has what the README's examples and a
// newcomer's first look need, and keeps the content that tests the
// excerpt and the page: each query's rows, read from the file with plain
// SQL.
func TestDemoHolds(t *testing.T) {
	t.Parallel()
	cfg, err := wpsite.Demo(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+cfg.DSN+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const published = " FROM wp_posts WHERE post_type = 'post' AND post_status = 'publish'"
	tests := []struct {
		name, query string
		want        []string
	}{
		{"years", "SELECT DISTINCT substr(post_date, 1, 4)" + published + " ORDER BY 1", []string{"2022", "2023", "2024", "2025"}},
		{"a post of 2024, the README's year archive", "SELECT COUNT(*) > 0" + published + " AND post_date LIKE '2024-%'", []string{"1"}},
		{"categories, one a child", "SELECT t.slug, tt.parent, tt.count FROM wp_terms t JOIN wp_term_taxonomy tt ON tt.term_id = t.term_id" +
			" WHERE tt.taxonomy = 'category' ORDER BY t.term_id", []string{
			"uncategorized 0 8", "news 0 5", "food-drink 0 2", "baking 3 3", "travel 0 5", "garden 0 2"}},
		{"tags", "SELECT t.slug, tt.count FROM wp_terms t JOIN wp_term_taxonomy tt ON tt.term_id = t.term_id" +
			" WHERE tt.taxonomy = 'post_tag' ORDER BY t.term_id", []string{"summer 3", "recipes 3", "bikes 2", "montreal 1", "software 3"}},
		{"authors", "SELECT u.user_nicename, u.display_name, COUNT(*) FROM wp_users u JOIN wp_posts p ON p.post_author = u.ID" +
			" WHERE p.post_type = 'post' AND p.post_status = 'publish' GROUP BY u.ID ORDER BY u.ID", []string{
			"maya Maya Okafor 9", "jonas-berg Jonas Berg 7", "lea-marchand Léa Marchand 8"}},
		{"a sticky post", "SELECT p.post_name FROM wp_options o JOIN wp_posts p ON o.option_value = 'a:1:{i:0;i:' || p.ID || ';}'" +
			" WHERE o.option_name = 'sticky_posts'", []string{"start-here"}},
		{"a protected post", "SELECT post_name" + published + " AND post_password != ''", []string{"secret-recipe"}},
		{"pages", "SELECT post_name FROM wp_posts WHERE post_type = 'page' AND post_status = 'publish' ORDER BY ID", []string{"sample-page", "about", "recipes"}},
		{"a draft", "SELECT post_title FROM wp_posts WHERE post_status = 'draft'", []string{"Draft: not ready"}},
		{"an empty post", "SELECT post_name" + published + " AND post_content = ''", []string{"empty-post"}},
		{"two posts of one date", "SELECT post_date, COUNT(*)" + published + " GROUP BY post_date HAVING COUNT(*) > 1", []string{"2023-02-14 20:14:00 2"}},
		{"entities, accents, CJK, emoji", "SELECT post_name" + published +
			" AND (post_content LIKE '%&amp;%' OR post_title LIKE '%é%' OR post_title LIKE '%東京%' OR post_title LIKE '%💘%') ORDER BY ID", []string{
			"a-week-of-sourdough", "tokyo-ramen-guide", "valentines-playlist", "spring-garden-plan", "ete-a-montreal", "css-tip"}},
		{"the README's search, apple pie", "SELECT post_name FROM wp_posts WHERE post_status = 'publish' AND post_type IN ('post', 'page')" +
			" AND (post_title || post_content) LIKE '%apple%' AND (post_title || post_content) LIKE '%pie%' ORDER BY ID", []string{"apple-pie", "recipes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, wpdbtest.Rows(t, db, tt.query)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.query, diff)
			}
		})
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
