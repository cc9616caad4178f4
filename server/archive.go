package main

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/wploadmore/wploadmore/blog"
)

// archiveRequest is the archive a request names, looked up, or its
// search within one: zero for the whole blog.
type archiveRequest struct {
	archive blog.Archive
	search  *blog.Search // nil when the request searches for nothing
	// canonical is the archive's query vars in one spelling, for the next
	// batch's link and the page's "more" form.
	canonical url.Values
	// terms is the snapshot the archive was looked up in, which its
	// page's titles read the registry's labels from; nil for none.
	terms *blog.Terms
}

// isArchive reports whether the request names an archive or a search:
// then it leaves the session alone and its answer may be kept by any
// cache.
func (a archiveRequest) isArchive() bool { return len(a.canonical) > 0 }

// listing is what the request pages through: the search, the archive, or
// nil for the whole blog.
func (a archiveRequest) listing() blog.Listing {
	switch {
	case a.search != nil:
		return *a.search
	case !a.isArchive():
		return nil
	}
	return a.archive
}

// noPosts is the 404 of a date archive with no posts (see
// blog.Archive.NoPosts); nil for any other listing, and for a search,
// which WordPress never answers with a 404.
func (a archiveRequest) noPosts() error {
	if a.search != nil || !a.isArchive() {
		return nil
	}
	return a.archive.NoPosts()
}

// archiveTerms holds the latest terms snapshot the archives are looked up
// in; it is replaced in the background (listing.WatchTerms). It is safe for
// concurrent use.
type archiveTerms struct{ terms atomic.Pointer[blog.Terms] }

// newArchiveTerms starts with first; nil is a site with no terms or
// authors yet, whose date archives still work.
func newArchiveTerms(first *blog.Terms) *archiveTerms {
	a := &archiveTerms{}
	if first == nil {
		first = blog.NewTerms(nil, nil, 0, time.Now())
	}
	a.terms.Store(first)
	return a
}

func (a *archiveTerms) set(ts *blog.Terms) { a.terms.Store(ts) }

// get returns the snapshot in use.
func (a *archiveTerms) get() *blog.Terms { return a.terms.Load() }

// resolve looks the archive vars of a request up in the snapshot, never
// in the database. It returns the zero archiveRequest when vars name none,
// a *blog.QueryVarError for a malformed one (400) and a
// *blog.NotFoundError for a category, tag, author or day the site does not
// have (404).
func (a *archiveTerms) resolve(vars url.Values) (archiveRequest, error) {
	if len(vars) == 0 {
		return archiveRequest{}, nil
	}
	ts := a.terms.Load()
	q, err := blog.ParseArchiveIn(vars, ts.Registry())
	if err != nil || q.IsZero() {
		// cat=0 and year= name no archive, as in WordPress.
		return archiveRequest{}, err
	}
	archive, err := ts.Resolve(q)
	if err != nil {
		return archiveRequest{}, err
	}
	return archiveRequest{archive: archive, canonical: archive.Values(), terms: ts}, nil
}

// resolveSearch is resolve, for a request searching for s with stopwords:
// a search within the archive its vars name, or, when the site does not
// have its category, tag or author, within nothing, as WordPress lists
// nothing for it with no 404. A malformed archive var is still a
// *blog.QueryVarError, and a date past the calendar (monthnum=13) a
// *blog.NotFoundError, a 404 as WordPress's query parser makes it.
func (a *archiveTerms) resolveSearch(vars url.Values, s string, stopwords []string) (archiveRequest, error) {
	q := blog.ParseSearch(s, stopwords)
	found, err := a.resolve(vars)
	var missing *blog.NotFoundError
	switch {
	case errors.As(err, &missing) && (missing.Term || slices.Contains([]string{"category", "tag", "author"}, missing.Kind)):
		q = q.WithinNothing()
	case err != nil:
		return archiveRequest{}, err
	default:
		q = q.Within(found.archive)
	}
	q = q.ForRegistry(a.terms.Load().Registry())
	return archiveRequest{archive: q.Archive(), search: &q, canonical: q.Values()}, nil
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
