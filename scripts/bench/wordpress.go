package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/wploadmore/wploadmore/wpdb"
)

// wordPressRoot is where Debian's wordpress package installs WordPress
// 6.1; the search rows are measured against its REST API on the bench's
// own database.
const wordPressRoot = "/usr/share/wordpress/"

// fpmChildren is php-fpm's pool (pm = static): two a core on the bench's
// two, and as many as the connections its rows are driven with.
const fpmChildren = 4

// wordPress is Debian's WordPress served by php-fpm behind nginx, both on
// loopback ports, with a wp-config.php of the bench's own naming its
// database. It is started and stopped by the PIDs of its two masters.
type wordPress struct {
	dir        string // wp-config.php, index.php, the configurations and logs
	fpm, nginx *master
	baseURL    string
}

// master is a master process of php-fpm or nginx, and its exit.
type master struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// startWordPress completes the bench's database for WordPress (see
// completeForWordPress), writes the site into dir and starts php-fpm and
// nginx, and waits until WordPress's REST index answers 200.
func startWordPress(ctx context.Context, dir string, cfg wpdb.Config) (*wordPress, error) {
	fpmBin, err1 := findTool("php-fpm", "php-fpm8.2")
	nginxBin, err2 := findTool("nginx")
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("the search rows run WordPress behind php-fpm and nginx (apt-get install wordpress php-fpm php-mysql nginx): %w", err)
	}
	if _, err := os.Stat(wordPressRoot + "wp-settings.php"); err != nil {
		return nil, fmt.Errorf("the search rows run Debian's WordPress (apt-get install wordpress): %w", err)
	}
	w := &wordPress{dir: dir}
	if err := os.MkdirAll(filepath.Join(dir, "site"), 0o755); err != nil {
		return nil, err
	}
	if err := w.writeSite(cfg); err != nil {
		return nil, err
	}
	if err := completeForWordPress(ctx, w.dir); err != nil {
		return nil, err
	}
	fpmAddr, webAddr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	if err := w.writeServers(fpmAddr, webAddr); err != nil {
		return nil, err
	}
	w.baseURL = "http://" + webAddr
	if w.fpm, err = w.start(fpmBin, "php-fpm.log", "--nodaemonize", "--allow-to-run-as-root", "-p", dir, "-y", filepath.Join(dir, "php-fpm.conf")); err != nil {
		return nil, err
	}
	if w.nginx, err = w.start(nginxBin, "nginx.log", "-p", dir, "-e", filepath.Join(dir, "nginx.log"), "-c", filepath.Join(dir, "nginx.conf")); err != nil {
		return nil, errors.Join(err, w.stop())
	}
	client := &http.Client{Timeout: 5 * time.Second}
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := client.Get(w.baseURL + "/?rest_route=/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return w, nil
			}
			err = errors.New(resp.Status)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, errors.Join(fmt.Errorf("WordPress's REST index does not answer 200: %w\n%s", err, w.logs()), w.stop())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// findTool is the first of names on PATH or in /usr/sbin, where Debian
// puts php-fpm and nginx.
func findTool(names ...string) (string, error) {
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
		if p := "/usr/sbin/" + name; exec.Command(p, "-v").Run() == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found", strings.Join(names, " or "))
}

// freeAddr returns two loopback addresses nothing listens on now, for
// php-fpm and nginx, which cannot be told to take any free port.
func freeAddr() (string, string, error) {
	var addrs []string
	for range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", "", err
		}
		defer l.Close()
		addrs = append(addrs, l.Addr().String())
	}
	return addrs[0], addrs[1], nil
}

// writeSite writes wp-config.php, naming cfg's database, and index.php,
// which loads it and then runs WordPress as its own index.php and
// wp-blog-header.php do. No cron, no updates, no outside HTTP: every
// request is WordPress answering it and nothing else.
func (w *wordPress) writeSite(cfg wpdb.Config) error {
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
define('ABSPATH', %s);
require_once ABSPATH . 'wp-settings.php';
`, phpString(dsn.DBName), phpString(dsn.User), phpString(dsn.Passwd), phpString(host), phpString(cfg.TablePrefix), phpString(wordPressRoot))
	index := `<?php
define('WP_USE_THEMES', true);
require __DIR__ . '/wp-config.php';
wp();
require_once ABSPATH . WPINC . '/template-loader.php';
`
	return errors.Join(os.WriteFile(filepath.Join(w.dir, "site", "wp-config.php"), []byte(config), 0o644),
		os.WriteFile(filepath.Join(w.dir, "site", "index.php"), []byte(index), 0o644))
}

// writeServers writes php-fpm's configuration, a static pool of
// fpmChildren on fpmAddr, and nginx's, serving the site on webAddr as
// Debian's snippets/fastcgi-php.conf would, its workers as root, who can
// read the bench's private folder.
func (w *wordPress) writeServers(fpmAddr, webAddr string) error {
	fpm := fmt.Sprintf(`[global]
pid = %[1]s/php-fpm.pid
error_log = %[1]s/php-fpm.log
[www]
listen = %[2]s
listen.backlog = 1024
pm = static
pm.max_children = %[3]d
catch_workers_output = yes
php_admin_value[error_log] = %[1]s/php-errors.log
php_admin_flag[log_errors] = on
php_admin_flag[display_errors] = off
`, w.dir, fpmAddr, fpmChildren)
	nginx := fmt.Sprintf(`user root;
worker_processes 1;
daemon off;
pid %[1]s/nginx.pid;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    server {
        listen %[2]s;
        root %[1]s/site;
        index index.php;
        location / { try_files $uri $uri/ /index.php?$args; }
        location ~ \.php$ {
            include /etc/nginx/fastcgi.conf;
            fastcgi_pass %[3]s;
            fastcgi_read_timeout 120s;
        }
    }
}
`, w.dir, webAddr, fpmAddr)
	return errors.Join(os.WriteFile(filepath.Join(w.dir, "php-fpm.conf"), []byte(fpm), 0o644),
		os.WriteFile(filepath.Join(w.dir, "nginx.conf"), []byte(nginx), 0o644))
}

// start runs bin in the foreground, its output going to log in w.dir,
// killed with the bench however the bench ends.
func (w *wordPress) start(bin, log string, args ...string) (*master, error) {
	out, err := os.OpenFile(filepath.Join(w.dir, log), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", filepath.Base(bin), err)
	}
	m := &master{cmd: cmd, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(m.exited) }()
	return m, nil
}

// stop sends SIGQUIT to nginx and php-fpm (their graceful stop: each
// master stops its own workers), by their PIDs, and kills a master still
// there after 20 s.
func (w *wordPress) stop() error {
	var errs []error
	for _, m := range []*master{w.nginx, w.fpm} {
		if m == nil {
			continue
		}
		m.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-m.exited:
		case <-time.After(20 * time.Second):
			m.cmd.Process.Kill()
			<-m.exited
			errs = append(errs, fmt.Errorf("%s did not stop within 20 s of SIGQUIT; killed", filepath.Base(m.cmd.Path)))
		}
	}
	w.nginx, w.fpm = nil, nil
	return errors.Join(errs...)
}

// logs is the end of php-fpm's, PHP's and nginx's logs, for an error.
func (w *wordPress) logs() string {
	var b strings.Builder
	for _, name := range []string{"php-fpm.log", "php-errors.log", "nginx.log"} {
		if log, err := os.ReadFile(filepath.Join(w.dir, name)); err == nil && len(bytes.TrimSpace(log)) > 0 {
			fmt.Fprintf(&b, "%s:\n%s\n", name, bytes.TrimSpace(log[max(len(log)-2000, 0):]))
		}
	}
	return b.String()
}

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
		return fmt.Errorf("WordPress REST %s: %s: %.300s\n%s", path, resp.Status, body, w.logs())
	}
	if err := json.Unmarshal(body, &posts); err != nil || len(posts) != want || posts[0].ID == 0 || posts[0].Title.Rendered == "" {
		return fmt.Errorf("WordPress REST %s: want %d posts, got %d (%v): %.300s", path, want, len(posts), err, body)
	}
	if log, _ := os.ReadFile(filepath.Join(w.dir, "php-errors.log")); len(bytes.TrimSpace(log)) > 0 {
		return fmt.Errorf("WordPress REST %s: PHP logged errors:\n%s", path, w.logs())
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
