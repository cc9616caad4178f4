// Package templates holds the page template and the mustache template that
// the server and the browser both render posts with.
package templates

import "embed"

// FS holds the templates, embedded so that one binary carries everything:
// load-more.mustache (posts, rendered by the server and the browser),
// page.html (the html/template of the page around them) and the page's
// own words in each language, languages/wploadmore-{locale}.mo, compiled
// from the .po beside them (`make pot`).
//
//go:embed *.mustache *.html languages/*.mo
var FS embed.FS
