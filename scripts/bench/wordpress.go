package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/wploadmore/wploadmore/internal/wpserve"
	"github.com/wploadmore/wploadmore/wpdb"
)

// fpmChildren is php-fpm's pool (pm = static): two a core on the bench's
// two, and as many as the connections its rows are driven with.
const fpmChildren = 4

// wordPress is Debian's WordPress served by php-fpm behind nginx
// (wpserve), with a wp-config.php of the bench's own naming its database.
type wordPress struct {
	dir     string // wp-config.php, index.php, the configurations and logs
	srv     *wpserve.Server
	baseURL string
}

// startWordPress completes the bench's database for WordPress (see
// completeForWordPress), writes the site into dir and serves it, once
// WordPress's REST index answers 200.
func startWordPress(ctx context.Context, dir string, cfg wpdb.Config) (*wordPress, error) {
	if _, err := os.Stat(wpserve.WordPressRoot + "wp-settings.php"); err != nil {
		return nil, fmt.Errorf("the search rows run Debian's WordPress (apt-get install wordpress): %w", err)
	}
	w := &wordPress{dir: dir}
	if err := os.MkdirAll(filepath.Join(dir, "site"), 0o755); err != nil {
		return nil, err
	}
	if err := w.writeSite(cfg, ""); err != nil {
		return nil, err
	}
	if err := completeForWordPress(ctx, w.dir); err != nil {
		return nil, err
	}
	addrs, err := wpserve.FreeAddrs(1)
	if err != nil {
		return nil, err
	}
	w.srv, err = wpserve.Start(ctx, wpserve.Config{Dir: dir, SiteDir: filepath.Join(dir, "site"), Addr: addrs[0], FPMChildren: fpmChildren})
	if err != nil {
		return nil, fmt.Errorf("the search rows run WordPress: %w", err)
	}
	w.baseURL = w.srv.URL
	return w, nil
}

// writeSite writes wp-config.php, naming cfg's database, with extra PHP
// before it loads WordPress, and index.php,
// which loads it and then runs WordPress as its own index.php and
// wp-blog-header.php do. No cron, no updates, no outside HTTP: every
// request is WordPress answering it and nothing else.
func (w *wordPress) writeSite(cfg wpdb.Config, extra string) error {
	dsn, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		return fmt.Errorf("wordpress: %w", err)
	}
	host := dsn.Addr
	if dsn.Net == "unix" {
		host = "localhost:" + dsn.Addr // WordPress's spelling of a socket
	}
	config := fmt.Sprintf(`<?php
define('DB_NAME', %s);
define('DB_USER', %s);
define('DB_PASSWORD', %s);
define('DB_HOST', %s);
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
$table_prefix = %s;
define('DISABLE_WP_CRON', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_HTTP_BLOCK_EXTERNAL', true);
%sdefine('ABSPATH', %s);
require_once ABSPATH . 'wp-settings.php';
`, phpString(dsn.DBName), phpString(dsn.User), phpString(dsn.Passwd), phpString(host), phpString(cfg.TablePrefix), extra, phpString(wpserve.WordPressRoot))
	return errors.Join(os.WriteFile(filepath.Join(w.dir, "site", "wp-config.php"), []byte(config), 0o644),
		os.WriteFile(filepath.Join(w.dir, "site", "index.php"), []byte(wpserve.Index), 0o644))
}

// stop stops nginx and php-fpm by their PIDs (wpserve.Server.Stop).
func (w *wordPress) stop() error { return w.srv.Stop() }

// completeForWordPress creates, by WordPress's own dbDelta and schema
// (wp_get_db_schema), the tables of a WordPress site that the seed does
// not write (usermeta, termmeta, comments, links…), empty; the tables
// there are left as they are. WordPress reads some of them to answer a
// REST request, and logs a database error for each it finds missing.
func completeForWordPress(ctx context.Context, dir string) error {
	script := filepath.Join(dir, "site", "complete.php")
	code := `<?php
$_SERVER['HTTP_HOST'] = '127.0.0.1';
$_SERVER['REQUEST_URI'] = '/';
require __DIR__ . '/wp-config.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
global $wpdb;
foreach (explode(';', wp_get_db_schema('all')) as $create) {
	if (preg_match('/CREATE TABLE (\S+)/', $create, $m) && $wpdb->get_var($wpdb->prepare('SHOW TABLES LIKE %s', $m[1])) === null) {
		dbDelta($create);
		echo "created $m[1]\n";
	}
}
`
	if err := os.WriteFile(script, []byte(code), 0o644); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, setupQueryTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "php", "-d", "display_errors=stderr", "-d", "error_reporting=E_ALL & ~E_DEPRECATED", script).CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("error")) {
		return fmt.Errorf("wordpress: creating its missing tables: %v\n%s", err, out)
	}
	return nil
}

// restPosts is what WordPress's REST API answers for the posts route.
type restPosts []struct {
	ID    uint64 `json:"id"`
	Title struct {
		Rendered string `json:"rendered"`
	} `json:"title"`
}

// checkREST asks WordPress at baseURL for path, which must be a page of
// the posts route, and fails unless it answers 200 with want posts and
// nothing in PHP's error log: WordPress measured while failing would not
// be WordPress measured.
func (w *wordPress) checkREST(ctx context.Context, path string, want int) error {
	ctx, cancel := context.WithTimeout(ctx, setupQueryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.baseURL+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("WordPress REST %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("WordPress REST %s: %w", path, err)
	}
	var posts restPosts
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("WordPress REST %s: %s: %.300s\n%s", path, resp.Status, body, w.srv.Logs())
	}
	if err := json.Unmarshal(body, &posts); err != nil || len(posts) != want || posts[0].ID == 0 || posts[0].Title.Rendered == "" {
		return fmt.Errorf("WordPress REST %s: want %d posts, got %d (%v): %.300s", path, want, len(posts), err, body)
	}
	if w.srv.PHPErrors() != "" {
		return fmt.Errorf("WordPress REST %s: PHP logged errors:\n%s", path, w.srv.Logs())
	}
	return nil
}

// process is WordPress as the rows' server: wrk drives it at baseURL;
// its processes are not watched (no RSS or CPU figures).
func (w *wordPress) process() *serverProcess { return &serverProcess{baseURL: w.baseURL} }

// phpString quotes s as a PHP single-quoted string literal.
func phpString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
