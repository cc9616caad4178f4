// Package wpdb reads WordPress posts for the "load more" endpoint: the
// MariaDB and SQLite store of package blog's listings. It is the only
// package that knows the database drivers and the SQL the server reads
// with; package wpsite writes a site's tables through [OpenWritable].
//
// A [Store] pages through a site's published posts, newest first, in
// MySQL/MariaDB or in SQLite (the plugin WordPress Playground uses, or the
// demo database of package wpsite); [OpenReplicated] adds read replicas.
// A [Config] comes from a URL ([ParseURL]) or wp-config.php ([LoadWPConfig]).
// Archives ([blog.ParseArchive], [Store.Terms]) and searches ([Store.Rank])
// are read by WordPress's own query vars. An excerpt is shaped by package
// [excerpt] from a bounded start of the content, so a long post is read
// whole only when its start cannot decide.
package wpdb
