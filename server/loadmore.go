package main

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/server/compress"
	"github.com/wploadmore/wploadmore/server/cors"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/server/proxy"
	"github.com/wploadmore/wploadmore/session"
)

// loadMore answers the PHP script's one URL: the JSON endpoint when the
// query names start, as PHP's isset($_GET['start']) decided, the page
// otherwise; each for the whole blog, counted in the visitor's session, or
// for an archive, public and the same for every reader.
type loadMore struct {
	// pages are read through: listing.Sticky, listing.Cache or
	// listing.Direct. Their errors wrap wpdb.ErrUnavailable when the
	// database failed and listing.ErrBusy when the query was not admitted.
	pages    listing.Pages
	terms    *archiveTerms
	sessions sessionStore
	cookie   session.Cookie
	unsent   *unsentAnswers // one room for the page and the JSON
	coder    *compress.Coder
	renderer *listing.Renderer
	format   *listing.Format // for an archive page's titles
	csp      *pagePolicy
	home     *cors.Home // which other origin may read the JSON
	words    *siteWords // the page's own words
	failures *slog.Logger
	endpoint string        // the JSON endpoint's path, for the next batch's Link
	maxAge   time.Duration // how long any cache may keep a public answer
	trusted  proxy.Trusted // whose X-Forwarded-For names a search's client

	batch, maxBatch, maxPagePosts int
}

// ServeHTTP reads the request once: its query string into a loadMoreQuery
// and its archive, looked up. The answer is public when it names an
// archive: an archive's state is its URL, so no session is read or
// written and no cookie set, and any cache may keep it for the freshness
// bound. The blog's answers stay per visitor, as PHP's.
func (lm *loadMore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r = sessionCookiesOnly(r, lm.cookie.Name)
	q, err := parseLoadMoreQuery(r.URL.RawQuery, lm.batch, lm.maxBatch)
	if q.wantsJSON {
		// Before any answer, errors too: the widget on the site's pages
		// reads why a batch failed as it reads a batch.
		lm.home.Allow(w, r)
	}
	if reg := lm.terms.terms.Load().Registry(); err == nil && reg != nil {
		q.archive, err = reg.ReadVars(r.URL.RawQuery, q.archive)
	}
	var a archiveRequest
	switch {
	case err == nil && q.search != nil:
		a, err = lm.terms.resolveSearch(q.archive, *q.search, lm.format.Stopwords())
		r = r.WithContext(listing.WithClient(r.Context(), searchClient(r, lm.trusted)))
	case err == nil:
		a, err = lm.terms.resolve(q.archive)
	}
	if err == nil {
		err = lm.answer(w, r, q, a)
	}
	switch {
	case err == nil:
	case q.wantsJSON:
		writeJSONError(w, r, lm.failures, err)
	default:
		writeHTMLError(w, r, lm.failures, err)
	}
}

// answer decides, once, what the request gets: the JSON endpoint's batch
// or the page, public for an archive or counted in the visitor's session
// for the blog.
func (lm *loadMore) answer(w http.ResponseWriter, r *http.Request, q loadMoreQuery, a archiveRequest) error {
	public := a.isArchive()
	if public {
		// An archive's head may be served a little stale through a flood:
		// the answer then says how old it is.
		ctx, served := listing.WithServedAge(r.Context())
		r, w = r.WithContext(ctx), served.Writer(w)
	}
	if !q.wantsJSON {
		if public {
			return lm.servePublicPage(w, r, q, a)
		}
		return lm.serveCountedPage(w, r, q)
	}
	found, link, err := lm.readBatch(r.Context(), q, a)
	if err != nil {
		return err
	}
	if public {
		return lm.writePublicJSON(w, r, found, link)
	}
	return lm.writeCountedJSON(w, r, found, link)
}

// firstPosts reads the first shown posts of a's listing for a page, and
// the post after them, which its "more" link lands on. A date archive
// with no posts is a 404, as WordPress answers it.
func (lm *loadMore) firstPosts(ctx context.Context, a archiveRequest, shown int) (listing.PageView, error) {
	// One post more than shown tells whether there is more to link to.
	found, err := lm.pages.Posts(ctx, blog.Page{In: a.listing(), Limit: shown + 1})
	if err != nil {
		return listing.PageView{}, err
	}
	if len(found) == 0 {
		if err := a.noPosts(); err != nil {
			return listing.PageView{}, err
		}
	}
	// The page is titled and worded by the site the posts were formatted
	// for, as last set.
	view := listing.PageView{AtCap: shown == lm.maxPagePosts, MaxPosts: lm.maxPagePosts, Site: lm.format.Site(),
		Words: lm.words.words()}
	if len(found) > shown {
		view.Next = &found[shown]
		found = found[:shown]
	}
	view.Posts = found
	return view, nil
}

// setSessionCookie sends the cookie when the store issued a new id, as PHP
// does, and only then; and the companion cookie when the store sent one
// the visitor does not have, or removes the visitor's when the session is
// stored (or the one sent was refused).
func setSessionCookie(w http.ResponseWriter, r *http.Request, cookie session.Cookie, visitor session.Visitor, state session.State) {
	if state.New || state.ID != visitor.ID {
		cookie.Set(w, r, state.ID)
	}
	if state.Carry != visitor.Carried {
		cookie.SetCarried(w, r, state.Carry)
	}
}
