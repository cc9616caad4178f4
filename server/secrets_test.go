package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// secretFile writes content to a file only its owner reads, as Docker
// mounts a secret, and returns its path.
func secretFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestParseConfigSecretFiles checks LOADMORE_DB_FILE and
// LOADMORE_REDIS_FILE: the value is the file's, less its trailing newline,
// and a flag still wins.
func TestParseConfigSecretFiles(t *testing.T) {
	t.Parallel()
	const db = "mysql://wp:s3cr%23t@db:3306/wordpress"
	const redis = "redis://:pa55@redis:6379/0"
	tests := []struct {
		name              string
		args              []string
		env               map[string]string
		wantDB, wantRedis string
	}{
		{"db", nil, map[string]string{"LOADMORE_DB_FILE": secretFile(t, db+"\n")}, db, ""},
		{"redis", nil, map[string]string{"LOADMORE_REDIS_FILE": secretFile(t, redis+"\n")}, "", redis},
		{"no newline", nil, map[string]string{"LOADMORE_DB_FILE": secretFile(t, db)}, db, ""},
		{"CRLF", nil, map[string]string{"LOADMORE_DB_FILE": secretFile(t, db+"\r\n")}, db, ""},
		{"both files", nil, map[string]string{"LOADMORE_DB_FILE": secretFile(t, db), "LOADMORE_REDIS_FILE": secretFile(t, redis)}, db, redis},
		{"a flag wins over the file", []string{"-db", "sqlite:/tmp/x.sqlite"}, map[string]string{"LOADMORE_DB_FILE": secretFile(t, db)}, "sqlite:/tmp/x.sqlite", ""},
		{"a flag wins, the file unread", []string{"-redis", redis}, map[string]string{"LOADMORE_REDIS_FILE": "/nonexistent/redis"}, "", redis},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseConfig(append([]string{"wploadmore"}, tt.args...), envFunc(tt.env), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.DB != tt.wantDB || cfg.Redis != tt.wantRedis {
				t.Errorf("db %q, redis %q; want %q, %q", cfg.DB, cfg.Redis, tt.wantDB, tt.wantRedis)
			}
		})
	}
}

// TestParseConfigSecretFileRefusals checks that a _FILE variable that
// cannot be used stops the start with one line naming the variable and the
// path, and never showing the secret.
func TestParseConfigSecretFileRefusals(t *testing.T) {
	t.Parallel()
	const secret = "mysql://wp:hunter2@db:3306/wordpress"
	secretPath := secretFile(t, secret+"\n")
	unreadable := secretFile(t, secret)
	if err := os.Chmod(unreadable, 0); err != nil {
		t.Fatal(err)
	}
	folder := t.TempDir()
	empty := secretFile(t, "\n")
	tests := []struct {
		name      string
		env       map[string]string
		wantTexts []string
	}{
		{"both the variable and the file", map[string]string{"LOADMORE_DB": secret, "LOADMORE_DB_FILE": secretPath},
			[]string{"LOADMORE_DB and LOADMORE_DB_FILE"}},
		{"both for redis", map[string]string{"LOADMORE_REDIS": "redis://x:6379", "LOADMORE_REDIS_FILE": secretPath},
			[]string{"LOADMORE_REDIS and LOADMORE_REDIS_FILE"}},
		{"missing", map[string]string{"LOADMORE_DB_FILE": "/nonexistent/db"},
			[]string{"LOADMORE_DB_FILE", "/nonexistent/db", "no such file"}},
		{"a folder", map[string]string{"LOADMORE_REDIS_FILE": folder},
			[]string{"LOADMORE_REDIS_FILE", folder}},
		{"empty", map[string]string{"LOADMORE_DB_FILE": empty},
			[]string{"LOADMORE_DB_FILE", empty, "empty"}},
	}
	if os.Geteuid() != 0 { // root reads a file of mode 0 all the same
		tests = append(tests, struct {
			name      string
			env       map[string]string
			wantTexts []string
		}{"unreadable", map[string]string{"LOADMORE_DB_FILE": unreadable}, []string{"LOADMORE_DB_FILE", unreadable, "permission denied"}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseConfig([]string{"wploadmore"}, envFunc(tt.env), io.Discard)
			if err == nil {
				t.Fatalf("parseConfig accepted it; want an error containing %q", tt.wantTexts)
			}
			for _, want := range tt.wantTexts {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q: want it to contain %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line without the secret", err)
			}
		})
	}
}

// TestSecretFileServes starts the server with its MariaDB and Redis URLs in
// files, as a compose file's secrets: mount them, and checks it uses both.
func TestSecretFileServes(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.MySQL(t)
	seedBlog(t, cfg, 3)
	redis := sessiontest.New(t)
	srv := startServer(t, map[string]string{
		"LOADMORE_DB_FILE":        secretFile(t, dbURL(t, cfg)+"\n"),
		"LOADMORE_REDIS_FILE":     secretFile(t, redis.URL+"\n"),
		"LOADMORE_SESSION_PREFIX": redis.Prefix,
	})
	if got := srv.get(t, "/load-more.php?start=0&desiredPosts=5"); len(got.posts(t)) != 3 {
		t.Errorf("%d posts, want the 3 seeded", len(got.posts(t)))
	}
	for _, want := range []string{`"driver":"mysql"`, `"msg":"sessions: Redis"`} {
		if !strings.Contains(srv.Logs.String(), want) {
			t.Errorf("no %s in the log:\n%s", want, srv.Logs)
		}
	}
	if got := srv.get(t, "/readyz"); got.Status != http.StatusOK {
		t.Errorf("readyz %d %s", got.Status, got.Body)
	}
}
