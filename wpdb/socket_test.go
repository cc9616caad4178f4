package wpdb_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/wploadmore/wploadmore/wpdb"
)

// TestLocalhostIsTheSocket: a bare localhost, in DB_HOST or a mysql URL,
// asks for the socket as PHP's mysqli reads it; a port or an address does
// not.
func TestLocalhostIsTheSocket(t *testing.T) {
	t.Parallel()
	wpConfig := func(host string) string {
		return "<?php define('DB_NAME', 'wp'); define('DB_USER', 'u'); define('DB_PASSWORD', 'p'); define('DB_HOST', '" + host + "');"
	}
	tests := []struct {
		name      string
		parse     func() (wpdb.Config, error)
		wantLocal bool
	}{
		{"DB_HOST localhost", func() (wpdb.Config, error) { return wpdb.ParseWPConfig([]byte(wpConfig("localhost"))) }, true},
		{"DB_HOST empty", func() (wpdb.Config, error) { return wpdb.ParseWPConfig([]byte(wpConfig(""))) }, true},
		{"DB_HOST localhost:3307", func() (wpdb.Config, error) { return wpdb.ParseWPConfig([]byte(wpConfig("localhost:3307"))) }, false},
		{"DB_HOST 127.0.0.1", func() (wpdb.Config, error) { return wpdb.ParseWPConfig([]byte(wpConfig("127.0.0.1"))) }, false},
		{"DB_HOST db.example", func() (wpdb.Config, error) { return wpdb.ParseWPConfig([]byte(wpConfig("db.example"))) }, false},
		{"DB_HOST with a socket", func() (wpdb.Config, error) {
			return wpdb.ParseWPConfig([]byte(wpConfig("localhost:/var/run/mysqld/mysqld.sock")))
		}, false},
		{"URL localhost", func() (wpdb.Config, error) { return wpdb.ParseURL("mysql://u@localhost/wp") }, true},
		{"URL localhost:3306", func() (wpdb.Config, error) { return wpdb.ParseURL("mysql://u@localhost:3306/wp") }, false},
		{"URL 127.0.0.1", func() (wpdb.Config, error) { return wpdb.ParseURL("mysql://u@127.0.0.1/wp") }, false},
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

// TestResolveLocalSocket picks the first path that is a socket, and falls
// back to TCP 127.0.0.1:3306 when there is none.
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
	local, err := wpdb.ParseURL("mysql://u:p@localhost/wp?charset=latin1")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name              string
		sockets           []string
		wantNet, wantAddr string
		wantHow           string
	}{
		{"first that exists", []string{missing, plain, second, first}, "unix", second, "Unix socket " + second},
		{"the operator's first", []string{first, second}, "unix", first, "Unix socket " + first},
		{"none", []string{missing, plain}, "tcp", "127.0.0.1:3306", "TCP 127.0.0.1:3306"},
		{"no paths", nil, "tcp", "127.0.0.1:3306", "TCP 127.0.0.1:3306"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, how, err := wpdb.ResolveLocalSocket(local, tt.sockets)
			if err != nil {
				t.Fatal(err)
			}
			mc, err := mysql.ParseDSN(got.DSN)
			if err != nil {
				t.Fatal(err)
			}
			if mc.Net != tt.wantNet || mc.Addr != tt.wantAddr || !strings.Contains(how, tt.wantHow) || got.LocalSocket {
				t.Errorf("resolved to %s(%s), %q, LocalSocket %v; want %s(%s), %q", mc.Net, mc.Addr, how, got.LocalSocket, tt.wantNet, tt.wantAddr, tt.wantHow)
			}
			if mc.User != "u" || mc.Passwd != "p" || mc.DBName != "wp" || !strings.Contains(got.DSN, "charset=latin1") {
				t.Errorf("the rest of the DSN changed: %s", got.DSN)
			}
		})
	}
	tcp, err := wpdb.ParseURL("mysql://u@127.0.0.1/wp")
	if err != nil {
		t.Fatal(err)
	}
	if got, how, err := wpdb.ResolveLocalSocket(tcp, []string{first}); err != nil || got.DSN != tcp.DSN || how != "" {
		t.Errorf("127.0.0.1 resolved to %+v, %q, %v; want it unchanged", got, how, err)
	}
}
