// Package wpsite writes WordPress sites' tables, which the server itself
// never does: the schema a real install has ([Schema]), rows of posts,
// postmeta, terms, users and options through a [Writer], and the demo
// site the server serves when no database is configured ([Demo]). Seed
// scripts and tests fill their databases with it; package sitegen makes
// the rows of a large realistic site, which a Writer writes.
//
// It opens databases through [wpdb.OpenWritable] and imports wpdb, never
// the other way round.
package wpsite
