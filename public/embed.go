// Package public holds the browser side of the widget: its script, its styles,
// its icon and the front-end packages that `make assets` copies into vendor/.
package public

import "embed"

// FS holds the static files served under the page's folder.
//
//go:embed *.js *.css *.svg vendor
var FS embed.FS
