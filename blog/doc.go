// Package blog holds what a listing of a WordPress blog is made of, with
// no database behind it: a [Post], a [Page] of a [Listing] (the whole blog,
// an [Archive] or a [Search]), the site's [Options] and [Language], the
// [Registry] of its post types and taxonomies, the [Terms] snapshot
// archives are looked up in, a search's [Ranking], and the errors of a
// query that names what the site does not have.
//
// Archives and searches are read from WordPress's own query vars, with
// WP_Query's meaning. A store (package wpdb) reads their pages, each kind
// in a method of its [PageReader].
package blog
