package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// visitorPHP prints what WordPress shows a visitor of post %d: its title
// and date, and the page's <html> attributes.
const visitorPHP = `
$p = get_post(%d);
echo json_encode(array(html_entity_decode(get_the_title($p), ENT_QUOTES, 'UTF-8'), get_the_date('', $p), get_language_attributes()));
`

// TestLanguageFollowsOption changes a running server's site language in
// WordPress, and its catalogue on disk, while the server reads the
// options again as listing.WatchOptions does (every 50 ms here, every
// listing.OptionsEvery in production): the JSON and the page follow within
// the refresh and the freshness bound, as WordPress shows them.
func TestLanguageFollowsOption(t *testing.T) {
	t.Parallel()
	wpdbtest.NeedGettext(t)
	wp := wpdbtest.NewWordPress(t)
	var id uint64
	if err := json.Unmarshal(wp.PHP(t, `wp_delete_post(1, true); echo wp_insert_post(array('post_title' => 'Members', 'post_content' => 'x',
		'post_status' => 'publish', 'post_password' => 'secret', 'post_date' => '2024-06-30 18:00:00'));
		update_option('WPLANG', ''); update_option('date_format', 'j. F Y');`), &id); err != nil {
		t.Fatal(err)
	}
	wp.WriteLanguageFile(t, "de_DE.mo", wpdbtest.MO(t, "de_DE", ""))

	h := watchingServer(t, wp, 1, "-cache-ttl", "200ms", "-wp-languages", wp.LanguagesDir())
	shown := func() [3]string {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/load-more.php?start=0&desiredPosts=1", nil))
		var posts []listing.Post
		if err := json.Unmarshal(w.Body.Bytes(), &posts); err != nil || len(posts) == 0 {
			t.Fatalf("%d %s: %v", w.Code, w.Body, err)
		}
		page := httptest.NewRecorder()
		h.ServeHTTP(page, httptest.NewRequest(http.MethodGet, "/load-more.php", nil))
		return [3]string{posts[0].TitleText, posts[0].LocalDate, match(htmlAttributes, page.Body.String())}
	}
	steps := []struct{ name, php, po, localePHP string }{
		{"English", "", "", ""},
		{"German chosen", "update_option('WPLANG', 'de_DE');", "", ""},
		{"German catalogue updated", "", "msgid \"Protected: %s\"\nmsgstr \"Passwortgeschützt: %s\"\n", ""},
		// An old language pack's de_DE.php, which WordPress runs and
		// whose $text_direction wins over the catalogue's.
		{"German right to left", "", "", "<?php\n$text_direction = 'rtl';\n"},
		{"English again", "update_option('WPLANG', '');", "", ""},
	}
	for _, step := range steps {
		if step.php != "" {
			wp.PHP(t, step.php)
		}
		if step.po != "" {
			wp.WriteLanguageFile(t, "de_DE.mo", wpdbtest.MO(t, "de_DE", step.po))
		}
		if step.localePHP != "" {
			wp.WriteLanguageFile(t, "de_DE.php", []byte(step.localePHP))
		}
		var fromWP [3]string
		if err := json.Unmarshal(wp.PHP(t, fmt.Sprintf(visitorPHP, id)), &fromWP); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			got := shown()
			got[2] = fmt.Sprint(attributesOf(got[2]))
			want := fromWP
			want[2] = fmt.Sprint(attributesOf(want[2]))
			if got == want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: title, date and <html> attributes (-WordPress +got) after 10 s:\n%s", step.name, cmp.Diff(want, got))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// TestLanguageFromWPConfig finds the language as get_locale() does on a
// site whose WPLANG option is gone: wp-config.php's WPLANG constant, and
// the catalogue in its WP_CONTENT_DIR (built from __DIR__), with neither
// -locale nor -wp-languages given.
func TestLanguageFromWPConfig(t *testing.T) {
	t.Parallel()
	wpdbtest.NeedGettext(t)
	wp := wpdbtest.NewWordPress(t)
	mo := wpdbtest.MO(t, "de_DE", "")
	wp.WriteLanguageFile(t, "de_DE.mo", mo)
	wp.Defines["WPLANG"] = "de_DE"
	var id uint64
	if err := json.Unmarshal(wp.PHP(t, `wp_delete_post(1, true); delete_option('WPLANG'); update_option('date_format', 'l, j. F Y');
		echo wp_insert_post(array('post_title' => 'Members', 'post_content' => 'x', 'post_status' => 'publish',
		'post_password' => 'secret', 'post_date' => '2024-06-30 18:00:00'));`), &id); err != nil {
		t.Fatal(err)
	}
	var fromWP [3]string
	if err := json.Unmarshal(wp.PHP(t, fmt.Sprintf(visitorPHP, id)), &fromWP); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	dsn, err := mysql.ParseDSN(wp.Config.DSN)
	if err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`<?php
define('DB_NAME', '%s'); define('DB_USER', '%s'); define('DB_PASSWORD', '%s'); define('DB_HOST', '%s');
define('WPLANG', 'de_DE');
define('WP_CONTENT_DIR', __DIR__ . '/content');
$table_prefix = 'wp_';
`, dsn.DBName, dsn.User, dsn.Passwd, dsn.Addr)
	for name, data := range map[string][]byte{"wp-config.php": []byte(config), "content/languages/de_DE.mo": mo} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := startServer(t, map[string]string{"LOADMORE_WP_CONFIG": filepath.Join(dir, "wp-config.php")})
	posts := srv.get(t, jsonPath(0, 1)).posts(t)
	got := [3]string{posts[0].TitleText, posts[0].LocalDate, fmt.Sprint(attributesOf(match(htmlAttributes, srv.get(t, "/load-more.php").Body)))}
	fromWP[2] = fmt.Sprint(attributesOf(fromWP[2]))
	if diff := cmp.Diff(fromWP, got); diff != "" {
		t.Errorf("title, date and <html> attributes (-WordPress +got):\n%s", diff)
	}
}

// TestLocaleSettings: -locale wins over the site's own locale, and
// -wp-languages over the folder WordPress would find.
func TestLocaleSettings(t *testing.T) {
	t.Parallel()
	flags, site := t.TempDir(), t.TempDir()
	for _, dir := range []string{flags, filepath.Join(site, "wp-content", "languages")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, locale := range []string{"de_DE", "fr_FR"} {
			if err := os.WriteFile(filepath.Join(dir, locale+".mo"), wpdbtest.MO(t, locale, ""), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	options := blog.Options{WPLang: "de_DE", HasWPLang: true, Language: blog.Language{ABSPath: site + "/", ContentDir: filepath.Join(site, "wp-content")}}
	tests := []struct {
		args   []string
		locale string
		dir    string
	}{
		{nil, "de_DE", filepath.Join(site, "wp-content", "languages")},
		{[]string{"-locale", "fr_FR"}, "fr_FR", filepath.Join(site, "wp-content", "languages")},
		{[]string{"-wp-languages", flags}, "de_DE", flags},
	}
	for _, tt := range tests {
		cfg, err := parseConfig(append([]string{"wploadmore"}, tt.args...), envFunc(nil), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		var logs strings.Builder
		lang := cfg.language(options, listing.NewCatalogues(slog.New(slog.NewTextHandler(&logs, nil))))
		if lang.Locale != tt.locale || lang.Catalogue == nil || !strings.Contains(logs.String(), filepath.Join(tt.dir, tt.locale+".mo")) {
			t.Errorf("%q: locale %q, catalogue %v, want %s from %s; logged:\n%s", tt.args, lang.Locale, lang.Catalogue != nil, tt.locale, tt.dir, logs.String())
		}
	}
}
