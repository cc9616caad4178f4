package main

import (
	"io"
	"log/slog"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/server/proxy"
	"github.com/wploadmore/wploadmore/wpdb"
)

// envFunc is env as os.Environ gives it.
func envFunc(env map[string]string) []string {
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	return environ
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
		{"shortcodes", cfg.StripShortcodes, []string{"wp_caption", "caption", "gallery", "playlist", "audio", "video", "embed"}},
		{"batch", cfg.Batch, 2},
		{"max batch", cfg.MaxBatch, 100},
		{"max page posts, under -cache-depth", cfg.MaxPagePosts < cfg.CacheDepth, true},
		{"unsent bytes", cfg.UnsentBytes, 32 << 20},
		{"idle timeout", cfg.IdleTimeout, 30 * time.Second},
		{"session name", cfg.Cookie.Name, "PHPSESSID"},
		{"session prefix", cfg.Sessions.KeyPrefix, "PHPREDIS_SESSION:"},
		{"session lifetime", cfg.Sessions.MaxLifetime, 1440 * time.Second},
		{"session serializer", cfg.Sessions.Format.String(), "php"},
		{"new-session bound", cfg.sessionConfig().NewSessionBytes, int64(64 << 20)},
		{"cookie path", cfg.Cookie.Path, "/"},
		{"initial posts_start", cfg.sessionConfig().InitialPostsStart, 2},
		{"access log on", cfg.AccessLog, true},
		{"access log bytes", cfg.AccessLogBytes, 1 << 20},
		{"metrics off", cfg.MetricsAddr, ""},
		{"sticky posts off", cfg.StickyPosts, false},
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
				got := []any{cfg.Addr, cfg.DB, cfg.MaxBatch, cfg.PostTypes, cfg.BasePath, cfg.Sessions.Locking, cfg.TrustedProxies, cfg.Sessions.Format.String()}
				want := []any{"127.0.0.1:9000", "sqlite:/tmp/x.sqlite", 50, []string{"post", "page"}, "/blog", true,
					proxy.Trusted{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32")}, "php_serialize"}
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
			name: "sticky posts",
			env:  map[string]string{"LOADMORE_STICKY_POSTS": "true"},
			check: func(t *testing.T, cfg Config) {
				if !cfg.StickyPosts {
					t.Error("LOADMORE_STICKY_POSTS=true left -sticky-posts off")
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

// TestParseConfigShortcodes: -strip-shortcodes and its variable replace
// core's list, a value of only commas and spaces strips none, and the list
// reaches the store's configuration.
func TestParseConfigShortcodes(t *testing.T) {
	t.Parallel()
	core := []string{"wp_caption", "caption", "gallery", "playlist", "audio", "video", "embed"}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want []string
	}{
		{"default", nil, nil, core},
		{"empty variable reads as unset", nil, map[string]string{"LOADMORE_STRIP_SHORTCODES": ""}, core},
		{"replaced", []string{"-strip-shortcodes", "vc_row,gallery"}, nil, []string{"vc_row", "gallery"}},
		{"core and a plugin's", []string{"-strip-shortcodes", "wp_caption,caption,gallery,playlist,audio,video,embed,contact-form-7"}, nil, append(slices.Clone(core), "contact-form-7")},
		{"variable", nil, map[string]string{"LOADMORE_STRIP_SHORTCODES": "caption, contact-form-7,vc_row "}, []string{"caption", "contact-form-7", "vc_row"}},
		{"flag wins over variable", []string{"-strip-shortcodes=gallery"}, map[string]string{"LOADMORE_STRIP_SHORTCODES": "caption"}, []string{"gallery"}},
		{"empty flag: none", []string{"-strip-shortcodes="}, nil, []string{}},
		{"commas in the variable: none", nil, map[string]string{"LOADMORE_STRIP_SHORTCODES": " , "}, []string{}},
		{"twice", []string{"-strip-shortcodes", "gallery,gallery"}, nil, []string{"gallery"}},
		{"unicode and dots", []string{"-strip-shortcodes", "galería,a.b"}, nil, []string{"galería", "a.b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := parseConfig(append([]string{"wploadmore", "-db", "sqlite:/tmp/x.sqlite"}, tt.args...), envFunc(tt.env), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, cfg.StripShortcodes); diff != "" {
				t.Errorf("StripShortcodes (-want +got)\n%s", diff)
			}
			location, err := cfg.databaseLocation(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, cfg.databaseConfig(location).StripShortcodes); diff != "" {
				t.Errorf("wpdb.Config.StripShortcodes (-want +got)\n%s", diff)
			}
		})
	}
}

// TestParseConfigRefusals checks that each bad setting stops the start with
// one line naming the setting. The mistakes an operator meets through the
// whole run (a typo'd flag or variable, a duration without a unit) are
// rows of TestConfigurationMistakes.
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
		{"unknown flag", []string{"-nope"}, nil, "-nope is not a flag of this server; -h lists them"},
		{"stray argument", []string{"serve"}, nil, `unexpected argument "serve"`},
		{"batch above max", []string{"-batch", "20", "-max-batch", "10"}, nil, "-batch: 20 is not from 1 to -max-batch (10)"},
		{"zero batch", []string{"-batch", "0"}, nil, "-batch: 0"},
		{"locale that is a path", []string{"-locale", "../../etc/de_DE"}, nil, `-locale: "../../etc/de_DE" is not a locale name`},
		{"max batch too large", []string{"-max-batch", "5000"}, nil, "-max-batch: 5000"},
		{"db and wp-config", []string{"-db", "sqlite:x", "-wp-config", "wp-config.php"}, nil, "-db and -wp-config"},
		{"bad post type", []string{"-post-types", "post,Page;"}, nil, `-post-types: "Page;" is not a WordPress post type`},
		{"no post type", []string{"-post-types", " , "}, nil, "-post-types: no post type given"},
		{"bad shortcode", []string{"-strip-shortcodes", "gallery,contact form"}, nil, `-strip-shortcodes: shortcode "contact form"`},
		{"bad shortcode in env", nil, map[string]string{"LOADMORE_STRIP_SHORTCODES": "vc_row,[x]"}, `-strip-shortcodes: shortcode "[x]"`},
		{"shortcode with =", []string{"-strip-shortcodes", "a=b"}, nil, `-strip-shortcodes: shortcode "a=b"`},
		{"closing shortcode", []string{"-strip-shortcodes", "gallery,/gallery"}, nil, `-strip-shortcodes: shortcode "/gallery"`},
		{"shortcode with a control character", []string{"-strip-shortcodes", "gal\x01lery"}, nil, `-strip-shortcodes: shortcode "gal\x01lery"`},
		{"shortcode with <", []string{"-strip-shortcodes", "<gallery>"}, nil, `-strip-shortcodes: shortcode "<gallery>"`},
		{"bad serializer", []string{"-session-serializer", "json"}, nil, "-session-serializer"},
		{"bad proxy", []string{"-trusted-proxies", "10.0.0.0/33"}, nil, "-trusted-proxies"},
		{"bad access log switch", []string{"-access-log", "yes"}, nil, `-access-log: "yes" is not on or off`},
		{"unsent bytes under a page", []string{"-unsent-bytes", "65536"}, nil, "-unsent-bytes: 65536 is under 1048576"},
		{"bad access log switch in env", nil, map[string]string{"LOADMORE_ACCESS_LOG": "true"}, `-access-log: "true" is not on or off`},
		{"access log bytes under a line", []string{"-access-log-bytes", "1000"}, nil, "-access-log-bytes: 1000 is under 1024, the longest request line"},
		{"access log bytes in env", nil, map[string]string{"LOADMORE_ACCESS_LOG_BYTES": "0"}, "-access-log-bytes: 0 is under 1024"},
		{"bad base path", []string{"-base-path", "/blog/../admin"}, nil, "-base-path"},
		{"base path needing escapes", []string{"-base-path", "/my blog"}, nil, "-base-path"},
		{"bad cookie name", []string{"-session-name", "PHP SESSID"}, nil, "-session-name"},
		{"bad cookie path", []string{"-cookie-path", "blog"}, nil, "-cookie-path"},
		{"no heartbeat window", []string{"-push-heartbeat-window", "0s"}, nil, "-push-heartbeat-window: 0s is not positive"},
		{"short lifetime", []string{"-session-lifetime", "10ms"}, nil, "-session-lifetime: 10ms is under one second"},
		{"empty session prefix", []string{"-session-prefix", ""}, nil, "-session-prefix: is empty"},
		{"negative new-session bound", []string{"-new-session-bytes", "-1"}, nil, "-new-session-bytes: -1 is negative"},
		{"new-session bound under 16 sessions", nil, map[string]string{"LOADMORE_NEW_SESSION_BYTES": "1000"}, "-new-session-bytes: 1000 is under 16 sessions of 241 bytes"},
		{"negative cache", []string{"-cache-ttl", "-1s"}, nil, "-cache-ttl"},
		{"empty cache", []string{"-cache-ttl", "1s", "-cache-entries", "0"}, nil, "-cache-entries"},
		{"no connections", []string{"-max-conns", "0"}, nil, "-max-conns: 0"},
		{"no idle time", nil, map[string]string{"LOADMORE_IDLE_TIMEOUT": "0s"}, "-idle-timeout: 0s"},
		{"typo'd flag with =", []string{"--cache-tll=2s"}, nil, "-cache-tll is not a flag of this server; did you mean -cache-ttl?"},
		{"unknown flag, none close", []string{"-verbose"}, nil, "-verbose is not a flag of this server; -h lists them"},
		{"typo'd secret file", nil, map[string]string{"LOADMORE_DB_FIEL": "/run/secrets/db"}, "LOADMORE_DB_FIEL is not a setting of this server; did you mean LOADMORE_DB_FILE?"},
		{"unknown variable", nil, map[string]string{"LOADMORE_SOMETHING_ELSE_ENTIRELY": "1"}, "LOADMORE_SOMETHING_ELSE_ENTIRELY is not a setting of this server; -h lists them"},
		{"unknown variable, empty", nil, map[string]string{"LOADMORE_CACHE": ""}, "LOADMORE_CACHE is not a setting of this server"},
		{"duration without a unit, flag", []string{"-cache-ttl", "1.5"}, nil, `"1.5" has no unit: write it as 1.5s or 1.5ms`},
		{"not a duration", []string{"-shutdown-timeout", "soon"}, nil, `"soon" is not a duration such as 5s`},
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

// TestSiteSettings resolves the title, date format and zone from flags,
// environment, the site's options and the defaults, in that order.
func TestSiteSettings(t *testing.T) {
	t.Parallel()
	paris := blog.Options{BlogName: "Fish &amp; Chips", DateFormat: "j. F Y", TimezoneString: "Europe/Paris", GMTOffset: "2"}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		options blog.Options
		want    [3]string // title, date format, zone name
		warned  bool
	}{
		{"defaults", nil, nil, blog.Options{}, [3]string{"Load more posts", "F j, Y", "UTC"}, false},
		{"site options", nil, nil, paris, [3]string{"Fish & Chips", "j. F Y", "Europe/Paris"}, false},
		{"flags win", []string{"-title", "News", "-date-format", "Y-m-d"}, nil, paris, [3]string{"News", "Y-m-d", "Europe/Paris"}, false},
		{"environment wins", nil, map[string]string{"LOADMORE_TITLE": "Env news", "LOADMORE_DATE_FORMAT": `\D\a\y z`}, paris,
			[3]string{"Env news", `\D\a\y z`, "Europe/Paris"}, false},
		{"flag over environment", []string{"-date-format", "m/d/Y"}, map[string]string{"LOADMORE_DATE_FORMAT": "d/m/Y"}, blog.Options{},
			[3]string{"Load more posts", "m/d/Y", "UTC"}, false},
		{"gmt_offset", nil, nil, blog.Options{GMTOffset: "5.75"}, [3]string{"Load more posts", "F j, Y", "+05:45"}, false},
		{"negative gmt_offset", nil, nil, blog.Options{GMTOffset: "-9.5"}, [3]string{"Load more posts", "F j, Y", "-09:30"}, false},
		{"gmt_offset under an hour", nil, nil, blog.Options{GMTOffset: "-0.5"}, [3]string{"Load more posts", "F j, Y", "-00:30"}, false},
		{"zero gmt_offset", nil, nil, blog.Options{GMTOffset: "0"}, [3]string{"Load more posts", "F j, Y", "+00:00"}, false},
		{"unknown timezone_string", nil, nil, blog.Options{TimezoneString: "Mars/Olympus", GMTOffset: "3"}, [3]string{"Load more posts", "F j, Y", "UTC"}, true},
		{"gmt_offset no number", nil, nil, blog.Options{GMTOffset: "five"}, [3]string{"Load more posts", "F j, Y", "UTC"}, true},
		{"gmt_offset out of range", nil, nil, blog.Options{GMTOffset: "99"}, [3]string{"Load more posts", "F j, Y", "UTC"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := parseConfig(append([]string{"wploadmore"}, tt.args...), envFunc(tt.env), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			var logs strings.Builder
			s := cfg.site(tt.options, listing.Language{Locale: "en_US"}, slog.New(slog.NewTextHandler(&logs, nil)))
			if diff := cmp.Diff(tt.want, [3]string{s.Title, s.DateFormat, s.Zone.String()}); diff != "" {
				t.Errorf("title, date format, zone (-want +got)\n%s", diff)
			}
			if warned := strings.Contains(logs.String(), "level=WARN"); warned != tt.warned {
				t.Errorf("warned %v, want %v; log: %s", warned, tt.warned, logs.String())
			}
		})
	}
}

// TestParseConfigMySQLSocket: -mysql-socket, or LOADMORE_MYSQL_SOCKET, goes
// before the usual paths a MySQL host of localhost tries; a path too long
// for a Unix socket address is refused at start.
func TestParseConfigMySQLSocket(t *testing.T) {
	usual := wpdb.DefaultSocketPaths()
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want []string
	}{
		{"default", nil, nil, usual},
		{"flag", []string{"-mysql-socket", "/srv/db/mysqld.sock"}, nil, append([]string{"/srv/db/mysqld.sock"}, usual...)},
		{"environment", nil, map[string]string{"LOADMORE_MYSQL_SOCKET": "/srv/db/mysqld.sock"}, append([]string{"/srv/db/mysqld.sock"}, usual...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseConfig(append([]string{"wploadmore"}, tt.args...), envFunc(tt.env), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, cfg.MySQLSockets); diff != "" {
				t.Errorf("MySQLSockets (-want +got)\n%s", diff)
			}
		})
	}
	long := "/" + strings.Repeat("s", wpdb.MaxSocketPath)
	if _, err := parseConfig([]string{"wploadmore", "-mysql-socket", long}, envFunc(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "-mysql-socket") {
		t.Errorf("a %d-byte socket path: %v, want a -mysql-socket error", len(long), err)
	}
	if _, err := parseConfig([]string{"wploadmore", "-mysql-socket", long[:wpdb.MaxSocketPath]}, envFunc(nil), io.Discard); err != nil {
		t.Errorf("a %d-byte socket path: %v", wpdb.MaxSocketPath, err)
	}
}

// TestUsageOnlyOnHelp: -h prints the usage; a mistake prints nothing, its
// one-line error says it all.
func TestUsageOnlyOnHelp(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args  []string
		usage bool
	}{
		{[]string{"-h"}, true},
		{[]string{"-wpconfig", "x"}, false},
		{[]string{"-cache-ttl", "5"}, false},
	} {
		var out strings.Builder
		_, err := parseConfig(append([]string{"wploadmore"}, tt.args...), nil, &out)
		if err == nil {
			t.Fatalf("%q: parseConfig accepted it", tt.args)
		}
		if got := strings.Contains(out.String(), "Usage:"); got != tt.usage {
			t.Errorf("%q: usage printed = %v, want %v:\n%s", tt.args, got, tt.usage, out.String())
		}
	}
}

// TestParseConfigClusterSessionPrefix: with a Redis Cluster, the session
// key prefix defaults to phpredis's cluster handler's, or to the URL's
// prefix=, unless -session-prefix (or its variable) says otherwise.
func TestParseConfigClusterSessionPrefix(t *testing.T) {
	const cluster = "redis+cluster://127.0.0.1:7000,127.0.0.1:7001/"
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"single redis", []string{"-redis", "redis://127.0.0.1:6379/0"}, nil, "PHPREDIS_SESSION:"},
		{"cluster", []string{"-redis", cluster}, nil, "PHPREDIS_CLUSTER_SESSION:"},
		{"cluster from the environment", nil, map[string]string{"LOADMORE_REDIS": cluster}, "PHPREDIS_CLUSTER_SESSION:"},
		{"cluster prefix=", []string{"-redis", cluster + "?prefix=SITE:"}, nil, "SITE:"},
		{"flag wins", []string{"-redis", cluster, "-session-prefix", "MINE:"}, nil, "MINE:"},
		{"variable wins", []string{"-redis", cluster}, map[string]string{"LOADMORE_SESSION_PREFIX": "MINE:"}, "MINE:"},
		{"flag set to phpredis's single default", []string{"-redis", cluster, "-session-prefix", "PHPREDIS_SESSION:"}, nil, "PHPREDIS_SESSION:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseConfig(append([]string{"wploadmore"}, tt.args...), envFunc(tt.env), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Sessions.KeyPrefix != tt.want {
				t.Errorf("SessionPrefix = %q, want %q", cfg.Sessions.KeyPrefix, tt.want)
			}
		})
	}
	// Only session reads the cluster URL, so it is the store that refuses
	// locking there, as it opens and before it dials; the error names the
	// flag all the same.
	cfg, err := parseConfig([]string{"wploadmore", "-redis", cluster, "-session-locking"}, envFunc(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	store, err := openSessions(t.Context(), cfg, slog.New(slog.DiscardHandler), nil)
	if err == nil {
		store.Close()
	}
	if err == nil || !strings.HasPrefix(err.Error(), "-session-locking: ") || strings.Contains(err.Error(), "\n") {
		t.Errorf("-session-locking with a cluster: %v, want one line naming the flag", err)
	}
}
