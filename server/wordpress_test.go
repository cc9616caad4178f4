package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// wordpressSchemaPHP prints the tables of a WordPress site as WordPress
// 6.1 (Debian's wordpress package) creates them, through wp_get_db_schema,
// with the few globals it reads stood in for.
const wordpressSchemaPHP = `<?php
class SchemaDB {
	public $prefix = 'wp_';
	public $base_prefix = 'wp_';
	public function __get($table) { return 'wp_' . $table; }
	public function get_charset_collate() { return 'DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci'; }
	public function get_blog_prefix($id = null) { return 'wp_'; }
	public function has_cap($cap) { return true; }
}
$wpdb = new SchemaDB();
function is_multisite() { return false; }
define('ABSPATH', '/usr/share/wordpress/');
require ABSPATH . 'wp-admin/includes/schema.php';
echo wp_get_db_schema('blog');
`

// wordpressSchema returns WordPress's own CREATE TABLE statements, run
// through php-cli from Debian's wordpress package.
func wordpressSchema(t *testing.T) []string {
	t.Helper()
	const schemaFile = "/usr/share/wordpress/wp-admin/includes/schema.php"
	testkit.NeedPackage(t, "php-cli", "php")
	testkit.NeedPackage(t, "wordpress", schemaFile)
	cmd := exec.Command("php")
	cmd.Stdin = strings.NewReader(wordpressSchemaPHP)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("php wp_get_db_schema: %v\n%s", err, out)
	}
	var stmts []string
	for stmt := range strings.SplitSeq(string(out), ";\n") {
		if stmt = strings.TrimSpace(stmt); stmt != "" {
			stmts = append(stmts, stmt)
		}
	}
	if len(stmts) < 10 || !strings.Contains(string(out), "CREATE TABLE wp_posts") {
		t.Fatalf("wp_get_db_schema printed %d statements, no wp_posts:\n%s", len(stmts), out)
	}
	return stmts
}

// TestRealWordPressSite serves a database made by WordPress's own schema,
// holding posts as WordPress stores them, and checks in Chromium what a
// reader sees: titles with their character references decoded, excerpts
// without core's shortcodes but with a plugin's, dates in the site's
// format, and the site's name as the title.
func TestRealWordPressSite(t *testing.T) {
	browserCtx := browser(t)
	// A database of its own; WordPress's tables replace the helper's.
	cfg := wpdbtest.New(t, wpdb.DriverMySQL, "unused_")
	db := wpdbtest.OpenDB(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, stmt := range wordpressSchema(t) {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%v\n%s", err, stmt)
		}
	}
	for _, o := range [][2]string{{"blogname", "The Harbour Kitchen"}, {"date_format", "F j, Y"}, {"timezone_string", "Europe/London"}} {
		if _, err := db.ExecContext(ctx, "INSERT INTO wp_options (option_name, option_value, autoload) VALUES (?, ?, 'yes')", o[0], o[1]); err != nil {
			t.Fatal(err)
		}
	}
	// As the editor saves them: kses stores an author's & as &amp; and
	// wptexturize's dash as a character reference.
	posts := []struct{ date, title, content, status string }{
		{"2024-06-30 18:00:00", "Fish &amp; Chips &#8211; entities 4",
			`[gallery ids="3,4,5" columns="2"] Intro text 3 [caption id="attachment_9" align="alignnone" width="300"]<img src="x.jpg" alt=""> A caption[/caption] more text [embed]https://example.com/video[/embed] [contact-form-7 id="12" title="Contact"]`, "publish"},
		{"2024-06-29 09:15:00", "Hello <b>World</b>", "<!-- wp:paragraph --><p>Welcome to WordPress. This is your first post.</p><!-- /wp:paragraph -->", "publish"},
		{"2024-07-01 12:00:00", "A draft", "Not yet.", "draft"},
	}
	for _, p := range posts {
		if _, err := db.ExecContext(ctx, `INSERT INTO wp_posts (post_author, post_date, post_date_gmt, post_content, post_title,
			post_excerpt, post_status, post_name, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, post_type)
			VALUES (1, ?, ?, ?, ?, '', ?, ?, '', '', ?, ?, '', 'post')`,
			p.date, p.date, p.content, p.title, p.status, strings.ToLower(strings.Fields(p.title)[0]), p.date, p.date); err != nil {
			t.Fatal(err)
		}
	}
	cfg.TablePrefix = "wp_"
	pageURL := startBrowserServer(t, cfg, map[string]string{"LOADMORE_TABLE_PREFIX": "wp_"})

	tb := newTab(t, browserCtx)
	tb.do(chromedp.Navigate(pageURL), chromedp.WaitVisible("#posts"))
	text := eval[string](tb, `document.body.innerText`)
	tb.screenshot("wordpress-site")
	for _, want := range []string{"The Harbour Kitchen", "Fish & Chips – entities 4", "Hello World", "June 30, 2024", "June 29, 2024",
		"Intro text 3", "more text", `[contact-form-7 id="12" title="Contact"]`, "Welcome to WordPress."} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not show %q:\n%s", want, text)
		}
	}
	for _, unwanted := range []string{"[gallery", "[caption", "[/caption]", "[embed]", "A caption", "&amp;", "&#8211;", "<b>", "A draft"} {
		if strings.Contains(text, unwanted) {
			t.Errorf("the page shows %q:\n%s", unwanted, text)
		}
	}
	if title := eval[string](tb, `document.title`); title != "The Harbour Kitchen" {
		t.Errorf("document.title = %q, want the site's blogname", title)
	}
	if dt := eval[string](tb, `document.querySelector('#posts time')?.getAttribute('datetime') ?? ''`); dt != "2024-06-30T18:00:00" {
		t.Errorf("first <time datetime> = %q, want 2024-06-30T18:00:00", dt)
	}
	tb.noConsoleProblems(false)
}
