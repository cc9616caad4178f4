package main

import (
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func envFunc(env map[string]string) func(string) string {
	return func(key string) string { return env[key] }
}

func TestParseConfigDefaults(t *testing.T) {
	cfg, err := parseConfig([]string{"wploadmore"}, envFunc(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"addr", cfg.Addr, ":8080"},
		{"base path", cfg.BasePath, ""},
		{"db", cfg.DB, ""},
		{"post types", cfg.PostTypes, []string{"post"}},
		{"batch", cfg.Batch, 2},
		{"max batch", cfg.MaxBatch, 100},
		{"session name", cfg.SessionName, "PHPSESSID"},
		{"session prefix", cfg.SessionPrefix, "PHPREDIS_SESSION:"},
		{"session lifetime", cfg.SessionLifetime, 1440 * time.Second},
		{"session serializer", cfg.SessionFormat.String(), "php"},
		{"cookie path", cfg.CookiePath, "/"},
		{"initial posts_start", cfg.sessionConfig().InitialPostsStart, 2},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s (-want +got)\n%s", c.name, diff)
		}
	}
}

func TestParseConfigSources(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		check func(t *testing.T, cfg Config)
	}{
		{
			name: "environment",
			env: map[string]string{
				"LOADMORE_ADDR": "127.0.0.1:9000", "LOADMORE_DB": "sqlite:/tmp/x.sqlite",
				"LOADMORE_MAX_BATCH": "50", "LOADMORE_POST_TYPES": "post, page",
				"LOADMORE_BASE_PATH": "/blog/", "LOADMORE_SESSION_LOCKING": "true",
				"LOADMORE_TRUSTED_PROXIES":    "10.0.0.0/8, 127.0.0.1",
				"LOADMORE_SESSION_SERIALIZER": "php_serialize",
			},
			check: func(t *testing.T, cfg Config) {
				got := []any{cfg.Addr, cfg.DB, cfg.MaxBatch, cfg.PostTypes, cfg.BasePath, cfg.SessionLocking, cfg.TrustedProxies, cfg.SessionFormat.String()}
				want := []any{"127.0.0.1:9000", "sqlite:/tmp/x.sqlite", 50, []string{"post", "page"}, "/blog", true,
					[]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32")}, "php_serialize"}
				if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
					t.Errorf("(-want +got)\n%s", diff)
				}
			},
		},
		{
			name: "a flag wins over the environment",
			args: []string{"-addr", "127.0.0.1:7000", "-batch=3"},
			env:  map[string]string{"LOADMORE_ADDR": "127.0.0.1:9000", "LOADMORE_BATCH": "5"},
			check: func(t *testing.T, cfg Config) {
				if cfg.Addr != "127.0.0.1:7000" || cfg.Batch != 3 {
					t.Errorf("addr %q batch %d, want the flags' 127.0.0.1:7000 and 3", cfg.Addr, cfg.Batch)
				}
			},
		},
		{
			name: "base path root",
			args: []string{"-base-path", "/"},
			check: func(t *testing.T, cfg Config) {
				if cfg.BasePath != "" {
					t.Errorf("base path %q, want empty", cfg.BasePath)
				}
			},
		},
		{
			name: "nested base path",
			args: []string{"-base-path", "news/blog"},
			check: func(t *testing.T, cfg Config) {
				if cfg.BasePath != "/news/blog" {
					t.Errorf("base path %q, want /news/blog", cfg.BasePath)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseConfig(append([]string{"wploadmore"}, tt.args...), envFunc(tt.env), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, cfg)
		})
	}
}

// TestParseConfigRefusals checks that each bad setting stops the start with
// one line naming the setting.
func TestParseConfigRefusals(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		wantText string
	}{
		{"bad env number", nil, map[string]string{"LOADMORE_BATCH": "two"}, `LOADMORE_BATCH: invalid value "two"`},
		{"bad env bool", nil, map[string]string{"LOADMORE_SESSION_LOCKING": "maybe"}, "LOADMORE_SESSION_LOCKING"},
		{"bad env duration", nil, map[string]string{"LOADMORE_SESSION_LIFETIME": "1440"}, "LOADMORE_SESSION_LIFETIME"},
		{"unknown flag", []string{"-nope"}, nil, "flag provided but not defined: -nope"},
		{"stray argument", []string{"serve"}, nil, `unexpected argument "serve"`},
		{"batch above max", []string{"-batch", "20", "-max-batch", "10"}, nil, "-batch: 20 is not from 1 to -max-batch (10)"},
		{"zero batch", []string{"-batch", "0"}, nil, "-batch: 0"},
		{"max batch too large", []string{"-max-batch", "5000"}, nil, "-max-batch: 5000"},
		{"db and wp-config", []string{"-db", "sqlite:x", "-wp-config", "wp-config.php"}, nil, "-db and -wp-config"},
		{"bad post type", []string{"-post-types", "post,Page;"}, nil, `-post-types: "Page;" is not a WordPress post type`},
		{"no post type", []string{"-post-types", " , "}, nil, "-post-types: no post type given"},
		{"bad serializer", []string{"-session-serializer", "json"}, nil, "-session-serializer"},
		{"bad proxy", []string{"-trusted-proxies", "10.0.0.0/33"}, nil, "-trusted-proxies"},
		{"bad base path", []string{"-base-path", "/blog/../admin"}, nil, "-base-path"},
		{"base path needing escapes", []string{"-base-path", "/my blog"}, nil, "-base-path"},
		{"bad cookie name", []string{"-session-name", "PHP SESSID"}, nil, "-session-name"},
		{"bad cookie path", []string{"-cookie-path", "blog"}, nil, "-cookie-path"},
		{"short lifetime", []string{"-session-lifetime", "10ms"}, nil, "-session-lifetime"},
		{"negative cache", []string{"-cache-ttl", "-1s"}, nil, "-cache-ttl"},
		{"empty cache", []string{"-cache-ttl", "1s", "-cache-entries", "0"}, nil, "-cache-entries"},
		{"bad log format", []string{"-log-format", "xml"}, nil, "-log-format"},
		{"bad log level", []string{"-log-level", "loud"}, nil, "-log-level"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseConfig(append([]string{"wploadmore"}, tt.args...), envFunc(tt.env), io.Discard)
			if err == nil {
				t.Fatalf("parseConfig accepted it; want an error containing %q", tt.wantText)
			}
			if !strings.Contains(err.Error(), tt.wantText) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line containing %q", err, tt.wantText)
			}
		})
	}
}
