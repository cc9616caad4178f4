package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/wploadmore/wploadmore/internal/wpserve"
)

// The push row: the real WordPress plugin on Debian's WordPress, in a
// throwaway database, sends change events on the bench's Redis to a
// server with the default bounds. It times pushPublishes changes of each
// kind (pushkinds.go) from WordPress's function's return to the JSON,
// the page and a kept search showing the change, on one instance and on
// two, and counts the server's own statements a second while nothing
// changes and a reader asks the blog's JSON pushReadsPerSecond times a
// second: once with the server following no channel, once with the
// plugin's events.
const (
	pushPublishes      = 200
	pushGap            = 200 * time.Millisecond // between changes: each an edit of its own, not a burst (more than 8 a second)
	pushIdle           = 10 * time.Second
	pushReadsPerSecond = 20
	pushPluginDir      = "wordpress-plugin/wploadmore"
	pushRow            = "push: publish → JSON" // its name, which -run matches
)

// pushFigures are the push row's figures.
type pushFigures struct {
	Publishes          int     `json:"publishes"`
	P50                ms      `json:"publish_to_json_p50_ms"`
	P99                ms      `json:"publish_to_json_p99_ms"`
	Max                ms      `json:"publish_to_json_max_ms"`
	ReadsPerSecond     int     `json:"idle_reader_requests_per_second"`
	IdleQueriesPolling float64 `json:"idle_queries_per_second_polling"`
	IdleQueriesPushed  float64 `json:"idle_queries_per_second_pushed"`
	// Kinds are each kind's figures, on one instance, then on two.
	Kinds []pushKindFigures `json:"kinds"`
}

// pushTargets are the push row's targets (docs/push.md): every kind of
// change shown by the JSON and the page within 50 ms at p99, as issue 38
// asks; by a kept search likewise, ours (the issue asks only that kept
// rankings no longer wait for -search-ttl); a publish by the JSON
// likewise; and tenfold fewer idle queries while pushed. None when the
// row did not run.
func pushTargets(p *pushFigures) []target {
	if p == nil {
		return nil
	}
	shown := slowestSurface(p.Kinds, surfaceJSON, surfacePage)
	search := slowestSurface(p.Kinds, surfaceSearch)
	return []target{
		newTarget("change → JSON and page p99, every kind, one and two instances", shown.ms, 50, true, "ms", shown.where),
		newTarget("change → kept search p99, every kind it shows in, one and two instances", search.ms, 50, true, "ms", search.where),
		newTarget("publish → JSON p99, change events", float64(p.P99)/float64(time.Millisecond), 50, true, "ms",
			fmt.Sprintf("p50 %s over %d publishes, the default bounds", p.P50, p.Publishes)),
		newTarget("idle queries a second, pushed vs polling", p.IdleQueriesPushed/p.IdleQueriesPolling, 0.1, true, "×",
			fmt.Sprintf("%.1f vs %.1f, the server's own, a visitor asking %d times a second", p.IdleQueriesPushed, p.IdleQueriesPolling, p.ReadsPerSecond)),
	}
}

// slowest is the highest p99 of some surfaces, in milliseconds, and
// where it was.
type slowest struct {
	ms    float64
	where string
}

// slowestSurface finds the highest p99 among kinds' figures for surfaces.
func slowestSurface(kinds []pushKindFigures, surfaces ...string) slowest {
	worst, out := spread{}, slowest{where: "no change timed"}
	for _, k := range kinds {
		for _, surface := range surfaces {
			if s, ok := k.surfaces()[surface]; ok && s.P99 >= worst.P99 {
				worst = s
				out = slowest{ms: float64(s.P99) / float64(time.Millisecond),
					where: fmt.Sprintf("the slowest: %s → %s on %d instance(s), over %d changes", k.Kind, surface, k.Instances, k.Changes)}
			}
		}
	}
	return out
}

// pushSite is the throwaway WordPress site of the push row.
type pushSite struct {
	dir, database string
	bootstrap     string // a PHP file loading WordPress on the site
}

// measurePush runs the push row into rep.Push.
func (b *bench) measurePush(ctx context.Context, rep *report) (err error) {
	if _, err := os.Stat(wpserve.WordPressRoot + "wp-settings.php"); err != nil {
		return fmt.Errorf("the push row runs Debian's WordPress (apt-get install wordpress php-cli php-mysql php-redis): %w", err)
	}
	if out, err := exec.CommandContext(ctx, "php", "-m").Output(); err != nil || !strings.Contains(string(out), "\nredis\n") {
		return errors.New("the push row runs the plugin, which needs phpredis: apt-get install php-redis")
	}
	dsn, err := mysql.ParseDSN(b.dbCfg.DSN)
	if err != nil {
		return err
	}
	site := &pushSite{dir: filepath.Join(b.dir, "push"), database: "wploadmore_bench_push_" + strings.ToLower(rand.Text()[:8])}
	channel := b.prefix + "events"
	if _, err := b.db.ExecContext(ctx, "CREATE DATABASE `"+site.database+"` CHARACTER SET utf8mb4"); err != nil {
		return err
	}
	defer func() {
		_, e := b.db.ExecContext(context.WithoutCancel(ctx), "DROP DATABASE IF EXISTS `"+site.database+"`")
		err = errors.Join(err, e)
	}()
	b.logf("push row: installing WordPress and the plugin in %s", site.database)
	if err := site.install(ctx, dsn, b.o.redis, channel); err != nil {
		return err
	}
	proxy, err := startStatementProxy(dsn.Net, dsn.Addr)
	if err != nil {
		return err
	}
	defer proxy.close()
	serverDB := url.URL{Scheme: "mysql", User: url.UserPassword(dsn.User, dsn.Passwd), Host: proxy.addr, Path: "/" + site.database}
	if dsn.Passwd == "" {
		serverDB.User = url.User(dsn.User)
	}
	args := []string{"-db", serverDB.String(), "-table-prefix", "wp_", "-redis", b.o.redis, "-session-prefix", b.prefix}
	fig := &pushFigures{Publishes: pushPublishes, ReadsPerSecond: pushReadsPerSecond}
	for _, mode := range []struct {
		channel string
		into    *float64
	}{{"", &fig.IdleQueriesPolling}, {channel, &fig.IdleQueriesPushed}} {
		srv, err := startServer(ctx, b.serverBin, filepath.Join(b.dir, "server-push"+mode.channel+".log"), append(args, "-push-channel", mode.channel))
		if err != nil {
			return err
		}
		if mode.channel != "" {
			err = waitPushed(ctx, srv.baseURL)
		}
		if err == nil && mode.channel != "" {
			// One heartbeat, as the plugin's WP-Cron event sends it each
			// minute on a site whose cron runs: the server then knows the
			// plugin is alive and stretches its polling.
			_, err = site.php(ctx, `require $argv[1]; do_action(WPLoadMore_Events_Heartbeat::HOOK); WPLoadMore_Events::send();`)
		}
		if err == nil {
			*mode.into, err = idleQueries(ctx, srv.baseURL, proxy)
		}
		if err == nil && mode.channel != "" {
			err = b.timeKinds(ctx, site, srv.baseURL, append(args, "-push-channel", mode.channel), fig)
		}
		if err = errors.Join(err, srv.stop()); err != nil {
			return err
		}
	}
	rep.Push = fig
	return nil
}

// install writes the site's bootstrap, installs WordPress in its
// database, copies the plugin into its plugins folder and activates it,
// with WPLOADMORE_REDIS and WPLOADMORE_REDIS_CHANNEL given.
func (s *pushSite) install(ctx context.Context, dsn *mysql.Config, redisURL, channel string) error {
	plugins := filepath.Join(s.dir, "wp-content", "plugins")
	if err := os.MkdirAll(plugins, 0o755); err != nil {
		return err
	}
	if err := os.CopyFS(filepath.Join(plugins, "wploadmore"), os.DirFS(pushPluginDir)); err != nil {
		return fmt.Errorf("push row: the plugin (run the bench from the repository root): %w", err)
	}
	host := dsn.Addr
	if dsn.Net == "unix" {
		host = "localhost:" + dsn.Addr
	}
	s.bootstrap = filepath.Join(s.dir, "bootstrap.php")
	boot := fmt.Sprintf(`<?php
define('DB_NAME', %s);
define('DB_USER', %s);
define('DB_PASSWORD', %s);
define('DB_HOST', %s);
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
define('ABSPATH', %s);
define('WP_CONTENT_DIR', %s);
define('WPLOADMORE_REDIS', %s);
define('WPLOADMORE_REDIS_CHANNEL', %s);
define('DISABLE_WP_CRON', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_HTTP_BLOCK_EXTERNAL', true);
$table_prefix = 'wp_';
$_SERVER['HTTP_HOST'] = 'example.org';
$_SERVER['SERVER_NAME'] = 'example.org';
$_SERVER['SERVER_PORT'] = '80';
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['REQUEST_METHOD'] = 'GET';
$_SERVER['SERVER_PROTOCOL'] = 'HTTP/1.1';
if (defined('PUSH_INSTALLING')) { define('WP_INSTALLING', true); function wp_new_blog_notification() {} }
require ABSPATH . 'wp-settings.php';
`, phpString(s.database), phpString(dsn.User), phpString(dsn.Passwd), phpString(host), phpString(wpserve.WordPressRoot),
		phpString(filepath.Join(s.dir, "wp-content")), phpString(redisURL), phpString(channel))
	if err := os.WriteFile(s.bootstrap, []byte(boot), 0o644); err != nil {
		return err
	}
	if _, err := s.php(ctx, `define('PUSH_INSTALLING', true); require $argv[1];
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
wp_install('bench', 'admin', 'admin@example.org', false, '', 'password');`); err != nil {
		return err
	}
	_, err := s.php(ctx, `require $argv[1]; require_once ABSPATH . 'wp-admin/includes/plugin.php';
$r = activate_plugin('wploadmore/wploadmore.php'); if (is_wp_error($r)) { fwrite(STDERR, $r->get_error_message()); exit(1); }`)
	return err
}

// php runs code with the bootstrap's path as $argv[1].
func (s *pushSite) php(ctx context.Context, code string) ([]byte, error) {
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, "php", "-d", "display_errors=stderr", "-d", "error_reporting=E_ALL & ~E_DEPRECATED", "-r", code, "--", s.bootstrap)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		return nil, fmt.Errorf("push row: php: %v: %s", err, stderr.String())
	}
	return out, nil
}

// waitPushed polls /readyz until the server says it is pushed, for 10 s.
func waitPushed(ctx context.Context, base string) error {
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if body, err := get(ctx, http.DefaultClient, base+"/readyz"); err == nil && strings.Contains(string(body), `"push":"pushed"`) {
			return nil
		}
	}
	return errors.New("push row: the server never said pushed")
}

// idleQueries reads the blog's JSON pushReadsPerSecond times a second,
// as one visitor, for pushIdle after a second's warm-up, and returns the
// server's statements a second meanwhile.
func idleQueries(ctx context.Context, base string, proxy *statementProxy) (float64, error) {
	client := newVisitor()
	tick := time.NewTicker(time.Second / pushReadsPerSecond)
	defer tick.Stop()
	var before int64
	start := time.Now()
	for warm := true; time.Since(start) < pushIdle+time.Second; <-tick.C {
		if warm && time.Since(start) >= time.Second {
			warm, before, start = false, proxy.statements.Load(), time.Now().Add(-time.Second)
		}
		if _, err := get(ctx, client, base+"/load-more.php?start=0&desiredPosts=10"); err != nil {
			return 0, err
		}
	}
	return float64(proxy.statements.Load()-before) / time.Since(start.Add(time.Second)).Seconds(), nil
}

// newVisitor is one browser's client: its session cookie kept.
func newVisitor() *http.Client {
	jar, _ := cookiejar.New(nil) // no options: never an error
	return &http.Client{Jar: jar, Timeout: 10 * time.Second}
}

// get returns url's body, and an error for a status other than 200.
func get(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return body, err
}
