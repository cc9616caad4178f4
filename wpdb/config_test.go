package wpdb

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// completed is cfg with what the server's configuration adds to a URL's.
func completed(cfg Config) Config {
	if cfg.TablePrefix == "" {
		cfg.TablePrefix = "wp_"
	}
	cfg.PostTypes, cfg.QueryTimeout = []string{"post"}, 5*time.Second
	return cfg
}

func TestParseURL(t *testing.T) {
	tests := []struct {
		name, url string
		want      dbView
	}{
		{"mysql", "mysql://wp:secret@db.example.com:3307/wordpress",
			dbView{"mysql", "tcp", "db.example.com:3307", "wp", "secret", "wordpress", "", "", nil}},
		{"default port", "mysql://wp@127.0.0.1/wordpress",
			dbView{"mysql", "tcp", "127.0.0.1:3306", "wp", "", "wordpress", "", "", nil}},
		{"ipv6", "mysql://root:@[::1]:3306/wp",
			dbView{"mysql", "tcp", "[::1]:3306", "root", "", "wp", "", "", nil}},
		{"percent-encoded password", "mysql://wp:p%40ss%3Aw%2Frd%3F%23%25@db/wp",
			dbView{"mysql", "tcp", "db:3306", "wp", "p@ss:w/rd?#%", "wp", "", "", nil}},
		{"raw @ and ! in password", "mysql://wp:p@ss!word@db/wp",
			dbView{"mysql", "tcp", "db:3306", "wp", "p@ss!word", "wp", "", "", nil}},
		{"socket", "mysql://wp:pw@/wp?socket=/run/mysqld/mysqld.sock",
			dbView{"mysql", "unix", "/run/mysqld/mysqld.sock", "wp", "pw", "wp", "", "", nil}},
		{"driver parameters", "mysql://wp:pw@db/wp?charset=latin1&readTimeout=2s",
			dbView{"mysql", "tcp", "db:3306", "wp", "pw", "wp", "latin1", "", nil}},
		// A go-sql-driver DSN, as every Go user has one, is taken as it is.
		{"dsn", "wp:pw@tcp(127.0.0.1:3306)/wordpress",
			dbView{"mysql", "tcp", "127.0.0.1:3306", "wp", "pw", "wordpress", "", "", nil}},
		{"dsn socket", "wp:pw@unix(/run/mysqld/mysqld.sock)/wordpress?charset=utf8mb4",
			dbView{"mysql", "unix", "/run/mysqld/mysqld.sock", "wp", "pw", "wordpress", "utf8mb4", "", nil}},
		{"dsn without user", "@tcp(db.example.com)/wordpress",
			dbView{"mysql", "tcp", "db.example.com:3306", "", "", "wordpress", "", "", nil}},
		{"dsn without network", "wp:pw@/wordpress",
			dbView{"mysql", "tcp", "127.0.0.1:3306", "wp", "pw", "wordpress", "", "", nil}},
		{"dsn with parameters", "wp:pw@tcp(db:3307)/wordpress?parseTime=true&timeout=5s",
			dbView{"mysql", "tcp", "db:3307", "wp", "pw", "wordpress", "", "", nil}},
		{"dsn with raw specials in the password", "wp:p#ss/w?rd@tcp(db)/wordpress",
			dbView{"mysql", "tcp", "db:3306", "wp", "p#ss/w?rd", "wordpress", "", "", nil}},
		{"dsn without user or @", "tcp(db:3306)/wordpress",
			dbView{"mysql", "tcp", "db:3306", "", "", "wordpress", "", "", nil}},
		{"sqlite relative", "sqlite:data/wordpress.sqlite", dbView{Driver: "sqlite", Addr: "data/wordpress.sqlite"}},
		{"sqlite slashes", "sqlite://wp-content/database/.ht.sqlite", dbView{Driver: "sqlite", Addr: "wp-content/database/.ht.sqlite"}},
		{"sqlite absolute", "sqlite:///var/www/wp-content/database/.ht.sqlite", dbView{Driver: "sqlite", Addr: "/var/www/wp-content/database/.ht.sqlite"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ParseURL(tt.url)
			if err != nil {
				t.Fatalf("ParseURL(%q): %v", tt.url, err)
			}
			if diff := cmp.Diff(tt.want, viewOf(t, cfg)); diff != "" {
				t.Errorf("ParseURL(%q) (-want +got):\n%s", tt.url, diff)
			}
			if err := completed(cfg).validate(); err != nil {
				t.Errorf("config does not validate: %v", err)
			}
		})
	}
}

// TestParseURLErrors: each mistake is named by the part that is wrong,
// and a # / ? or % in a password is met with the percent-encoding that
// fixes it; no error shows the password (every one here is topsecret).
func TestParseURLErrors(t *testing.T) {
	tests := []struct {
		name, url, want string
	}{
		{"empty", "", "database URL is empty"},
		{"no scheme", "db.example.com/wordpress", "no scheme"},
		{"other scheme", "postgres://u:p@h/db", `scheme "postgres" is not supported`},
		{"url without scheme", "wp:topsecret@db.example.com:3306/wordpress", "no scheme, and is no go-sql-driver DSN either"},
		{"missing db name", "mysql://wp:pw@db:3306", "no database name"},
		{"missing db name slash", "mysql://wp:pw@db:3306/", "no database name"},
		{"path, not a name", "mysql://wp:pw@db:3306/a/b", `no database name, but a path with a "/"`},
		{"no host", "mysql://wp:pw@/wp", "no host"},
		{"bad port", "mysql://wp:topsecret@db:port/wp", "port is not a number from 1 to 65535"},
		{"port out of range", "mysql://wp:topsecret@db:70000/wp", "port is not a number from 1 to 65535"},
		{"host and socket", "mysql://wp:pw@db/wp?socket=/tmp/s", "both a host and a socket"},
		{"bad parameter", "mysql://wp:topsecret@db/wp?readTimeout=soon", "parameters"},
		{"bad parameter, @ in another", "mysql://wp:topsecret@db/wp?readTimeout=soon&x=a@b", "parameters"},
		{"base64 password with / and =", "mysql://wp:top/secret==@db/wp", `the password seems to contain "/"`},
		{"# in password", "mysql://wp:top#secret@db/wordpress",
			`mysql URL: the password seems to contain "#", which ends a URL's address part: percent-encode it as %23 (mysql://user:p%23ss@host/db)`},
		{"# in password, read as a port", "mysql://wp:12#topsecret@db/wordpress", `the password seems to contain "#"`},
		{"# in password, URL otherwise whole", "mysql://wp:12/db#topsecret@db/wordpress", `the password seems to contain "/"`},
		{"raw slash in password", "mysql://wp:top/secret@db/wp", `the password seems to contain "/", which ends a URL's address part: percent-encode it as %2F`},
		{"? in password", "mysql://wp:top?secret@db/wp", `the password seems to contain "?", which ends a URL's address part: percent-encode it as %3F`},
		{"% in password", "mysql://wp:top%secret@db/wp", `the password seems to contain "%", which starts a percent-escape: percent-encode it as %25`},
		{"# in user name", "mysql://w#p:topsecret@db/wp", `the user name seems to contain "#"`},
		{"fragment", "mysql://wp:topsecret@db/wordpress#x", `holds a "#", which ends a URL's address part`},
		{"dsn without database", "wp:topsecret@tcp(db:3306)/", "go-sql-driver DSN has no database name"},
		{"dsn unclosed address", "wp:topsecret@tcp(db:3306/wordpress", "go-sql-driver DSN: invalid DSN"},
		{"dsn bad parameter", "wp:topsecret@tcp(db)/wordpress?parseTime=maybe", "go-sql-driver DSN: invalid bool value: maybe"},
		{"dsn bad port", "wp:topsecret@tcp(db:port)/wordpress", "DSN address is not host:port"},
		{"sqlite without path", "sqlite:", "no file path"},
		{"sqlite without path slashes", "sqlite://", "no file path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseURL(tt.url)
			if err == nil {
				t.Fatalf("ParseURL(%q) succeeded, want an error", tt.url)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseURL(%q) error %q does not say %q", tt.url, err, tt.want)
			}
			for _, piece := range []string{"topsecret", "top", "secret"} {
				if strings.Contains(err.Error(), piece) {
					t.Errorf("ParseURL(%q) error %q shows the password", tt.url, err)
				}
			}
		})
	}
}

func TestConfigValidation(t *testing.T) {
	ok := Config{Driver: DriverSQLite, DSN: "x.sqlite", TablePrefix: "wp_", Settings: Settings{PostTypes: []string{"post"}, QueryTimeout: 5 * time.Second}}
	tests := []struct {
		name   string
		modify func(*Config)
		want   string
	}{
		{"unknown driver", func(c *Config) { c.Driver = "postgres" }, `unknown driver "postgres"`},
		{"empty DSN", func(c *Config) { c.DSN = "" }, "DSN is empty"},
		{"bad prefix", func(c *Config) { c.TablePrefix = "wp_`; --" }, "may only contain letters, digits and underscores"},
		{"negative timeout", func(c *Config) { c.QueryTimeout = -time.Second }, "not positive"},
		{"zero timeout", func(c *Config) { c.QueryTimeout = 0 }, "query timeout 0s is not positive"},
		{"empty prefix", func(c *Config) { c.TablePrefix = "" }, "table prefix is empty"},
		{"no post types", func(c *Config) { c.PostTypes = nil }, "no post types"},
		{"post type with capitals", func(c *Config) { c.PostTypes = []string{"Post"} }, "not a WordPress post type"},
		{"empty post type", func(c *Config) { c.PostTypes = []string{"post", ""} }, "post type"},
		{"long post type", func(c *Config) { c.PostTypes = []string{strings.Repeat("x", 21)} }, "post type"},
		{"repeated post type", func(c *Config) { c.PostTypes = []string{"post", "page", "post"} }, `post type "post" is listed twice`},
		{"shortcode with a space", func(c *Config) { c.StripShortcodes = []string{"gallery", "contact form"} }, `config: shortcode "contact form"`},
		{"empty shortcode", func(c *Config) { c.StripShortcodes = []string{""} }, `config: shortcode ""`},
		{"closing shortcode", func(c *Config) { c.StripShortcodes = []string{"/caption"} }, `config: shortcode "/caption"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := ok
			tt.modify(&cfg)
			if err := cfg.validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("validate() error = %v, want %q", err, tt.want)
			}
		})
	}
	t.Run("valid", func(t *testing.T) {
		if err := ok.validate(); err != nil {
			t.Fatal(err)
		}
		// No default: no shortcodes is a choice, and so are a plugin's.
		withTags := ok
		withTags.StripShortcodes = []string{"gallery", "contact-form-7", "vc_row"}
		if err := withTags.validate(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestMySQLConfig(t *testing.T) {
	tests := []struct {
		dsn, charset string
	}{
		{"u:p@tcp(h:3306)/db", "utf8mb4"},
		{"u:p@tcp(h:3306)/db?charset=utf8", "utf8mb4"},
		{"u:p@tcp(h:3306)/db?charset=utf8mb3&parseTime=true", "utf8mb4"},
		{"u:p@tcp(h:3306)/db?charset=latin1", "latin1"},
	}
	for _, tt := range tests {
		t.Run(tt.dsn, func(t *testing.T) {
			mc, err := mysqlConfig(tt.dsn)
			if err != nil {
				t.Fatal(err)
			}
			if got := mysqlCharset(mc); got != tt.charset {
				t.Errorf("charset = %q, want %q", got, tt.charset)
			}
			if mc.ParseTime {
				t.Error("parseTime is on; post_date would not come back as stored")
			}
			if mc.Timeout == 0 || mc.ReadTimeout == 0 || mc.WriteTimeout == 0 {
				t.Errorf("timeouts not set: %v %v %v", mc.Timeout, mc.ReadTimeout, mc.WriteTimeout)
			}
		})
	}
	if _, err := mysqlConfig("u:p@tcp(h:3306)/"); err == nil {
		t.Error("DSN without a database accepted")
	}
}

func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"mysql://wp:secret@db.example.com:3307/wordpress?tls=true",
		"mysql://wp:p%40ss@[::1]:3306/wp",
		"mysql://wp:pw@/wp?socket=/run/mysqld/mysqld.sock",
		"mysql://wp:top/secret@db/wp",
		"mysql://wp:p#ss@db/wordpress",
		"wp:pw@tcp(127.0.0.1:3306)/wordpress?parseTime=true",
		"wp:pw@unix(/run/mysqld/mysqld.sock)/wp",
		"tcp(db)/wp",
		"sqlite:///var/www/.ht.sqlite",
		"sqlite:x?mode=ro",
		"postgres://x",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cfg, err := ParseURL(s)
		if err != nil {
			return
		}
		if err := completed(cfg).validate(); err != nil {
			t.Fatalf("ParseURL(%q) accepted a config that does not validate: %v", s, err)
		}
		if cfg.Driver == DriverMySQL {
			if _, err := mysqlConfig(cfg.DSN); err != nil {
				t.Fatalf("ParseURL(%q) gave a bad DSN %q: %v", s, cfg.DSN, err)
			}
		}
	})
}

// TestLocation: where a database is, as the start log names it, and never
// its password.
func TestLocation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cfg              Config
		server, database string
	}{
		{Config{Driver: DriverMySQL, DSN: "wp:s3cret#x@tcp(db.example:3307)/wordpress?parseTime=false"}, "db.example:3307", "wordpress"},
		{Config{Driver: DriverMySQL, DSN: "wp:s3cret@unix(/run/mysqld/mysqld.sock)/blog"}, "/run/mysqld/mysqld.sock", "blog"},
		{Config{Driver: DriverSQLite, DSN: "file:/data/wp.sqlite?_pragma=busy_timeout(5000)"}, "", "/data/wp.sqlite"},
		{Config{Driver: DriverSQLite, DSN: "/data/wp.sqlite"}, "", "/data/wp.sqlite"},
	}
	for _, tt := range tests {
		server, database := tt.cfg.Location()
		if server != tt.server || database != tt.database {
			t.Errorf("Location of %s = %q, %q; want %q, %q", tt.cfg.DSN, server, database, tt.server, tt.database)
		}
		if strings.Contains(server+database, "s3cret") {
			t.Errorf("Location of %s shows the password", tt.cfg.DSN)
		}
	}
}
