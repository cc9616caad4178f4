// Package wpdb reads WordPress posts for the "load more" endpoint.
//
// It is the only package that knows SQL and the database drivers. A [Store]
// pages through the published posts of a WordPress database, newest first,
// either in MySQL/MariaDB (the usual WordPress install) or in SQLite (the
// SQLite Database Integration plugin that WordPress Playground uses, or the
// embedded demo database that [OpenDefault] creates).
//
// A [Config] comes from a URL ([ParseURL]) or from the site's own
// wp-config.php ([LoadWPConfig]). [OpenReplicated] adds read replicas of a
// MySQL database: reads go to those that keep up, in turn.
package wpdb
