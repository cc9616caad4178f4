package main

import (
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/wploadmore/wploadmore/wpdb"
)

// archiveRequest is the archive a request names, looked up: zero for the
// whole blog.
type archiveRequest struct {
	archive wpdb.Archive
	// canonical is the archive's query vars in one spelling, for the next
	// batch's link and the page's "more" form.
	canonical url.Values
}

// isArchive reports whether the request names an archive: then it leaves
// the session alone and its answer may be kept by any cache.
func (a archiveRequest) isArchive() bool { return len(a.canonical) > 0 }

// listing is what the request pages through: the archive, or nil for the
// whole blog.
func (a archiveRequest) listing() wpdb.Listing {
	if !a.isArchive() {
		return nil
	}
	return a.archive
}

// archiveTerms holds the latest terms snapshot the archives are looked up
// in; it is replaced in the background (listing.WatchTerms). It is safe for
// concurrent use.
type archiveTerms struct{ terms atomic.Pointer[wpdb.Terms] }

// newArchiveTerms starts with first; nil is a site with no terms or
// authors yet, whose date archives still work.
func newArchiveTerms(first *wpdb.Terms) *archiveTerms {
	a := &archiveTerms{}
	if first == nil {
		first = wpdb.NewTerms(nil, nil, 0, time.Now())
	}
	a.terms.Store(first)
	return a
}

func (a *archiveTerms) set(ts *wpdb.Terms) { a.terms.Store(ts) }

// resolve looks the archive vars of a request up in the snapshot, never
// in the database. It returns the zero archiveRequest when vars name none,
// a *wpdb.QueryVarError for a malformed one (400) and a
// *wpdb.NotFoundError for a category, tag, author or day the site does not
// have (404).
func (a *archiveTerms) resolve(vars url.Values) (archiveRequest, error) {
	if len(vars) == 0 {
		return archiveRequest{}, nil
	}
	q, err := wpdb.ParseArchive(vars)
	if err != nil || q.IsZero() {
		// cat=0 and year= name no archive, as in WordPress.
		return archiveRequest{}, err
	}
	archive, err := a.terms.Load().Resolve(q)
	if err != nil {
		return archiveRequest{}, err
	}
	return archiveRequest{archive: archive, canonical: archive.Values()}, nil
}

// nextLink is the Link header (RFC 8288) of a JSON answer that has posts
// after it: the next batch, after the last post sent, in the archive's
// canonical spelling. Relative to the server's root, as RFC 3986 resolves
// it against the request's URL.
func nextLink(endpoint string, a archiveRequest, start, desired int, last uint64) string {
	v := url.Values{}
	for name, values := range a.canonical {
		v[name] = values
	}
	v.Set("start", strconv.Itoa(start))
	v.Set("desiredPosts", strconv.Itoa(desired))
	v.Set("lastPost", strconv.FormatUint(last, 10))
	return "<" + endpoint + "?" + v.Encode() + `>; rel="next"`
}
