package main

import "github.com/wploadmore/wploadmore/server/listing"

// A page is compressed once for each coding asked for, and kept compressed
// with it while the renderer keeps the page (listing.Renderer.Compressed),
// so that a repeat costs a copy in either form; this file only chooses
// the coding.

// pageCodings are the codings a page is offered in, zstd first: it is as
// small and faster to make; chooseEncoding takes the first on a tie.
var pageCodings = []encodedBody{{coding: "zstd"}, {coding: "gzip"}}

// encodePage returns the page's body as acceptEncoding welcomes it most,
// and its Content-Encoding ("" for the HTML as it is). A page under
// dynamicMinSize is sent as it is, as gzhttp would.
func encodePage(r *listing.Renderer, page *listing.RenderedPage, acceptEncoding string) ([]byte, string) {
	html := page.HTML()
	if len(html) < dynamicMinSize {
		return html, ""
	}
	i := chooseEncoding(acceptEncoding, pageCodings)
	if i < 0 {
		return html, ""
	}
	coding := pageCodings[i].coding
	body := r.Compressed(page, coding)
	if body == nil {
		return html, ""
	}
	return body, coding
}
