// Package listing is the listing a visitor pages through: the site's
// posts, newest first, as readers get them (one value that is both the
// JSON record and the template's data), the cache that keeps the pages
// most visitors read, and the page that shows them, rendered with the same
// mustache template the browser uses.
//
// It knows nothing of HTTP. Package main parses requests, picks the page,
// sets the headers and maps errors to statuses; this package decides what
// a page of the listing holds and how it reads.
package listing
