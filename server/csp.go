package main

import (
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/wploadmore/wploadmore/server/listing"
)

// pageCSP allows the page its own script, styles and fetches, and nothing
// inline: a title that slipped past escaping still could not run. Images
// may come from imageOrigin too, the origin of the site's uploads, where
// featured images live (none when it is ""). Only the site itself may
// frame it: "More posts" is a button a framing page could trick a visitor
// into clicking. frame-ancestors has no default-src fallback, so it is
// named.
func pageCSP(imageOrigin string) string {
	images := "'self' data:"
	if imageOrigin != "" {
		images += " " + imageOrigin
	}
	return "default-src 'self'; script-src 'self'; style-src 'self'; img-src " + images + "; " +
		"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'"
}

// pagePolicy is the page's Content-Security-Policy for the site as last
// read: the origin of its uploads, where featured images live, changes
// with the site's options. It is safe for concurrent use.
type pagePolicy struct{ csp atomic.Pointer[string] }

func newPagePolicy(site listing.Site) *pagePolicy {
	p := &pagePolicy{}
	p.set(site)
	return p
}

// set makes the policy allow site's images; made once per change, not
// once per page.
func (p *pagePolicy) set(site listing.Site) {
	csp := pageCSP(urlOrigin(site.Images.UploadsURL))
	p.csp.Store(&csp)
}

func (p *pagePolicy) get() string { return *p.csp.Load() }

// urlOrigin is the scheme://host[:port] of an absolute http(s) URL, as a
// CSP source; "" for anything else.
func urlOrigin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.ContainsAny(u.Host, " ;,'") {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
