package wpdb

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Connection timeouts for MySQL when the DSN sets none. Queries are bounded
// by their context first; these catch a server that stops answering at the
// socket level, so a stuck connection is dropped rather than reused.
const (
	mysqlDialTimeout  = 5 * time.Second
	mysqlReadTimeout  = 30 * time.Second
	mysqlWriteTimeout = 30 * time.Second
)

// mysqlConfig parses dsn and adjusts it to what the store relies on. It
// returns an error when dsn is not a valid go-sql-driver DSN or names no
// database.
func mysqlConfig(dsn string) (*mysql.Config, error) {
	mc, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("mysql DSN: %w", err)
	}
	if mc.DBName == "" {
		return nil, fmt.Errorf("mysql DSN names no database")
	}
	// post_date must come back exactly as stored ("0000-00-00 00:00:00"
	// included), so the driver must not turn DATETIME into time.Time.
	mc.ParseTime = false
	// WordPress upgrades DB_CHARSET 'utf8' (3-byte utf8mb3) to utf8mb4 when the
	// server supports it; so do we, or emoji in posts would come back as '?'.
	// Another charset (latin1 on an old site) is kept: the stored bytes only
	// read back right through the charset they were written with.
	switch cs := mysqlCharset(mc); cs {
	case "", "utf8", "utf8mb3":
		if err := mc.Apply(mysql.Charset("utf8mb4", "")); err != nil {
			return nil, fmt.Errorf("mysql DSN: %w", err)
		}
		if !strings.HasPrefix(mc.Collation, "utf8mb4_") {
			mc.Collation = ""
		}
	}
	if mc.Timeout == 0 {
		mc.Timeout = mysqlDialTimeout
	}
	if mc.ReadTimeout == 0 {
		mc.ReadTimeout = mysqlReadTimeout
	}
	if mc.WriteTimeout == 0 {
		mc.WriteTimeout = mysqlWriteTimeout
	}
	return mc, nil
}

// mysqlWhere names the database a MySQL DSN names and the server it is
// on ("wordpress at TCP db:3306", "blog at Unix socket /run/mysqld/mysqld.sock"),
// for messages; never the password. Open has parsed the DSN already.
func mysqlWhere(dsn string) string {
	mc, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "?"
	}
	return mc.DBName + " at " + describe(mc.Net, mc.Addr)
}

// mysqlCharset returns the charset parameter of mc, which the driver keeps
// unexported; FormatDSN is the one way to read it back.
func mysqlCharset(mc *mysql.Config) string {
	dsn := mc.FormatDSN()
	_, params, ok := strings.Cut(dsn[strings.LastIndex(dsn, "/"):], "?")
	if !ok {
		return ""
	}
	for kv := range strings.SplitSeq(params, "&") {
		if v, ok := strings.CutPrefix(kv, "charset="); ok {
			return strings.ToLower(v)
		}
	}
	return ""
}

// sqliteDSN turns a path or file: URI into a modernc.org/sqlite DSN. The
// store only reads: query_only refuses writes, and mode=rw (unless the DSN
// sets a mode) refuses to create a missing file, which would otherwise turn
// a typo into an empty database. create is for [OpenWritable].
func sqliteDSN(dsn string, timeout time.Duration, create bool) string {
	var base string
	var q url.Values
	if rest, ok := strings.CutPrefix(dsn, "file:"); ok {
		path, query, _ := strings.Cut(rest, "?")
		base = "file:" + path
		q, _ = url.ParseQuery(query)
		if q == nil {
			q = url.Values{}
		}
	} else {
		// Escape ?, # and % so SQLite reads the whole string as the file name.
		base = "file:" + (&url.URL{Path: dsn}).EscapedPath()
		q = url.Values{}
	}
	if q.Get("mode") == "" {
		if create {
			q.Set("mode", "rwc")
		} else {
			q.Set("mode", "rw")
		}
	}
	// busy_timeout lets a read wait for a writer's lock (a seed script, or
	// WordPress itself through the plugin) instead of failing at once.
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", timeout.Milliseconds()))
	if !create {
		q.Add("_pragma", "query_only(1)")
	}
	return base + "?" + q.Encode()
}

// Location says where cfg's database is, for logs and messages: the
// server (host:port, or the socket's path) and the database name for
// MySQL; no server and the file for SQLite. It never holds the password.
func (c Config) Location() (server, database string) {
	if c.Driver == DriverSQLite {
		file, _, _ := strings.Cut(strings.TrimPrefix(c.DSN, "file:"), "?")
		return "", file
	}
	mc, err := mysql.ParseDSN(c.DSN)
	if err != nil {
		return "?", "?"
	}
	return mc.Addr, mc.DBName
}
