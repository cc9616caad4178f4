package wpdb_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestOptions reads the site's options from a real options table, as
// schema.php creates it, on both drivers: all of them, some of them, none,
// and no table at all.
func TestOptions(t *testing.T) {
	t.Parallel()
	// What a WordPress install holds, among rows Options must not mix in.
	install := map[string]string{
		"siteurl":             "https://example.org",
		"blogname":            "Fish &amp; Chips &#8211; a blog",
		"blogdescription":     "Just another WordPress site",
		"date_format":         "j. F Y",
		"time_format":         "H:i",
		"timezone_string":     "Europe/Paris",
		"gmt_offset":          "",
		"posts_per_page":      "10",
		"home":                "https://example.org/blog",
		"permalink_structure": "/%category%/%postname%/",
		"category_base":       "topics",
		"default_category":    "1",
		"show_on_front":       "page",
		"page_on_front":       "42",
		"upload_url_path":     "",
		"upload_path":         "",
		"medium_size_w":       "300",
		"medium_size_h":       "300",
		"large_size_w":        "1024px", // as stored; package media reads it as PHP's (int) does
		"thumbnail_crop":      "1",
	}
	tests := []struct {
		name    string
		prefix  string
		options map[string]string // nil: no options table
		want    blog.Options
	}{
		{"install", "wp_", install, blog.Options{
			BlogName: "Fish &amp; Chips &#8211; a blog", DateFormat: "j. F Y", TimezoneString: "Europe/Paris",
			PermalinkStructure: "/%category%/%postname%/", Home: "https://example.org/blog", SiteURL: "https://example.org",
			CategoryBase: "topics", DefaultCategory: 1, ShowOnFront: "page", PageOnFront: 42,
			ImageSizes: map[string]string{"medium_size_w": "300", "medium_size_h": "300", "large_size_w": "1024px"},
		}},
		{"UTC offset", "wp_", map[string]string{"blogname": "Été", "date_format": "F j, Y", "timezone_string": "", "gmt_offset": "5.75"},
			blog.Options{BlogName: "Été", DateFormat: "F j, Y", GMTOffset: "5.75"}},
		{"other prefix", "blog2_", map[string]string{"blogname": "Second site", "gmt_offset": "-3.5"},
			blog.Options{BlogName: "Second site", GMTOffset: "-3.5"}},
		{"empty table", "wp_", map[string]string{}, blog.Options{}},
		{"language", "wp_", map[string]string{"WPLANG": "de_DE"}, blog.Options{WPLang: "de_DE", HasWPLang: true}},
		{"empty language", "wp_", map[string]string{"WPLANG": ""}, blog.Options{HasWPLang: true}},
		{"no table", "wp_", nil, blog.Options{}},
		{"wp-config addresses", "wp_", install, blog.Options{
			BlogName: "Fish &amp; Chips &#8211; a blog", DateFormat: "j. F Y", TimezoneString: "Europe/Paris",
			PermalinkStructure: "/%category%/%postname%/", Home: "https://www.example.org", SiteURL: "https://cms.example.org/wp",
			ContentURL: "https://cdn.example.org/content", CategoryBase: "topics", DefaultCategory: 1, ShowOnFront: "page", PageOnFront: 42,
			ImageSizes: map[string]string{"medium_size_w": "300", "medium_size_h": "300", "large_size_w": "1024px"},
		}},
		{"wp-config addresses, no table", "wp_", nil, blog.Options{
			Home: "https://www.example.org", SiteURL: "https://cms.example.org/wp", ContentURL: "https://cdn.example.org/content",
		}},
	}
	for _, driver := range wpdbtest.Drivers() {
		for _, tt := range tests {
			t.Run(driver+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				cfg := wpdbtest.New(t, driver, tt.prefix)
				if strings.HasPrefix(tt.name, "wp-config addresses") {
					// WP_HOME and WP_SITEURL win over the options, without
					// their trailing slash, as in WordPress.
					cfg.Addresses = wpdb.Addresses{Home: "https://www.example.org/", SiteURL: "https://cms.example.org/wp",
						ContentURL: "https://cdn.example.org/content"}
					// wp-config.php's language is handed on with them.
					cfg.Language = blog.Language{WPLang: "ja", ABSPath: "/srv/wp/"}
					tt.want.Language = cfg.Language
				}
				if tt.options != nil {
					wpdbtest.Options(t, cfg, tt.options)
				} else {
					// New made every table of the schema; a posts table
					// copied on its own comes without them.
					if _, err := wpdbtest.OpenDB(t, cfg).Exec("DROP TABLE " + tt.prefix + "options"); err != nil {
						t.Fatal(err)
					}
				}
				if tt.prefix != "wp_" {
					// Another site's table in the same database must not be read.
					other := cfg
					other.TablePrefix = "wp_"
					wpdbtest.Options(t, other, map[string]string{"blogname": "Wrong site"})
				}
				got, err := open(t, cfg).Options(context.Background())
				if err != nil {
					t.Fatalf("Options: %v", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Options (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestOptionsUnavailable checks a database that stops answering makes
// Options fail with ErrUnavailable, not return empty options the server
// would take for "not set".
func TestOptionsUnavailable(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.MySQL(t)
	wpdbtest.Options(t, cfg, map[string]string{"blogname": "A site"})
	cfg, p := wpdbtest.ThroughProxy(t, cfg)
	cfg.QueryTimeout = 500 * time.Millisecond
	s := open(t, cfg)
	for _, fail := range []struct {
		name string
		cut  func()
	}{{"refused", p.Refuse}, {"hung", p.Hang}} {
		fail.cut()
		p.DropAll()
		_, err := s.Options(context.Background())
		if !errors.Is(err, wpdb.ErrUnavailable) {
			t.Errorf("%s: Options error = %v, want wpdb.ErrUnavailable", fail.name, err)
		}
		p.Restore()
	}
	got, err := s.Options(context.Background())
	if err != nil || got.BlogName != "A site" {
		t.Errorf("Options after the outage = %+v, %v; want blogname %q", got, err, "A site")
	}
}
