package wpdbtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/internal/wpserve"
)

// DebianThemes is where Debian's wordpress-theme-* packages install the
// default themes.
const DebianThemes = WordPressRoot + "wp-content/themes/"

// UseTheme makes name, one of Debian's themes (twentytwentyone,
// twentytwentythree), the site's theme, as Appearance › Themes ›
// Activate does: linked into the site's themes folder and switched to
// with switch_theme(). It fails t, or skips it under -short, when the
// theme's package is missing.
func (wp *WordPress) UseTheme(t testing.TB, name string) {
	t.Helper()
	testkit.NeedPackage(t, "wordpress-theme-"+name, DebianThemes+name+"/style.css")
	link := filepath.Join(wp.dir, "wp-content", "themes", name)
	if _, err := os.Lstat(link); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatalf("wpdbtest: %v", err)
		}
		if err := os.Symlink(DebianThemes+name, link); err != nil {
			t.Fatalf("wpdbtest: %v", err)
		}
	}
	wp.PHP(t, fmt.Sprintf(`switch_theme(%s);
if (get_stylesheet() !== %[1]s || wp_get_theme()->errors()) { fwrite(STDERR, "theme not active: " . get_stylesheet()); exit(1); }`, phpString(name)))
}

// HTTPAddress chooses the loopback address Serve will listen on and makes
// it the site's address (the options home and siteurl, http://addr), so
// that WordPress's links, and those of a wploadmore server started after
// it on the site's database, lead there. It returns the site's URL.
func (wp *WordPress) HTTPAddress(t testing.TB) string {
	t.Helper()
	if wp.addr == "" {
		addrs, err := wpserve.FreeAddrs(1)
		if err != nil {
			t.Fatal(err)
		}
		wp.addr = addrs[0]
	}
	url := "http://" + wp.addr
	wp.PHP(t, fmt.Sprintf("update_option('home', %[1]s); update_option('siteurl', %[1]s);", phpString(url)))
	return url
}

// Serve serves the site over HTTP at the address HTTPAddress chose, as a
// Debian host does (see wpserve): php-fpm behind nginx, the site's
// wp-content at /wp-content/, and, when upstream is not "", wploadmore's
// URLs sent to the wploadmore server at upstream (host:port) by the
// project's own nginx snippet, deploy/nginx/wploadmore.conf: the same
// origin as the site. It stops both when t ends, and fails t unless the
// site answers. PHP's error log is the returned server's PHPErrors, and
// nginx's access log its Requests.
func (wp *WordPress) Serve(t testing.TB, upstream string) *wpserve.Server {
	t.Helper()
	if wp.addr == "" {
		t.Fatal("wpdbtest: Serve before HTTPAddress: the site's address must be its home")
	}
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	writeFile(t, site, "wp-config.php", []byte("<?php\n"+wp.config()+"require_once ABSPATH . 'wp-settings.php';\n"))
	writeFile(t, site, "index.php", []byte(wpserve.Index))
	adminFiles(t, site)
	cfg := wpserve.Config{Dir: dir, SiteDir: site, ContentDir: filepath.Join(wp.dir, "wp-content"), Addr: wp.addr, ReadyPath: "/", AccessLog: true}
	if upstream != "" {
		cfg.Upstream, cfg.Snippet = upstream, filepath.Join(repoRoot(t), "deploy", "nginx", "wploadmore.conf")
	}
	srv, err := wpserve.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Error(err)
		}
	})
	return srv
}

// repoRoot is the folder of go.mod above the test's working directory.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("wpdbtest: no go.mod above the working directory")
		}
		dir = parent
	}
}
