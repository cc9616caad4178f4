package wpdb

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wploadmore/wploadmore/internal/setting"
	"github.com/wploadmore/wploadmore/wpdb/excerpt"
)

// Settings are a server's choices of database, each a flag (see Group):
// where the database is, which replicas read for it, and what of it to
// list. The server turns them into a Config once it has found the
// database they name.
type Settings struct {
	DB              string   // mysql://… or sqlite:PATH; "" means the embedded demo database
	DataDir         string   // where the embedded demo database lives
	WPConfig        string   // path to a wp-config.php to take the database from
	MySQLSocket     string   // tried first when the MySQL host is localhost
	DBReplicas      []string // read replicas, in -db's MySQL forms
	MaxReplicaLag   time.Duration
	TablePrefix     string // overrides the prefix of -db or -wp-config when set
	PostTypes       []string
	SearchPostTypes []string // the post types a search lists
	StripShortcodes []string // stripped from excerpts
	QueryTimeout    time.Duration
	SearchTimeout   time.Duration
}

// The defaults of the settings WordPress does not decide.
const (
	DefaultDataDir       = "data"
	DefaultMaxReplicaLag = 5 * time.Second
	DefaultPostType      = "post"
	DefaultQueryTimeout  = 5 * time.Second
	// DefaultSearchTimeout lets a search's one scan of 100 000 posts'
	// text finish on a small server: WordPress's own query takes 10 s there.
	DefaultSearchTimeout = 30 * time.Second
)

// The excerpt memo's bounds (Config.ExcerptMemoEntries and
// ExcerptMemoBytes): an excerpt takes a few hundred bytes, so the entries
// bind first, and 10 000 cover the posts a site shows; the bytes are a
// ceiling for excerpts of long multi-byte text. No site has needed others,
// so they are no flags.
const (
	ExcerptMemoEntries = 10_000
	ExcerptMemoBytes   = 8 << 20
)

// MySQLPoolSize is the most connections a Store opens to a MySQL server:
// each request holds one for a short query, and a few per core is plenty.
const MySQLPoolSize = 16

// MaxSocketPath is the longest path connect(2) takes for a Unix socket on
// Linux: sun_path is 108 bytes, NUL included. A longer one would only
// fail at the first query, as "invalid argument".
const MaxSocketPath = 107

// Group is the table of s's settings, which start at their defaults.
func (s *Settings) Group() setting.Group {
	return setting.Group{
		Component: "Database",
		Settings: []setting.Setting{
			{Name: "db", Value: setting.String(&s.DB, ""), Secret: true,
				Usage: "WordPress database: mysql://user:password@host:port/dbname?params, a go-sql-driver DSN user:password@tcp(host:port)/dbname, or sqlite:PATH (empty: the embedded demo database)"},
			{Name: "data-dir", Value: setting.String(&s.DataDir, DefaultDataDir),
				Usage: "`folder` holding the embedded demo database"},
			{Name: "wp-config", Value: setting.String(&s.WPConfig, ""),
				Usage: "`path` to a wp-config.php to read the database credentials and table prefix from"},
			{Name: "mysql-socket", Value: setting.String(&s.MySQLSocket, ""), Check: s.checkSocket,
				Usage: "Unix socket `path` a MySQL host of localhost connects through (PHP's mysqli.default_socket), tried before " + strings.Join(DefaultSocketPaths(), ", ") + "; with none of them, TCP 127.0.0.1"},
			{Name: "db-replica", Value: setting.URLs(&s.DBReplicas), Secret: true,
				Usage: "read replica `URL` of the database, in -db's MySQL forms (mysql://… or a go-sql-driver DSN); repeat the flag for several (in its variable, URLs separated by spaces). Reads go to the healthy replicas in turn, to the primary only while none is"},
			{Name: "max-replica-lag", Value: setting.Duration(&s.MaxReplicaLag, DefaultMaxReplicaLag), Check: setting.Positive(&s.MaxReplicaLag),
				Usage: "a replica further behind the primary than this (Seconds_Behind_Master, checked every second), or whose replication is stopped, is set aside until it catches up"},
			{Name: "table-prefix", Value: setting.String(&s.TablePrefix, ""),
				Usage: "WordPress table `prefix` (default " + DefaultTablePrefix + ", or $table_prefix from -wp-config)"},
			{Name: "post-types", Value: setting.Parsed(&s.PostTypes, DefaultPostType, parsePostTypes),
				Usage: "comma-separated post `types` to list"},
			{Name: "search-post-types", Value: setting.Parsed(&s.SearchPostTypes, strings.Join(DefaultSearchPostTypes, ","), parsePostTypes),
				Usage: "comma-separated post `types` a search (s=) lists, as WordPress's search page lists posts and pages (attachments are left out)"},
			{Name: "strip-shortcodes", Value: setting.Parsed(&s.StripShortcodes, strings.Join(excerpt.CoreShortcodes(), ","), parseShortcodes),
				Usage: "comma-separated shortcode `tags` removed from excerpts, as WordPress removes its registered ones (empty or \",\": none); add your plugins' tags"},
			{Name: "query-timeout", Value: setting.Duration(&s.QueryTimeout, DefaultQueryTimeout), Check: setting.Positive(&s.QueryTimeout),
				Usage: "deadline of each database query"},
			{Name: "search-timeout", Value: setting.Duration(&s.SearchTimeout, DefaultSearchTimeout), Check: setting.Positive(&s.SearchTimeout),
				Usage: "deadline of a search's one scan of the posts' text (s=), run once a freshness bound and shared by everyone asking"},
		},
		Finish: s.checkSources,
	}
}

func (s *Settings) checkSocket() error {
	if len(s.MySQLSocket) > MaxSocketPath {
		return fmt.Errorf("%q is longer than the %d bytes a Unix socket address holds", s.MySQLSocket, MaxSocketPath)
	}
	return nil
}

// checkSources refuses two primaries, or replicas without one.
func (s *Settings) checkSources(func(string) bool) error {
	switch {
	case s.DB != "" && s.WPConfig != "":
		return errors.New("-db and -wp-config: give one or the other")
	case len(s.DBReplicas) > 0 && s.DB == "" && s.WPConfig == "":
		return errors.New("-db-replica: replicas need their primary named by -db or -wp-config")
	}
	return nil
}

func parsePostTypes(s string) ([]string, error) {
	var types []string
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if err := ValidatePostType(t); err != nil {
			return nil, err
		}
		types = append(types, t)
	}
	if len(types) == 0 {
		return nil, errors.New("no post type given")
	}
	return types, nil
}

// parseShortcodes reads -strip-shortcodes. A value of only commas and
// spaces strips none: an empty LOADMORE_STRIP_SHORTCODES reads as unset.
// A tag listed twice is kept once, as add_shortcode keeps one.
func parseShortcodes(s string) ([]string, error) {
	tags := []string{}
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t == "" || slices.Contains(tags, t) {
			continue
		}
		if err := excerpt.ValidateShortcode(t); err != nil {
			return nil, err
		}
		tags = append(tags, t)
	}
	return tags, nil
}
