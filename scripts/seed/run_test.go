package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/sitegen"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

func TestRunSeedsThenSkips(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "blog.sqlite")
	args := []string{"seed", "-quiet", "-db", db, "-n", "30", "-batch", "7"}
	noEnv := func(string) string { return "" }
	var out bytes.Buffer
	if err := run(context.Background(), args, noEnv, &out, io.Discard); err != nil {
		t.Fatalf("first run: %v", err)
	}
	if !strings.Contains(out.String(), "wrote 30 posts") {
		t.Errorf("first run said %q, want it to have written 30 posts", out.String())
	}
	out.Reset()
	if err := run(context.Background(), args, noEnv, &out, io.Discard); err != nil {
		t.Fatalf("second run: %v", err)
	}
	if !strings.Contains(out.String(), "already holds the 30 posts") {
		t.Errorf("second run said %q, want it to find the data set complete", out.String())
	}
	out.Reset()
	// Asking for more continues after what is there.
	args[len(args)-3] = "45"
	if err := run(context.Background(), args, noEnv, &out, io.Discard); err != nil {
		t.Fatalf("third run: %v", err)
	}
	if !strings.Contains(out.String(), "resuming at post 29") || !strings.Contains(out.String(), "wrote 16 posts") {
		t.Errorf("third run said %q, want it to resume at the last post", out.String())
	}
	// Asking for fewer than the table holds is refused.
	args[len(args)-3] = "10"
	if err := run(context.Background(), args, noEnv, io.Discard, io.Discard); err == nil {
		t.Error("seeding 10 posts over 45 succeeded, want an error")
	}
}

func TestParseOptionsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no database", nil, nil, "no database"},
		{"both", []string{"-db", "sqlite:x", "-wp-config", "wp-config.php"}, nil, "one or the other"},
		{"bad URL", []string{"-db", "postgres://x"}, nil, "-db"},
		{"missing wp-config", []string{"-wp-config", "/nonexistent/wp-config.php"}, nil, "-wp-config"},
		{"negative n", []string{"-db", "sqlite:x", "-n", "-1"}, nil, "-n"},
		{"zero batch", []string{"-db", "sqlite:x", "-batch", "0"}, nil, "-batch"},
		{"argument", []string{"-db", "sqlite:x", "extra"}, nil, "unexpected argument"},
		{"env both", nil, map[string]string{"LOADMORE_DB": "sqlite:x", "LOADMORE_WP_CONFIG": "w"}, "one or the other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseOptions(append([]string{"seed"}, tt.args...), func(k string) string { return tt.env[k] }, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("parseOptions(%q) = %v, want an error containing %q", tt.args, err, tt.want)
			}
		})
	}
}

// TestRunWritesSite seeds a small site into each database and checks with
// plain SQL what the bench relies on: every table filled, categories and
// tags as specified, counts as WordPress keeps them, featured images and
// their metadata.
func TestRunWritesSite(t *testing.T) {
	t.Parallel()
	const n = 1000
	// share is a count's share of the n posts, checked against [lo, hi].
	type share struct{ lo, hi float64 }
	tests := []struct {
		name, query string
		want        []string // the rows, columns joined by spaces
		share       *share   // or: one number, a share of n
	}{
		{name: "published posts", query: "SELECT COUNT(*) FROM wp_posts WHERE post_type = 'post' AND post_status = 'publish'",
			want: []string{"1000"}},
		{name: "terms", query: "SELECT taxonomy, COUNT(*) FROM wp_term_taxonomy tt JOIN wp_terms t ON t.term_id = tt.term_id GROUP BY taxonomy ORDER BY taxonomy",
			want: []string{"category 50", "post_tag 200"}},
		{name: "children", query: "SELECT c.slug, p.slug FROM wp_term_taxonomy tt JOIN wp_terms c ON c.term_id = tt.term_id" +
			" JOIN wp_terms p ON p.term_id = tt.parent ORDER BY c.term_id",
			want: []string{"europe travel", "france europe", "asia travel", "americas travel", "recipes food-drink",
				"cafe-culture food-drink", "%e6%97%a5%e6%9c%ac asia"}},
		{name: "counts as WordPress keeps them", query: "SELECT COUNT(*) FROM wp_term_taxonomy tt WHERE count <> (SELECT COUNT(*)" +
			" FROM wp_term_relationships tr JOIN wp_posts p ON p.ID = tr.object_id" +
			" WHERE tr.term_taxonomy_id = tt.term_taxonomy_id AND p.post_type = 'post' AND p.post_status = 'publish')",
			want: []string{"0"}},
		{name: "unpublished posts in the default category, not counted", query: "SELECT COUNT(*) > 0 FROM wp_term_relationships tr" +
			" JOIN wp_posts p ON p.ID = tr.object_id WHERE p.post_status <> 'publish' AND tr.term_taxonomy_id = 1",
			want: []string{"1"}},
		{name: "posts without a category", query: "SELECT COUNT(*) FROM wp_posts p WHERE post_type = 'post' AND post_status = 'publish'" +
			" AND NOT EXISTS (SELECT 1 FROM wp_term_relationships tr JOIN wp_term_taxonomy tt ON tt.term_taxonomy_id = tr.term_taxonomy_id" +
			" WHERE tr.object_id = p.ID AND tt.taxonomy = 'category')",
			want: []string{"0"}},
		{name: "posts in two categories", query: "SELECT COUNT(*) FROM (SELECT object_id FROM wp_term_relationships tr" +
			" JOIN wp_term_taxonomy tt ON tt.term_taxonomy_id = tr.term_taxonomy_id JOIN wp_posts p ON p.ID = tr.object_id" +
			" WHERE tt.taxonomy = 'category' AND p.post_status = 'publish' GROUP BY object_id HAVING COUNT(*) = 2) two",
			share: &share{0.08, 0.25}},
		{name: "largest category", query: "SELECT MAX(count) FROM wp_term_taxonomy WHERE taxonomy = 'category'",
			share: &share{0.44, 0.58}},
		{name: "smallest category", query: "SELECT count FROM wp_term_taxonomy tt JOIN wp_terms t ON t.term_id = tt.term_id WHERE slug = 'archive-oddities'",
			share: &share{0, 0.005}},
		{name: "fewest and most tags of a post", query: "SELECT MIN(tags), MAX(tags) FROM (SELECT p.ID, COUNT(tt.term_taxonomy_id) tags FROM wp_posts p" +
			" LEFT JOIN wp_term_relationships tr ON tr.object_id = p.ID LEFT JOIN wp_term_taxonomy tt" +
			" ON tt.term_taxonomy_id = tr.term_taxonomy_id AND tt.taxonomy = 'post_tag'" +
			" WHERE p.post_type = 'post' AND p.post_status = 'publish' GROUP BY p.ID) x",
			want: []string{"0 5"}},
		{name: "authors", query: "SELECT COUNT(*), MIN(ID), MAX(ID) FROM wp_users WHERE user_nicename <> '' AND display_name <> ''",
			want: []string{"12 1 12"}},
		{name: "posts of no user", query: "SELECT COUNT(*) FROM wp_posts WHERE post_author NOT IN (SELECT ID FROM wp_users)",
			want: []string{"0"}},
		{name: "featured images", query: "SELECT COUNT(*) FROM wp_postmeta m JOIN wp_posts p ON p.ID = m.post_id" +
			" WHERE meta_key = '_thumbnail_id' AND p.post_status = 'publish'",
			share: &share{0.65, 0.75}},
		{name: "featured image not the post's first attachment", query: "SELECT COUNT(*) FROM wp_postmeta m WHERE meta_key = '_thumbnail_id'" +
			" AND meta_value <> (SELECT MIN(ID) FROM wp_posts a WHERE a.post_parent = m.post_id AND a.post_type = 'attachment')",
			want: []string{"0"}},
		{name: "attachments without their file and metadata", query: "SELECT COUNT(*) FROM wp_posts a WHERE post_type = 'attachment'" +
			" AND (SELECT COUNT(*) FROM wp_postmeta m WHERE m.post_id = a.ID" +
			" AND meta_key IN ('_wp_attached_file', '_wp_attachment_metadata')) <> 2",
			want: []string{"0"}},
		{name: "attachments with an alt text", query: "SELECT COUNT(*) FROM wp_postmeta WHERE meta_key = '_wp_attachment_image_alt'",
			share: &share{0.7, 0.9}}, // of about 0.95 attachments a post
		{name: "files not under a year and month", query: "SELECT COUNT(*) FROM wp_postmeta WHERE meta_key = '_wp_attached_file'" +
			" AND meta_value NOT LIKE '20__/__/photo-%.jpg'",
			want: []string{"0"}},
		{name: "metadata not a PHP array of the file", query: "SELECT COUNT(*) FROM wp_postmeta m JOIN wp_postmeta f" +
			" ON f.post_id = m.post_id AND f.meta_key = '_wp_attached_file' WHERE m.meta_key = '_wp_attachment_metadata'" +
			" AND (m.meta_value NOT LIKE 'a:6:{s:5:\"width\";i:%' OR m.meta_value NOT LIKE CONCAT('%s:4:\"file\";s:__:\"', f.meta_value, '\";%'))",
			want: []string{"0"}},
		{name: "site options", query: "SELECT option_name, option_value FROM wp_options WHERE option_name IN" +
			" ('home', 'siteurl', 'permalink_structure', 'default_category', 'thumbnail_size_w', 'wploadmore_seed') ORDER BY option_name",
			want: []string{"default_category 1", "home https://example.com", "permalink_structure /%category%/%postname%/",
				"siteurl https://example.com", "thumbnail_size_w 150", "wploadmore_seed fixture 2, seed 1"}},
	}
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.New(t, driver, "wp_")
			args := []string{"seed", "-quiet", "-db", wpdbtest.URL(t, cfg), "-n", strconv.Itoa(n)}
			if err := run(context.Background(), args, func(string) string { return "" }, io.Discard, io.Discard); err != nil {
				t.Fatalf("run: %v", err)
			}
			db := wpdbtest.OpenDB(t, cfg)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					got := wpdbtest.Rows(t, db, tt.query)
					if tt.share == nil {
						if diff := cmp.Diff(tt.want, got); diff != "" {
							t.Errorf("%s\n(-want +got):\n%s", tt.query, diff)
						}
						return
					}
					v, err := strconv.Atoi(strings.Join(got, ""))
					if f := float64(v) / n; err != nil || f < tt.share.lo || f > tt.share.hi {
						t.Errorf("%s\n= %q, want %.0f to %.0f", tt.query, got, tt.share.lo*n, tt.share.hi*n)
					}
				})
			}
		})
	}
}

// TestRunRefusesAnotherDataSet: a rerun never continues posts another seed
// or an older fixture wrote.
func TestRunRefusesAnotherDataSet(t *testing.T) {
	t.Parallel()
	noEnv := func(string) string { return "" }
	tests := []struct {
		name  string
		setup func(t *testing.T, db string)
		want  string
	}{
		{"another seed", func(t *testing.T, db string) {
			if err := run(context.Background(), []string{"seed", "-quiet", "-db", db, "-n", "5", "-seed", "2"}, noEnv, io.Discard, io.Discard); err != nil {
				t.Fatal(err)
			}
		}, "(fixture 2, seed 2), not fixture 2, seed 1"},
		{"posts of an older seed", func(t *testing.T, db string) {
			cfg, err := wpdb.ParseURL(db)
			if err != nil {
				t.Fatal(err)
			}
			cfg.TablePrefix = "wp_"
			wpdbtest.Insert(t, cfg, sitegen.Rows(1, 0)...)
		}, "none named"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := "sqlite:" + filepath.Join(t.TempDir(), "blog.sqlite")
			tt.setup(t, db)
			err := run(context.Background(), []string{"seed", "-quiet", "-db", db, "-n", "5"}, noEnv, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("run = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
