package wpdb

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb/excerpt"
)

// The drivers a Config can name.
const (
	DriverMySQL  = "mysql"  // MySQL or MariaDB through github.com/go-sql-driver/mysql
	DriverSQLite = "sqlite" // SQLite through modernc.org/sqlite
)

// maxPostTypeLen is the width of wp_posts.post_type (varchar(20)); a longer
// name can never match a row.
const maxPostTypeLen = 20

// Config says which WordPress database to read and how: where it is
// (Driver, DSN, TablePrefix), and the Settings as the server was given
// them, of which Open reads what to list and how long to wait. Open
// refuses a zero value rather than guess one.
type Config struct {
	Driver      string // "mysql" or "sqlite"
	DSN         string // the driver's data source name
	TablePrefix string // $table_prefix: [A-Za-z0-9_]+ as WordPress requires
	// Settings are the flags' choices. Open reads PostTypes (each checked
	// by ValidatePostType), SearchPostTypes (none: DefaultSearchPostTypes),
	// StripShortcodes (each checked by [excerpt.ValidateShortcode]; none
	// strips none), QueryTimeout, under which every query runs, and
	// SearchTimeout, under which a search's one scan runs instead (0:
	// QueryTimeout). Where the database is (DB, WPConfig, the sockets and
	// replicas) the caller has resolved into the fields above and a
	// Replication, and -table-prefix into TablePrefix.
	Settings
	// LocalSocket says the MySQL host is localhost, which PHP's mysqli
	// reaches through the local Unix socket, never TCP. Parsing sets it and
	// leaves DSN at TCP localhost:port; only ResolveLocalSocket, given the
	// candidate sockets, settles it, and Open refuses a Config where it is
	// still set rather than guess a socket or fall back to TCP unasked.
	LocalSocket bool
	// ExcerptMemoEntries is how many excerpts the Store keeps, each under
	// its post's ID, post_modified_gmt and content length, so that a post
	// is shaped once per version rather than on every read; 0 keeps none.
	// ExcerptMemoBytes bounds what they take in memory, about 200 bytes of
	// bookkeeping and up to 800 of text each; it must be positive when the
	// memo is on.
	ExcerptMemoEntries int
	ExcerptMemoBytes   int
	// Addresses are the site addresses wp-config.php defines, which
	// [Store.Options] puts in place of the options, as WordPress does.
	Addresses Addresses
	// Language is what wp-config.php says of the site's language, which
	// [Store.Options] hands on with the options (see [blog.Options.Locale]).
	Language blog.Language
}

// Addresses are wp-config.php's WP_HOME, WP_SITEURL and WP_CONTENT_URL;
// an empty one is not defined.
type Addresses struct {
	Home, SiteURL, ContentURL string
}

// validate returns an error naming the first field that is wrong.
func (cfg Config) validate() error {
	if err := cfg.validateTable(); err != nil {
		return err
	}
	switch {
	case cfg.QueryTimeout <= 0:
		return fmt.Errorf("config: query timeout %v is not positive", cfg.QueryTimeout)
	case len(cfg.PostTypes) == 0:
		return errors.New("config: no post types")
	case cfg.ExcerptMemoEntries < 0:
		return fmt.Errorf("config: excerpt memo of %d entries is negative (0 turns it off)", cfg.ExcerptMemoEntries)
	case cfg.ExcerptMemoEntries > 0 && cfg.ExcerptMemoBytes <= 0:
		return fmt.Errorf("config: excerpt memo of %d bytes is not positive", cfg.ExcerptMemoBytes)
	}
	for i, pt := range cfg.PostTypes {
		if err := ValidatePostType(pt); err != nil {
			return fmt.Errorf("config: %w", err)
		}
		if slices.Contains(cfg.PostTypes[:i], pt) {
			// A repeated type would return its posts twice.
			return fmt.Errorf("config: post type %q is listed twice", pt)
		}
	}
	for i, pt := range cfg.SearchPostTypes {
		if err := ValidatePostType(pt); err != nil {
			return fmt.Errorf("config: search: %w", err)
		}
		if slices.Contains(cfg.SearchPostTypes[:i], pt) {
			return fmt.Errorf("config: search post type %q is listed twice", pt)
		}
	}
	for _, tag := range cfg.StripShortcodes {
		if err := excerpt.ValidateShortcode(tag); err != nil {
			return fmt.Errorf("config: %w", err)
		}
	}
	return nil
}

// validateTable checks the fields that name the posts table, all that
// [OpenWritable] needs.
func (cfg Config) validateTable() error {
	switch {
	case cfg.Driver != DriverMySQL && cfg.Driver != DriverSQLite:
		return errUnknownDriver(cfg.Driver)
	case cfg.DSN == "":
		return errors.New("config: DSN is empty")
	}
	if err := ValidatePrefix(cfg.TablePrefix); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

// ValidatePostType applies WordPress's rule for post type names: they are
// keys made by sanitize_key (lower-case letters, digits, dashes and
// underscores) and fit wp_posts.post_type, varchar(20).
func ValidatePostType(pt string) error {
	if pt == "" || len(pt) > maxPostTypeLen || strings.ContainsFunc(pt, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) {
		return fmt.Errorf("%q is not a WordPress post type (1 to %d of a-z, 0-9, - and _)", pt, maxPostTypeLen)
	}
	return nil
}

func errUnknownDriver(driver string) error {
	return fmt.Errorf("unknown driver %q (want %q or %q)", driver, DriverMySQL, DriverSQLite)
}

// DefaultTablePrefix is WordPress's own default $table_prefix: a site
// whose wp-config.php does not change it keeps its tables under wp_.
const DefaultTablePrefix = "wp_"

// ValidatePrefix applies WordPress's own rule for $table_prefix
// (wpdb::set_prefix refuses anything but letters, digits and underscores).
// It is what makes it safe to put the table name into SQL text.
func ValidatePrefix(prefix string) error {
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

// ParseURL turns a database URL into a Config naming the driver and DSN;
// the caller sets the prefix, post types and timeout. It accepts
// mysql://user:password@host:port/dbname?param=value (bare localhost is the
// local socket, see [Config.LocalSocket]; ?socket=PATH names one),
// a go-sql-driver DSN as it is (user:password@tcp(host:port)/dbname, whose
// localhost is TCP), and sqlite:PATH, sqlite://PATH or sqlite:///PATH. A URL's
// user and password are percent-encoded, a DSN's raw; other parameters go
// to the driver. Its error names the wrong part, never the password, and
// suggests percent-encoding when the password seems to hold # / ? or %.
func ParseURL(s string) (Config, error) {
	switch {
	case strings.HasPrefix(s, "mysql://"):
		return parseMySQLURL(s)
	case strings.HasPrefix(s, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(s, "sqlite:"), "//")
		if path == "" {
			return Config{}, errors.New("wpdb: sqlite URL has no file path (want sqlite:PATH)")
		}
		return Config{Driver: DriverSQLite, DSN: path}, nil
	case s == "":
		return Config{}, errors.New("wpdb: database URL is empty")
	case looksLikeDSN(s):
		return parseMySQLDSN(s)
	default:
		scheme, rest, ok := strings.Cut(s, ":")
		if !ok || strings.ContainsAny(scheme, "/@") {
			return Config{}, errors.New("wpdb: database URL has no scheme (want mysql://... or sqlite:PATH)")
		}
		if !strings.HasPrefix(rest, "//") {
			// user:password@host/db: what comes before the first colon is
			// a user name, not a scheme, and is not worth quoting.
			return Config{}, errors.New("wpdb: database URL has no scheme, and is no go-sql-driver DSN either " +
				"(want mysql://user:password@host:3306/dbname or user:password@tcp(host:3306)/dbname)")
		}
		return Config{}, fmt.Errorf("wpdb: database URL scheme %q is not supported (want mysql or sqlite)", scheme)
	}
}

// looksLikeDSN says whether s is meant as a go-sql-driver DSN rather than
// a URL: it has no scheme, and either names the driver's tcp( or unix(
// network, or the driver reads it as it is (tcp(db)/wordpress).
func looksLikeDSN(s string) bool {
	if strings.Contains(s, "://") {
		return false
	}
	if strings.Contains(s, "@tcp(") || strings.Contains(s, "@unix(") || strings.Contains(s, "@/") {
		return true
	}
	_, err := mysql.ParseDSN(s)
	return err == nil
}

// parseMySQLDSN takes a go-sql-driver DSN as it is, with the checks a URL
// gets: a database name, and parameters the driver understands.
func parseMySQLDSN(s string) (Config, error) {
	mc, err := mysql.ParseDSN(s)
	if err != nil {
		return Config{}, fmt.Errorf("wpdb: go-sql-driver DSN: %s (want user:password@tcp(host:3306)/dbname)", withoutPassword(err.Error(), dsnPassword(s)))
	}
	if mc.DBName == "" {
		return Config{}, errors.New("wpdb: go-sql-driver DSN has no database name (want user:password@tcp(host:3306)/dbname)")
	}
	if mc.Net == "tcp" {
		if _, port, err := net.SplitHostPort(mc.Addr); err != nil || !validPort(port) {
			return Config{}, errors.New("wpdb: go-sql-driver DSN address is not host:port with a port from 1 to 65535 (want tcp(host:3306))")
		}
	}
	return Config{Driver: DriverMySQL, DSN: mc.FormatDSN()}, nil
}

// dsnPassword is what the driver would read as the password of a DSN that
// it could not parse: from the first colon to the last @ before the last
// slash. It is only for keeping it out of messages.
func dsnPassword(s string) string {
	if i := strings.LastIndex(s, "/"); i >= 0 {
		s = s[:i]
	}
	at := strings.LastIndex(s, "@")
	if at < 0 {
		return ""
	}
	_, pw, _ := strings.Cut(s[:at], ":")
	return pw
}

// withoutPassword is msg with password hidden, for driver messages that
// quote a piece of a DSN.
func withoutPassword(msg, password string) string {
	if password == "" {
		return msg
	}
	return strings.ReplaceAll(msg, password, "xxxxx")
}

// validPort says whether port is a TCP port number, 1 to 65535.
func validPort(port string) bool {
	n, err := strconv.Atoi(port)
	return err == nil && n >= 1 && n <= 65535 && port[0] != '+'
}

func parseMySQLURL(s string) (Config, error) {
	cfg, err := parseMySQLURLParts(s)
	if err != nil {
		// A # / ? or % in the password is the usual cause of an address
		// that reads wrong: say so, rather than what the URL parser made
		// of the pieces.
		if hint := userInfoMistake(s); hint != "" {
			return Config{}, errors.New("wpdb: " + hint)
		}
		return Config{}, err
	}
	return cfg, nil
}

// parseMySQLURLParts parses a mysql:// URL. None of its errors quotes the
// URL: a piece of it may be the password.
func parseMySQLURLParts(s string) (Config, error) {
	const want = "(want mysql://user:password@host:3306/dbname)"
	if strings.Contains(s, "#") {
		// A fragment means nothing to a database, and a # cuts the URL
		// short wherever it is, password included.
		return Config{}, errors.New(`wpdb: mysql URL holds a "#", which ends a URL's address part: percent-encode it as %23 ` + want)
	}
	u, err := url.Parse(s)
	if err != nil {
		return Config{}, urlParseMistake(err)
	}
	mc, local := mysql.NewConfig(), false
	if u.User != nil {
		mc.User = u.User.Username()
		mc.Passwd, _ = u.User.Password()
	}
	mc.DBName = strings.TrimPrefix(u.Path, "/")
	if mc.DBName == "" {
		return Config{}, errors.New("wpdb: mysql URL has no database name " + want)
	}
	if strings.Contains(mc.DBName, "/") {
		return Config{}, errors.New(`wpdb: mysql URL has no database name, but a path with a "/" in it ` + want)
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
			return Config{}, errors.New("wpdb: mysql URL has no host " + want)
		}
		if port == "" {
			port = "3306"
		} else if !validPort(port) {
			return Config{}, errors.New("wpdb: mysql URL port is not a number from 1 to 65535 " + want)
		}
		mc.Net, mc.Addr = "tcp", net.JoinHostPort(host, port)
		// A bare localhost is the socket, as in PHP. A URL that names a
		// port means TCP to it: a port is only worth writing for a TCP
		// listener (an SSH tunnel, a second server). DB_HOST follows
		// mysqli instead, which ignores a port beside localhost.
		local = strings.EqualFold(host, "localhost") && u.Port() == ""
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
	return Config{Driver: DriverMySQL, DSN: dsn, LocalSocket: local}, nil
}
