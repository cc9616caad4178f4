package wpdb

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The drivers a Config can name.
const (
	DriverMySQL  = "mysql"  // MySQL or MariaDB through github.com/go-sql-driver/mysql
	DriverSQLite = "sqlite" // SQLite through modernc.org/sqlite
)

// Defaults that Open fills into a Config.
const (
	DefaultTablePrefix  = "wp_"
	DefaultQueryTimeout = 5 * time.Second
)

// DefaultPostTypes is the post type list Open uses when Config.PostTypes is
// empty: posts only, as WordPress's get_posts() does.
func DefaultPostTypes() []string { return []string{"post"} }

// maxPostTypeLen is the width of wp_posts.post_type (varchar(20)); a longer
// name can never match a row.
const maxPostTypeLen = 20

// Config says which WordPress database to read and how.
type Config struct {
	Driver       string        // "mysql" or "sqlite"
	DSN          string        // the driver's data source name
	TablePrefix  string        // default "wp_"; [A-Za-z0-9_]+ as WordPress requires
	PostTypes    []string      // default ["post"]
	QueryTimeout time.Duration // default 5s; every query runs under min(ctx deadline, this)

	// Logger, when set, receives the MySQL driver's own messages (such as
	// "closing bad idle connection" after a database restart) at Warn
	// level; when nil they are dropped, since every failure that matters
	// also comes back as an error from a Store method.
	Logger *slog.Logger
}

// withDefaults returns cfg with its empty fields filled in, or an error
// naming the first field that is wrong.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.TablePrefix == "" {
		cfg.TablePrefix = DefaultTablePrefix
	}
	if len(cfg.PostTypes) == 0 {
		cfg.PostTypes = DefaultPostTypes()
	} else {
		cfg.PostTypes = append([]string(nil), cfg.PostTypes...)
	}
	if cfg.QueryTimeout == 0 {
		cfg.QueryTimeout = DefaultQueryTimeout
	}
	switch {
	case cfg.Driver != DriverMySQL && cfg.Driver != DriverSQLite:
		return cfg, errUnknownDriver(cfg.Driver)
	case cfg.DSN == "":
		return cfg, errors.New("config: DSN is empty")
	case cfg.QueryTimeout < 0:
		return cfg, fmt.Errorf("config: query timeout %v is negative", cfg.QueryTimeout)
	}
	if err := validatePrefix(cfg.TablePrefix); err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	for i, pt := range cfg.PostTypes {
		if pt == "" || len(pt) > maxPostTypeLen {
			return cfg, fmt.Errorf("config: post type %q must be 1 to %d bytes long", pt, maxPostTypeLen)
		}
		if slices.Contains(cfg.PostTypes[:i], pt) {
			// A repeated type would return its posts twice.
			return cfg, fmt.Errorf("config: post type %q is listed twice", pt)
		}
	}
	return cfg, nil
}

func errUnknownDriver(driver string) error {
	return fmt.Errorf("unknown driver %q (want %q or %q)", driver, DriverMySQL, DriverSQLite)
}

// validatePrefix applies WordPress's own rule for $table_prefix
// (wpdb::set_prefix refuses anything but letters, digits and underscores).
// It is what makes it safe to put the table name into SQL text.
func validatePrefix(prefix string) error {
	if prefix == "" {
		return errors.New("table prefix is empty")
	}
	for _, r := range prefix {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return fmt.Errorf("table prefix %q may only contain letters, digits and underscores", prefix)
		}
	}
	return nil
}

// ParseURL turns a database URL into a Config with default prefix, post
// types and timeout. It accepts
//
//	mysql://user:password@host:port/dbname?param=value
//	mysql://user:password@/dbname?socket=/run/mysqld/mysqld.sock
//	sqlite:PATH, sqlite://PATH or sqlite:///absolute/PATH
//
// Special characters in the user name or password should be percent-encoded
// (p%40ss for p@ss). Other query parameters of a mysql URL are passed to the
// driver (e.g. tls=true). ParseURL returns an error naming what is wrong;
// the error never contains the password.
func ParseURL(s string) (Config, error) {
	switch {
	case strings.HasPrefix(s, "mysql://"):
		return parseMySQLURL(s)
	case strings.HasPrefix(s, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(s, "sqlite:"), "//")
		if path == "" {
			return Config{}, errors.New("wpdb: sqlite URL has no file path (want sqlite:PATH)")
		}
		return withURLDefaults(Config{Driver: DriverSQLite, DSN: path}), nil
	case s == "":
		return Config{}, errors.New("wpdb: database URL is empty")
	default:
		scheme, _, ok := strings.Cut(s, ":")
		if !ok || strings.ContainsAny(scheme, "/@") {
			return Config{}, errors.New("wpdb: database URL has no scheme (want mysql://... or sqlite:PATH)")
		}
		return Config{}, fmt.Errorf("wpdb: database URL scheme %q is not supported (want mysql or sqlite)", scheme)
	}
}

func parseMySQLURL(s string) (Config, error) {
	u, err := url.Parse(s)
	if err != nil {
		// The url error quotes the part it could not read, which may be a
		// piece of the password: say what to check instead.
		return Config{}, errors.New("wpdb: mysql URL is malformed (check host:port, and percent-encode / ? # and % in the user name and password)")
	}
	mc := mysql.NewConfig()
	if u.User != nil {
		mc.User = u.User.Username()
		mc.Passwd, _ = u.User.Password()
	}
	mc.DBName = strings.TrimPrefix(u.Path, "/")
	if mc.DBName == "" || strings.Contains(mc.DBName, "/") {
		return Config{}, errors.New("wpdb: mysql URL has no database name (want mysql://user:password@host:3306/dbname)")
	}
	q := u.Query()
	if sock := q.Get("socket"); sock != "" {
		if u.Host != "" {
			return Config{}, errors.New("wpdb: mysql URL names both a host and a socket")
		}
		mc.Net, mc.Addr = "unix", sock
		q.Del("socket")
	} else {
		host, port := u.Hostname(), u.Port()
		if host == "" {
			return Config{}, errors.New("wpdb: mysql URL has no host (want mysql://user:password@host:3306/dbname)")
		}
		if port == "" {
			port = "3306"
		}
		mc.Net, mc.Addr = "tcp", net.JoinHostPort(host, port)
	}
	dsn := mc.FormatDSN()
	if len(q) > 0 {
		sep := "?"
		if strings.Contains(dsn[strings.LastIndex(dsn, "/"):], "?") {
			sep = "&"
		}
		dsn += sep + q.Encode()
	}
	if _, err := mysql.ParseDSN(dsn); err != nil {
		return Config{}, fmt.Errorf("wpdb: mysql URL parameters: %w", err)
	}
	return withURLDefaults(Config{Driver: DriverMySQL, DSN: dsn}), nil
}

func withURLDefaults(cfg Config) Config {
	cfg.TablePrefix = DefaultTablePrefix
	cfg.PostTypes = DefaultPostTypes()
	cfg.QueryTimeout = DefaultQueryTimeout
	return cfg
}
