package wpdb

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/google/go-cmp/cmp"
)

// dbView is the part of a MySQL Config the tests compare: the DSN broken
// into fields, so a test does not depend on the driver's parameter order.
type dbView struct {
	Driver, Net, Addr, User, Passwd, DBName, Charset, Prefix string
	PostTypes                                                []string
}

func viewOf(t *testing.T, cfg Config) dbView {
	t.Helper()
	v := dbView{Driver: cfg.Driver, Prefix: cfg.TablePrefix, PostTypes: cfg.PostTypes}
	if cfg.Driver != DriverMySQL {
		v.Addr = cfg.DSN
		return v
	}
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		t.Fatalf("ParseDSN(%q): %v", cfg.DSN, err)
	}
	v.Net, v.Addr, v.User, v.Passwd, v.DBName, v.Charset = mc.Net, mc.Addr, mc.User, mc.Passwd, mc.DBName, mysqlCharset(mc)
	return v
}

func TestLoadWPConfig(t *testing.T) {
	tests := []struct {
		file string
		want dbView
	}{
		{"sample.php", dbView{"mysql", "tcp", "localhost:3306", "wp_user", "S3cr3t!pass", "wordpress", "utf8mb4", "wp_", nil}},
		{"double-quotes.php", dbView{"mysql", "tcp", "db.example.com:3307", "shop", `it's "quoted" \ back`, "shop_wp", "utf8mb4", "shop_", nil}},
		{"socket.php", dbView{"mysql", "unix", "/var/run/mysqld/mysqld.sock", "blog", "p@ss:w/rd#1", "blog", "utf8mb4", "blog2024_", nil}},
		{"ipv6.php", dbView{"mysql", "tcp", "[::1]:3306", "root", "", "wordpress", "utf8mb4", "wpv6_", nil}},
		{"const.php", dbView{"mysql", "tcp", "10.0.0.5:3306", "u", "pa$$word", "constdb", "latin1", "", nil}},
		{"redefined.php", dbView{"mysql", "tcp", "db.example.com:3306", "first_user", "first-pass", "firstdb", "utf8mb4", "wp_", nil}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			cfg, err := LoadWPConfig(filepath.Join("testdata", "wp-config", tt.file))
			if err != nil {
				t.Fatalf("LoadWPConfig: %v", err)
			}
			if diff := cmp.Diff(tt.want, viewOf(t, cfg)); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
			if cfg.QueryTimeout != 0 || cfg.PostTypes != nil {
				t.Errorf("QueryTimeout = %v, PostTypes = %v: wp-config.php sets neither", cfg.QueryTimeout, cfg.PostTypes)
			}
			if err := completed(cfg).validate(); err != nil {
				t.Errorf("config does not validate: %v", err)
			}
		})
	}
}

func TestLoadWPConfigErrors(t *testing.T) {
	tests := []struct {
		file string
		want string // in the error message
	}{
		{"missing-db-name.php", "DB_NAME is not defined"},
		{"getenv.php", "DB_NAME is not a plain string literal"},
		{"bad-prefix.php", "$table_prefix: table prefix \"wp-posts; DROP TABLE x; --\" may only contain letters, digits and underscores"},
		{"bad-port.php", `DB_HOST: "db.example.com:http" has an invalid port "http"`},
		{"unterminated-comment.php", "unterminated /* comment"},
		{"no-such-file.php", "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", "wp-config", tt.file)
			_, err := LoadWPConfig(path)
			if err == nil {
				t.Fatal("LoadWPConfig succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name %q and the file", err, tt.want)
			}
		})
	}
}

func TestParseDBHost(t *testing.T) {
	tests := []struct {
		host, net, addr string
		local           bool // the default socket, as mysqli reads localhost
		err             string
	}{
		{"localhost", "tcp", "localhost:3306", true, ""},
		{"db", "tcp", "db:3306", false, ""},
		{"db:3307", "tcp", "db:3307", false, ""},
		{"127.0.0.1:33060", "tcp", "127.0.0.1:33060", false, ""},
		{"[::1]:3306", "tcp", "[::1]:3306", false, ""},
		{"[::1]", "tcp", "[::1]:3306", false, ""},
		{"::1", "tcp", "[::1]:3306", false, ""},
		{"[2001:db8::5]:3310", "tcp", "[2001:db8::5]:3310", false, ""},
		{"localhost:/var/run/mysqld/mysqld.sock", "unix", "/var/run/mysqld/mysqld.sock", false, ""},
		{":/tmp/mysql.sock", "unix", "/tmp/mysql.sock", false, ""},
		{"", "tcp", "localhost:3306", true, ""},
		// mysqlnd compares "localhost" case-insensitively and ignores the
		// port for the socket; the port is kept for the TCP fallback.
		{"LocalHost", "tcp", "LocalHost:3306", true, ""},
		{"localhost:3307", "tcp", "localhost:3307", true, ""},
		{":3307", "tcp", "localhost:3307", true, ""},
		{"localhost:3307:/run/mysqld/mysqld.sock", "unix", "/run/mysqld/mysqld.sock", false, ""},
		// mysqli reads a socket only for localhost: another host is TCP.
		{"127.0.0.1:/run/mysqld/mysqld.sock", "tcp", "127.0.0.1:3306", false, ""},
		{"[::1]:3307:/run/mysqld/mysqld.sock", "tcp", "[::1]:3307", false, ""},
		{"localhost.example", "tcp", "localhost.example:3306", false, ""},
		{"db:", "", "", false, "invalid port"},
		{"db:99999", "", "", false, "invalid port"},
		{"db:-1", "", "", false, "invalid port"},
		{"localhost:abc", "", "", false, "invalid port"},
		{"[::1", "", "", false, "no closing ]"},
		{"[::1]x", "", "", false, "text after ]"},
		{"user@db", "", "", false, "not a host name"},
		{"user@db:/tmp/mysql.sock", "", "", false, "not a host name"},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			network, addr, local, err := parseDBHost(tt.host)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("parseDBHost(%q) error = %v, want %q", tt.host, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseDBHost(%q): %v", tt.host, err)
			}
			if network != tt.net || addr != tt.addr || local != tt.local {
				t.Errorf("parseDBHost(%q) = %s %s local=%v, want %s %s local=%v", tt.host, network, addr, local, tt.net, tt.addr, tt.local)
			}
		})
	}
}

func TestParseWPConfigStrings(t *testing.T) {
	base := "<?php define('DB_USER','u'); define('DB_PASSWORD','p'); define('DB_HOST','h');\n"
	tests := []struct {
		name, src, wantDB, err string
	}{
		{"double quote escapes", `define("DB_NAME", "a\"b\\c\$d\x");`, `a"b\c$d\x`, ""},
		{"single quote keeps other backslashes", `define('DB_NAME', 'a\nb\'c');`, `a\nb'c`, ""},
		{"case-insensitive define", `DEFINE('DB_NAME', 'x');`, "x", ""},
		{"hash comment", "# define('DB_NAME', 'no');\ndefine('DB_NAME', 'yes');", "yes", ""},
		{"first define wins", "define('DB_NAME', 'first'); define('DB_NAME', 'second');", "first", ""},
		{"first const wins", "const DB_NAME = 'first'; const DB_NAME = 'second';", "first", ""},
		{"define before const wins", "define('DB_NAME', 'first'); const DB_NAME = 'second';", "first", ""},
		{"const before define wins", "const DB_NAME = 'first'; define('DB_NAME', 'second');", "first", ""},
		{"interpolation refused", `define("DB_NAME", "db$name");`, "", "variable interpolation"},
		{"unterminated string", `define('DB_NAME', 'x);`, "", "unterminated string"},
		{"empty name", `define('DB_NAME', '');`, "", "DB_NAME is empty"},
		{"number", `define('DB_NAME', 5);`, "", "DB_NAME is not a plain string literal"},
		{"prefix not literal", "define('DB_NAME','d'); $table_prefix = $x . '_';", "", "$table_prefix is not set to a plain string literal"},
		{"empty prefix", "define('DB_NAME','d'); $table_prefix = '';", "", "table prefix is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ParseWPConfig([]byte(base + tt.src))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseWPConfig: %v", err)
			}
			if got := viewOf(t, cfg).DBName; got != tt.wantDB {
				t.Errorf("DB_NAME = %q, want %q", got, tt.wantDB)
			}
		})
	}
}

func FuzzParseWPConfig(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "wp-config", "*.php"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte(`<?php define('DB_NAME','a'); define('DB_USER','b'); define('DB_PASSWORD','c'); define('DB_HOST','[::1');`))
	f.Add([]byte(`"\`))
	f.Fuzz(func(t *testing.T, src []byte) {
		cfg, err := ParseWPConfig(src)
		if err != nil {
			if strings.Contains(err.Error(), "DROP TABLE") && !strings.Contains(string(src), "DROP TABLE") {
				t.Fatalf("error invents text: %v", err)
			}
			return
		}
		// Whatever it accepts must be a config Open would accept, with a
		// prefix safe to place in SQL and a DSN the driver can read.
		if err := completed(cfg).validate(); err != nil {
			t.Fatalf("accepted config does not validate: %v\n%#v", err, cfg)
		}
		if _, err := mysqlConfig(cfg.DSN); err != nil {
			t.Fatalf("accepted config has a bad DSN %q: %v", cfg.DSN, err)
		}
		// And localhost settles to TCP when no socket is there.
		resolved, _, err := ResolveLocalSocket(cfg, nil)
		if err != nil || resolved.LocalSocket {
			t.Fatalf("accepted config does not resolve: %v\n%#v", err, cfg)
		}
		if _, err := mysqlConfig(resolved.DSN); err != nil {
			t.Fatalf("resolved config has a bad DSN %q: %v", resolved.DSN, err)
		}
	})
}

// TestParseWPConfigAddresses reads the site addresses a wp-config.php may
// define, which WordPress puts in place of the home and siteurl options;
// a computed one is left to the options rather than failing the start.
func TestParseWPConfigAddresses(t *testing.T) {
	base := `<?php
define( 'DB_NAME', 'wordpress' ); define( 'DB_USER', 'wp' ); define( 'DB_PASSWORD', 'pw' ); define( 'DB_HOST', 'db' );
`
	tests := []struct {
		name, src string
		want      Addresses
	}{
		{"none", "", Addresses{}},
		{"all three", `define( 'WP_HOME', 'https://example.com/' );
define("WP_SITEURL", "https://example.com/wp");
const WP_CONTENT_URL = 'https://cdn.example.com/wp-content';`,
			Addresses{Home: "https://example.com/", SiteURL: "https://example.com/wp", ContentURL: "https://cdn.example.com/wp-content"}},
		{"computed", `define( 'WP_HOME', 'https://' . $_SERVER['HTTP_HOST'] );`, Addresses{}},
		{"first wins", "define('WP_HOME', 'https://first.example');\ndefine('WP_HOME', 'https://second.example');",
			Addresses{Home: "https://first.example"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ParseWPConfig([]byte(base + tt.src))
			if err != nil {
				t.Fatalf("ParseWPConfig: %v", err)
			}
			if diff := cmp.Diff(tt.want, cfg.Addresses); diff != "" {
				t.Errorf("Addresses (-want +got):\n%s", diff)
			}
		})
	}
}
