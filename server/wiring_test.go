package main

import (
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wploadmore/wploadmore/public"
	"github.com/wploadmore/wploadmore/templates"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestBuildWithoutAssets checks that a binary built without `make assets`
// refuses to start with a message saying what to run, rather than serve a
// page whose script cannot load.
func TestBuildWithoutAssets(t *testing.T) {
	cfg, err := parseConfig([]string{"wploadmore"}, envFunc(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	_, err = newServer(serverDeps{
		Config:    cfg,
		Logger:    slog.New(slog.DiscardHandler),
		Templates: templates.FS,
		Public:    fstest.MapFS{"load-more.js": {Data: []byte("//")}},
	})
	if err == nil || !strings.Contains(err.Error(), "make assets") {
		t.Errorf("error %v, want one telling to run make assets", err)
	}
	if _, err := public.FS.Open(vendoredMustache); err != nil {
		t.Errorf("this build lacks %s: run make assets", vendoredMustache)
	}
}

// TestWPConfig starts the server the way an operator points it at a site:
// with the site's wp-config.php.
func TestWPConfig(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.New(t, wpdb.DriverMySQL, "blog_")
	want := seedBlog(t, cfg, 3)
	dsn := dbURL(t, cfg)
	dbName := dsn[strings.LastIndex(dsn, "/")+1:]
	wpConfig := `<?php
/** The name of the database for WordPress */
define( 'DB_NAME', '` + dbName + `' );
define( "DB_USER", "root" );   // set by the host
define('DB_PASSWORD','');
/* MariaDB on this machine */
define( 'DB_HOST', '127.0.0.1:3306' );
define( 'DB_CHARSET', 'utf8' );
define( 'DB_COLLATE', '' );
$table_prefix = 'blog_';
require_once ABSPATH . 'wp-settings.php';
`
	path := filepath.Join(t.TempDir(), "wp-config.php")
	if err := os.WriteFile(path, []byte(wpConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, map[string]string{"LOADMORE_WP_CONFIG": path})
	if got := postIDs(srv.get(t, jsonPath(0, 3)).posts(t)); len(got) != 3 || got[0] != want[0] {
		t.Errorf("posts %v, want %v", got, want)
	}
}

// TestSessionCookie checks the cookie PHP's session would send, hardened,
// and strict mode: an id the store never issued is replaced.
func TestSessionCookie(t *testing.T) {
	t.Parallel()
	srv := startServer(t, nil)
	cookieLine := regexp.MustCompile(`^PHPSESSID=[0-9a-f]{32}; Path=/; HttpOnly; SameSite=Lax$`)

	first := srv.get(t, "/load-more.php")
	setCookie := first.Header.Get("Set-Cookie")
	if !cookieLine.MatchString(setCookie) {
		t.Fatalf("Set-Cookie %q, want PHPSESSID=<32 hex>; Path=/; HttpOnly; SameSite=Lax", setCookie)
	}
	if again := srv.get(t, "/load-more.php"); again.Header.Get("Set-Cookie") != "" {
		t.Errorf("a known session got a new cookie: %q", again.Header.Get("Set-Cookie"))
	}

	for _, planted := range []string{"0123456789abcdefghijklmnopqrstuv", "short", "bad*chars*here*but*long*enough*1"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+jsonPath(0, 2), nil)
		req.AddCookie(&http.Cookie{Name: "PHPSESSID", Value: planted})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := resp.Header.Get("Set-Cookie")
		if !cookieLine.MatchString(got) || strings.Contains(got, planted) {
			t.Errorf("planted id %q: Set-Cookie %q, want a fresh id", planted, got)
		}
	}
}
