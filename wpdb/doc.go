// Package wpdb reads WordPress posts for the "load more" endpoint.
//
// It is the only package that knows SQL and the database drivers. A [Store]
// pages through the published posts of a WordPress database, newest first,
// either in MySQL/MariaDB (the usual WordPress install) or in SQLite (the
// SQLite Database Integration plugin that WordPress Playground uses, or the
// embedded demo database that [CreateDefault] creates).
//
// A [Config] comes from a URL ([ParseURL]) or from the site's own
// wp-config.php ([LoadWPConfig]). [OpenReplicated] adds read replicas of a
// MySQL database: reads go to those that keep up, in turn.
//
// The same pages are read for an archive, by WordPress's own query vars
// ([ParseArchive]), looked up in a snapshot of the site's terms and
// authors ([Store.Terms]), with [Store.PostsIn] and [Store.PostsAfterIn].
//
// Each post's excerpt is shaped by package [excerpt] from a bounded start
// of its content; only the posts whose start does not decide their excerpt
// have their whole content read, in one more query.
package wpdb
