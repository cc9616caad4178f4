package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// socketOnly is this package's throwaway MariaDB without networking,
// started by the first test that asks for it and stopped by TestMain.
var socketOnly wpdbtest.SocketOnlyMariaDB

// openedConnection is the connection attribute of the JSON start log line
// "database: opened".
func openedConnection(t *testing.T, logs string) string {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(logs))
	for sc.Scan() {
		var line struct {
			Msg        string `json:"msg"`
			Connection string `json:"connection"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "database: opened" {
			return line.Connection
		}
	}
	t.Fatalf("no \"database: opened\" line in the log:\n%s", logs)
	return ""
}

// TestLocalhostThroughTheSocket: with DB_HOST 'localhost', as
// wp-config-sample.php ships it, or -db mysql://root@localhost/db, the
// server reaches a MariaDB that listens on no TCP port at all, through the
// socket -mysql-socket (or its variable) names, serves its posts, and says
// which socket in its start log.
func TestLocalhostThroughTheSocket(t *testing.T) {
	t.Parallel()
	sock := socketOnly.Socket(t)
	tests := []struct {
		name string
		env  func(t *testing.T, database string) map[string]string
		args []string
	}{
		{"DB_HOST localhost and LOADMORE_MYSQL_SOCKET", func(t *testing.T, database string) map[string]string {
			return map[string]string{"LOADMORE_WP_CONFIG": wpdbtest.WPConfig(t, "localhost", database), "LOADMORE_MYSQL_SOCKET": sock}
		}, nil},
		{"mysql://root@localhost/db and -mysql-socket", func(t *testing.T, database string) map[string]string {
			return map[string]string{"LOADMORE_DB": "mysql://root@localhost/" + database}
		}, []string{"-mysql-socket", sock}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			database := fmt.Sprintf("server_socket_%d", i)
			// The posts table, made as WordPress's schema makes it, in the
			// socket-only server.
			cfg, err := wpdb.ParseURL("mysql://root@localhost/" + database)
			if err != nil {
				t.Fatal(err)
			}
			cfg.TablePrefix, cfg.PostTypes, cfg.QueryTimeout = "wp_", []string{"post"}, 5*time.Second
			if cfg, _, err = wpdb.ResolveLocalSocket(cfg, []string{sock}); err != nil {
				t.Fatal(err)
			}
			wpdbtest.Insert(t, cfg, wpdbtest.Posts(3)...)
			t.Cleanup(func() {
				if _, err := wpdbtest.OpenDB(t, cfg).Exec("DROP DATABASE `" + database + "`"); err != nil {
					t.Errorf("drop database: %v", err)
				}
			})

			srv := startServer(t, tt.env(t, database), tt.args...)
			if posts := srv.get(t, jsonPath(0, 2)).posts(t); len(posts) != 2 || posts[0].Title != "Post 3" || posts[1].Title != "Post 2" {
				t.Errorf("posts through the socket: %+v", posts)
			}
			if got, want := openedConnection(t, srv.Logs.String()), "Unix socket "+sock+" (localhost)"; got != want {
				t.Errorf("start log connection = %q, want %q", got, want)
			}
		})
	}
}

// TestLocalhostFallsBackToTCP: when none of the candidate sockets exists,
// localhost connects over TCP to 127.0.0.1 at the port DB_HOST named, and
// the start log, or the error, says so and lists what was tried. (The
// candidates are the test's own: this machine has a live
// /run/mysqld/mysqld.sock.)
func TestLocalhostFallsBackToTCP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := []string{filepath.Join(dir, "mysqld.sock"), filepath.Join(dir, "mysql.sock")}
	if err := os.WriteFile(missing[1], nil, 0o600); err != nil { // a file, not a socket
		t.Fatal(err)
	}
	tried := strings.Join(missing, ", ")
	tcp := wpdbtest.MySQL(t) // on 127.0.0.1:3306
	wpdbtest.Insert(t, tcp, wpdbtest.Posts(3)...)
	mc, err := mysql.ParseDSN(tcp.DSN)
	if err != nil {
		t.Fatal(err)
	}
	config := func(t *testing.T, host string) Config {
		cfg, err := parseConfig([]string{"wploadmore", "-wp-config", wpdbtest.WPConfig(t, host, mc.DBName)}, envFunc(nil), &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		cfg.MySQLSockets = missing
		return cfg
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	t.Run("opened", func(t *testing.T) {
		var logs bytes.Buffer
		store, err := openPosts(ctx, config(t, "localhost"), slog.New(slog.NewJSONHandler(&logs, nil)))
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		if posts, err := store.Posts(ctx, blog.Page{Offset: 0, Limit: 3}); err != nil || len(posts) != 3 {
			t.Errorf("posts over the TCP fallback: %d, %v", len(posts), err)
		}
		if got, want := openedConnection(t, logs.String()), "TCP 127.0.0.1:3306 (localhost: no Unix socket at "+tried+")"; got != want {
			t.Errorf("start log connection = %q, want %q", got, want)
		}
	})
	t.Run("refused", func(t *testing.T) {
		// Port 1: nothing listens there. The error names the fallback.
		_, err := openPosts(ctx, config(t, "localhost:1"), slog.New(slog.NewJSONHandler(&bytes.Buffer{}, nil)))
		start, end := "wpdb: connect to mysql database ", " at TCP 127.0.0.1:1: "
		why := " (localhost: no Unix socket at " + tried + ")"
		if err == nil || !strings.HasPrefix(err.Error(), start) || !strings.Contains(err.Error(), end) || !strings.HasSuffix(err.Error(), why) {
			t.Errorf("error = %v, want it to start %q, name %q and end %q", err, start, end, why)
		}
	})
}
