// Package templates holds the page template and the mustache template that
// the server and the browser both render posts with.
package templates

import "embed"

// FS holds the templates, embedded so that one binary carries everything:
// load-more.mustache (posts, rendered by the server and the browser) and
// page.html (the html/template of the page around them).
//
//go:embed *.mustache *.html
var FS embed.FS
