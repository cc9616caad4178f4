package wpdb_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// socketOnly is this package's throwaway MariaDB without networking,
// started by the first test that asks for it and stopped by TestMain.
var socketOnly wpdbtest.SocketOnlyMariaDB

// TestMain stops the package's throwaway servers after the tests, by PID,
// saying under -v how long each took to start.
func TestMain(m *testing.M) {
	code := m.Run()
	if d := replication.Startup(); d > 0 && testing.Verbose() {
		fmt.Printf("wpdb: the primary and replica MariaDB started in %v\n", d.Round(time.Millisecond))
	}
	if d := socketOnly.Startup(); d > 0 && testing.Verbose() {
		fmt.Printf("wpdb: the socket-only MariaDB started in %v\n", d.Round(time.Millisecond))
	}
	replication.Stop()
	socketOnly.Stop()
	os.Exit(code)
}

// complete gives cfg what the server's flags would: post types and a
// query timeout (and the prefix a URL does not name).
func complete(cfg wpdb.Config) wpdb.Config {
	if cfg.TablePrefix == "" {
		cfg.TablePrefix = "wp_"
	}
	cfg.PostTypes, cfg.QueryTimeout = []string{"post"}, 5*time.Second
	return cfg
}

// skipNetworking is the @@skip_networking of the server cfg reaches: 1 for
// the socket-only server, 0 for the machine's MariaDB on 127.0.0.1:3306.
func skipNetworking(t *testing.T, cfg wpdb.Config) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var v int
	if err := wpdbtest.OpenDB(t, cfg).QueryRowContext(ctx, "SELECT @@skip_networking").Scan(&v); err != nil {
		t.Fatalf("SELECT @@skip_networking: %v", err)
	}
	return v
}

func transport(t *testing.T, cfg wpdb.Config) (network, addr string) {
	t.Helper()
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	return mc.Net, mc.Addr
}

// TestLocalhostIsTheSocket: parsing marks which hosts want the local
// socket, as PHP's mysqli reads them, and leaves the file system alone.
func TestLocalhostIsTheSocket(t *testing.T) {
	t.Parallel()
	fromWPConfig := func(host string) func() (wpdb.Config, error) {
		return func() (wpdb.Config, error) {
			return wpdb.ParseWPConfig([]byte("<?php define('DB_NAME', 'wp'); define('DB_USER', 'u'); define('DB_PASSWORD', 'p'); define('DB_HOST', '" + host + "');"))
		}
	}
	fromURL := func(url string) func() (wpdb.Config, error) {
		return func() (wpdb.Config, error) { return wpdb.ParseURL(url) }
	}
	tests := []struct {
		name      string
		parse     func() (wpdb.Config, error)
		wantLocal bool
	}{
		{"DB_HOST localhost", fromWPConfig("localhost"), true},
		{"DB_HOST empty", fromWPConfig(""), true},
		{"DB_HOST LOCALHOST", fromWPConfig("LOCALHOST"), true},
		{"DB_HOST localhost:3307", fromWPConfig("localhost:3307"), true}, // mysqli ignores the port
		{"DB_HOST :3307", fromWPConfig(":3307"), true},
		{"DB_HOST 127.0.0.1", fromWPConfig("127.0.0.1"), false},
		{"DB_HOST 127.0.0.1:3307", fromWPConfig("127.0.0.1:3307"), false},
		{"DB_HOST [::1]:3307", fromWPConfig("[::1]:3307"), false},
		{"DB_HOST db.example", fromWPConfig("db.example"), false},
		{"DB_HOST with a socket", fromWPConfig("localhost:/var/run/mysqld/mysqld.sock"), false},
		{"DB_HOST 127.0.0.1 with a socket", fromWPConfig("127.0.0.1:/var/run/mysqld/mysqld.sock"), false},
		{"URL localhost", fromURL("mysql://u@localhost/wp"), true},
		{"URL LocalHost", fromURL("mysql://u@LocalHost/wp"), true},
		{"URL localhost:3306", fromURL("mysql://u@localhost:3306/wp"), false}, // a URL's port means TCP
		{"URL 127.0.0.1", fromURL("mysql://u@127.0.0.1/wp"), false},
		{"URL socket", fromURL("mysql://u@/wp?socket=/tmp/mysql.sock"), false},
		{"sqlite", fromURL("sqlite:/tmp/localhost"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := tt.parse()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.LocalSocket != tt.wantLocal {
				t.Errorf("LocalSocket = %v, want %v (DSN %s)", cfg.LocalSocket, tt.wantLocal, cfg.DSN)
			}
		})
	}
}

// TestResolveLocalSocket: the first candidate that is a Unix socket wins,
// in the caller's order; with none, TCP to 127.0.0.1 at the named port.
// The description says which, for the start log.
func TestResolveLocalSocket(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	listen := func(name string) string {
		path := filepath.Join(dir, name)
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return path
	}
	first, second := listen("a.sock"), listen("b.sock")
	plain := filepath.Join(dir, "not-a-socket")
	if err := os.WriteFile(plain, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.sock")
	parse := func(url string) wpdb.Config {
		cfg, err := wpdb.ParseURL(url)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	port3307, err := wpdb.ParseWPConfig([]byte("<?php define('DB_NAME', 'wp'); define('DB_USER', 'u'); define('DB_PASSWORD', 'p'); define('DB_HOST', 'localhost:3307');"))
	if err != nil {
		t.Fatal(err)
	}
	local := parse("mysql://u:p@localhost/wp?charset=latin1")
	tests := []struct {
		name              string
		cfg               wpdb.Config
		sockets           []string
		wantNet, wantAddr string
		wantHow           string
	}{
		{"first that is a socket", local, []string{missing, plain, second, first}, "unix", second,
			"Unix socket " + second + " (localhost; no Unix socket at " + missing + ", " + plain + ")"},
		{"the operator's first", local, []string{first, second}, "unix", first, "Unix socket " + first + " (localhost)"},
		{"none: TCP", local, []string{missing, plain}, "tcp", "127.0.0.1:3306",
			"TCP 127.0.0.1:3306 (localhost: no Unix socket at " + missing + ", " + plain + ")"},
		{"no candidates: TCP", local, nil, "tcp", "127.0.0.1:3306", "TCP 127.0.0.1:3306 (localhost: no Unix socket to try)"},
		{"DB_HOST port ignored for the socket", port3307, []string{first}, "unix", first,
			"Unix socket " + first + " (localhost:3307, whose port PHP's mysqli ignores for the socket)"},
		{"DB_HOST port kept for TCP", port3307, []string{missing}, "tcp", "127.0.0.1:3307",
			"TCP 127.0.0.1:3307 (localhost: no Unix socket at " + missing + ")"},
		{"127.0.0.1 stays TCP", parse("mysql://u:p@127.0.0.1/wp?charset=latin1"), []string{first}, "tcp", "127.0.0.1:3306", "TCP 127.0.0.1:3306"},
		{"a named socket stays", parse("mysql://u:p@/wp?charset=latin1&socket=" + missing), []string{first}, "unix", missing, "Unix socket " + missing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, conn, err := wpdb.ResolveLocalSocket(tt.cfg, tt.sockets)
			if err != nil {
				t.Fatal(err)
			}
			how := conn.String()
			mc, err := mysql.ParseDSN(got.DSN)
			if err != nil {
				t.Fatal(err)
			}
			if mc.Net != tt.wantNet || mc.Addr != tt.wantAddr || how != tt.wantHow || got.LocalSocket {
				t.Errorf("resolved to %s(%s), %q, LocalSocket %v;\nwant %s(%s), %q", mc.Net, mc.Addr, how, got.LocalSocket, tt.wantNet, tt.wantAddr, tt.wantHow)
			}
			// The localhost rule chose only for a Config that asked for it.
			if conn.Chosen() != tt.cfg.LocalSocket || conn.Network != mc.Net || conn.Address != mc.Addr {
				t.Errorf("connection %+v: chosen %v, want %v, and %s(%s)", conn, conn.Chosen(), tt.cfg.LocalSocket, mc.Net, mc.Addr)
			}
			if mc.User != "u" || mc.Passwd != "p" || mc.DBName != "wp" {
				t.Errorf("the credentials changed: %s", got.DSN)
			}
			if tt.cfg.LocalSocket && strings.Contains(tt.cfg.DSN, "latin1") && !strings.Contains(got.DSN, "charset=latin1") {
				t.Errorf("the parameters changed: %s", got.DSN)
			}
		})
	}
	t.Run("sqlite unchanged", func(t *testing.T) {
		t.Parallel()
		cfg := parse("sqlite:" + filepath.Join(dir, "wp.sqlite"))
		if got, conn, err := wpdb.ResolveLocalSocket(cfg, []string{first}); err != nil || got.DSN != cfg.DSN || conn != (wpdb.Connection{}) {
			t.Errorf("got %+v, %+v, %v; want it unchanged", got, conn, err)
		}
	})
}

// TestOpenRefusesUnresolvedLocalhost: a Config still asking for the local
// socket is refused by name, rather than quietly connected over TCP.
func TestOpenRefusesUnresolvedLocalhost(t *testing.T) {
	t.Parallel()
	cfg, err := wpdb.ParseURL("mysql://root@localhost/wp")
	if err != nil {
		t.Fatal(err)
	}
	cfg = complete(cfg)
	ctx := context.Background()
	if _, err := wpdb.Open(ctx, cfg, nil); err == nil || !strings.Contains(err.Error(), "ResolveLocalSocket") {
		t.Errorf("Open: %v, want a refusal naming ResolveLocalSocket", err)
	}
	if _, err := wpsite.Open(ctx, cfg); err == nil || !strings.Contains(err.Error(), "ResolveLocalSocket") {
		t.Errorf("wpsite.Open: %v, want a refusal naming ResolveLocalSocket", err)
	}
}

// TestLocalhostThroughTheSocket: against a MariaDB that listens on no TCP
// port at all, each way of saying localhost reaches it through the socket
// the candidates name, after one that does not exist, and reads posts.
func TestLocalhostThroughTheSocket(t *testing.T) {
	t.Parallel()
	sock := socketOnly.Socket(t)
	missing := filepath.Join(t.TempDir(), "missing.sock")
	tests := []struct {
		name    string
		config  func(t *testing.T, database string) (wpdb.Config, error)
		wantHow string
	}{
		{"DB_HOST localhost", func(t *testing.T, database string) (wpdb.Config, error) {
			return wpdb.LoadWPConfig(wpdbtest.WPConfig(t, "localhost", database))
		}, "Unix socket " + sock + " (localhost; no Unix socket at " + missing + ")"},
		{"DB_HOST LOCALHOST:3307", func(t *testing.T, database string) (wpdb.Config, error) {
			return wpdb.LoadWPConfig(wpdbtest.WPConfig(t, "LOCALHOST:3307", database))
		}, "Unix socket " + sock + " (localhost:3307, whose port PHP's mysqli ignores for the socket; no Unix socket at " + missing + ")"},
		{"DB_HOST localhost:/path", func(t *testing.T, database string) (wpdb.Config, error) {
			return wpdb.LoadWPConfig(wpdbtest.WPConfig(t, "localhost:"+sock, database))
		}, "Unix socket " + sock},
		{"mysql://root@localhost/db", func(t *testing.T, database string) (wpdb.Config, error) {
			return wpdb.ParseURL("mysql://root@localhost/" + database)
		}, "Unix socket " + sock + " (localhost; no Unix socket at " + missing + ")"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := tt.config(t, fmt.Sprintf("socket_%d", i))
			if err != nil {
				t.Fatal(err)
			}
			cfg, conn, err := wpdb.ResolveLocalSocket(complete(cfg), []string{missing, sock})
			if err != nil || conn.String() != tt.wantHow {
				t.Fatalf("resolved: %q, %v; want %q", conn, err, tt.wantHow)
			}
			dropDatabase(t, cfg)
			wpdbtest.Insert(t, cfg, wpdbtest.Posts(3)...) // creates the database and WordPress's table
			posts, err := wpdbtest.Store(t, cfg).Posts(context.Background(), blog.Page{Offset: 0, Limit: 2})
			if err != nil {
				t.Fatal(err)
			}
			if len(posts) != 2 || posts[0].Title != "Post 3" || posts[1].Title != "Post 2" {
				t.Errorf("posts through the socket: %+v", posts)
			}
			if got := skipNetworking(t, cfg); got != 1 {
				t.Errorf("@@skip_networking = %d: this is not the socket-only server", got)
			}
		})
	}
}

// dropDatabase drops cfg's database when t ends.
func dropDatabase(t *testing.T, cfg wpdb.Config) {
	t.Helper()
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := wpdbtest.OpenDB(t, cfg).ExecContext(ctx, "DROP DATABASE IF EXISTS `"+mc.DBName+"`"); err != nil {
			t.Errorf("drop database %s: %v", mc.DBName, err)
		}
	})
}

// TestLoopbackStaysTCP: 127.0.0.1, in any form, is TCP as in PHP, even
// when a live socket is among the candidates (and even when DB_HOST names
// it: mysqli reads a socket only for localhost), so it reaches the
// machine's MariaDB on 127.0.0.1:3306, not the socket-only one.
func TestLoopbackStaysTCP(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out connection attempts")
	}
	t.Parallel()
	sock := socketOnly.Socket(t)
	tcp := wpdbtest.MySQL(t)
	wpdbtest.Insert(t, tcp, wpdbtest.Posts(3)...)
	mc, err := mysql.ParseDSN(tcp.DSN)
	if err != nil {
		t.Fatal(err)
	}
	database := mc.DBName
	tests := []struct {
		name     string
		config   func(t *testing.T) (wpdb.Config, error)
		wantAddr string
	}{
		{"DB_HOST 127.0.0.1", func(t *testing.T) (wpdb.Config, error) {
			return wpdb.LoadWPConfig(wpdbtest.WPConfig(t, "127.0.0.1", database))
		}, "127.0.0.1:3306"},
		{"DB_HOST 127.0.0.1:3306", func(t *testing.T) (wpdb.Config, error) {
			return wpdb.LoadWPConfig(wpdbtest.WPConfig(t, "127.0.0.1:3306", database))
		}, "127.0.0.1:3306"},
		{"DB_HOST 127.0.0.1:/socket", func(t *testing.T) (wpdb.Config, error) {
			return wpdb.LoadWPConfig(wpdbtest.WPConfig(t, "127.0.0.1:"+sock, database))
		}, "127.0.0.1:3306"},
		{"mysql://root@127.0.0.1/db", func(t *testing.T) (wpdb.Config, error) {
			return wpdb.ParseURL("mysql://root@127.0.0.1/" + database)
		}, "127.0.0.1:3306"},
		{"mysql://root@localhost:3306/db", func(t *testing.T) (wpdb.Config, error) {
			return wpdb.ParseURL("mysql://root@localhost:3306/" + database)
		}, "localhost:3306"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := tt.config(t)
			if err != nil {
				t.Fatal(err)
			}
			cfg, conn, err := wpdb.ResolveLocalSocket(complete(cfg), []string{sock})
			if err != nil {
				t.Fatal(err)
			}
			if network, addr := transport(t, cfg); network != "tcp" || addr != tt.wantAddr || conn.String() != "TCP "+tt.wantAddr || conn.Chosen() {
				t.Fatalf("resolved to %s(%s), %q; want tcp(%s)", network, addr, conn, tt.wantAddr)
			}
			posts, err := wpdbtest.Store(t, cfg).Posts(context.Background(), blog.Page{Offset: 0, Limit: 3})
			if err != nil || len(posts) != 3 {
				t.Fatalf("posts over TCP: %d, %v", len(posts), err)
			}
			if got := skipNetworking(t, cfg); got != 0 {
				t.Errorf("@@skip_networking = %d: this reached the socket-only server", got)
			}
		})
	}
}

// TestDBHostAsPHP connects with each DB_HOST form as WordPress does, in
// php-cli (wpdb::parse_db_host from Debian's wordpress package, then
// mysqli with mysqli.default_socket set to the socket-only server's), and
// as the store does with that socket as its only candidate, and checks
// both reach the same server or both fail. The one known difference is
// deliberate: a port that is not a number ("localhost:abc") is an error
// here, where WordPress drops it.
func TestDBHostAsPHP(t *testing.T) {
	wpdbtest.NeedWordPress(t) // php-cli, its mysqli and WordPress
	if testing.Short() {
		t.Skip("-short: PHP connects to every DB_HOST form")
	}
	t.Parallel()
	sock := socketOnly.Socket(t)
	hosts := []string{
		"localhost", "LOCALHOST", "", "localhost:3307", ":3307",
		"localhost:" + sock, ":" + sock, "localhost:3307:" + sock, "localhost:/nonexistent/mysqld.sock",
		"127.0.0.1", "127.0.0.1:3306", "127.0.0.1:" + sock, "[::1]:3306",
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "php", append([]string{"-d", "mysqli.default_socket=" + sock,
		filepath.Join("testdata", "php", "dbhost.php")}, hosts...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("php dbhost.php: %v\n%s", err, stderr.String())
	}
	var php map[string]string
	if err := json.Unmarshal(out, &php); err != nil {
		t.Fatalf("php printed %q: %v", out, err)
	}
	got := map[string]string{}
	for _, host := range hosts {
		got[host] = goReaches(t, ctx, host, sock)
	}
	if diff := cmp.Diff(php, got); diff != "" {
		t.Errorf("@@skip_networking of the server reached, or error (-php +go):\n%s", diff)
	}
	if php["localhost"] != "1" || php["127.0.0.1"] != "0" {
		t.Errorf("PHP did not reach both servers (%v): the comparison proves nothing", php)
	}
}

// goReaches connects as the store would with DB_HOST host and sock as the
// only candidate, and returns the server's @@skip_networking, or "error".
func goReaches(t *testing.T, ctx context.Context, host, sock string) string {
	cfg, err := wpdb.ParseWPConfig([]byte("<?php define('DB_NAME', 'mysql'); define('DB_USER', 'root'); define('DB_PASSWORD', ''); define('DB_HOST', '" + host + "');"))
	if err != nil {
		return "error"
	}
	if cfg, _, err = wpdb.ResolveLocalSocket(cfg, []string{sock}); err != nil {
		t.Fatal(err)
	}
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	mc.Timeout, mc.Logger = 3*time.Second, &mysql.NopLogger{}
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	var v string
	if err := db.QueryRowContext(ctx, "SELECT @@skip_networking").Scan(&v); err != nil {
		return "error"
	}
	return v
}
