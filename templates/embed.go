// Package templates holds the mustache templates that the server and the
// browser both render posts with.
package templates

import "embed"

// FS holds the templates, embedded so that one binary carries everything.
//
//go:embed *.mustache
var FS embed.FS
