package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// startSocketOnlyMariaDB starts a throwaway mariadbd with skip-networking,
// reachable only through the Unix socket it returns, and stops it by PID
// when t ends. Under CI a failure to start it fails t.
func startSocketOnlyMariaDB(t *testing.T) string {
	t.Helper()
	for _, bin := range []string{"mariadb-install-db", "mariadbd"} {
		if _, err := exec.LookPath(bin); err != nil && !fileExists("/usr/sbin/"+bin) {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s not found: apt-get install mariadb-server", bin)
			}
			t.Skipf("%s not found", bin)
		}
	}
	// A short folder: a socket path must fit in 108 bytes.
	dir, err := os.MkdirTemp("", "wlm-sock-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "mysqld.sock")
	install := exec.Command("mariadb-install-db", "--no-defaults", "--user=root", "--datadir="+data,
		"--auth-root-authentication-method=normal", "--skip-test-db")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	mariadbd := "/usr/sbin/mariadbd"
	if p, err := exec.LookPath("mariadbd"); err == nil {
		mariadbd = p
	}
	cmd := exec.Command(mariadbd, "--no-defaults", "--user=root", "--datadir="+data, "--socket="+sock,
		"--skip-networking", "--pid-file="+filepath.Join(dir, "mysqld.pid"), "--log-error="+filepath.Join(dir, "error.log"),
		"--innodb-buffer-pool-size=16M", "--skip-log-bin")
	if err := cmd.Start(); err != nil {
		t.Fatalf("start mariadbd: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	for deadline := time.Now().Add(time.Minute); !isSocket(sock); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("mariadbd made no socket in a minute:\n%s", log)
		}
	}
	return sock
}

func fileExists(path string) bool { _, err := os.Stat(path); return err == nil }

func isSocket(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode()&os.ModeSocket != 0
}

// TestLocalhostThroughTheSocket: with DB_HOST 'localhost', as
// wp-config-sample.php ships it, the server reaches a MariaDB that listens
// on no TCP port at all, through the socket -mysql-socket names, and says
// so in its start log.
func TestLocalhostThroughTheSocket(t *testing.T) {
	t.Parallel()
	sock := startSocketOnlyMariaDB(t)
	wpConfig := filepath.Join(t.TempDir(), "wp-config.php")
	if err := os.WriteFile(wpConfig, []byte(`<?php
define( 'DB_NAME', 'wordpress' );
define( 'DB_USER', 'root' );
define( 'DB_PASSWORD', '' );
define( 'DB_HOST', 'localhost' );
$table_prefix = 'wp_';
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := wpdb.LoadWPConfig(wpConfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg, how, err := wpdb.ResolveLocalSocket(cfg, []string{sock})
	if err != nil || !strings.Contains(how, sock) {
		t.Fatalf("resolve: %q, %v", how, err)
	}
	cfg.PostTypes, cfg.QueryTimeout = []string{"post"}, 5*time.Second
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	seeder, err := wpdb.OpenSeeder(ctx, cfg) // creates the database and table
	if err != nil {
		t.Fatal(err)
	}
	seeder.Close()
	wpdbtest.Insert(t, cfg, wpdbtest.Posts(3)...)

	srv := startServer(t, map[string]string{"LOADMORE_WP_CONFIG": wpConfig, "LOADMORE_MYSQL_SOCKET": sock})
	if posts := srv.get(t, jsonPath(0, 2)).posts(t); len(posts) != 2 || posts[0].Title != "Post 3" {
		t.Errorf("posts through the socket: %+v", posts)
	}
	if logs := srv.Logs.String(); !strings.Contains(logs, "localhost: Unix socket "+sock) {
		t.Errorf("the start log does not say which socket:\n%s", logs)
	}
}
