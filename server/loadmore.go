package main

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/wploadmore/wploadmore/server/compress"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/session"
)

// handleLoadMore answers the PHP script's one URL: the JSON endpoint when
// the query names start, as PHP's isset($_GET['start']) decided, the page
// otherwise.
func handleLoadMore(endpoint, page http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if asksForJSON(r.URL.RawQuery) {
			endpoint.ServeHTTP(w, r)
			return
		}
		page.ServeHTTP(w, r)
	})
}

// servePosts writes the JSON array of posts and counts them into the
// session's posts_start. The count is saved before the answer is sent: if
// it cannot be, the client gets a 503 rather than posts the session does
// not know it has shown. For the same reason the answer, compressed whole,
// takes its room among the answers being written (unsent) before it is
// counted.
//
// A request naming an archive (category_name, tag, year…) is answered by
// archiveAnswers.posts instead, with no session. Either answer carries a
// Link to the next batch while posts follow: one post more than asked for
// is read to know it, and never sent.
func servePosts(posts viewSource, archives *archiveAnswers, sessions sessionStore, cookie session.Cookie, unsent *unsentAnswers, coder *compress.Coder, batch, maxBatch int) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		q, err := parseLoadMoreQuery(r.URL.RawQuery, batch, maxBatch)
		if err != nil {
			return err
		}
		archive, err := archives.terms.resolve(r.URL.RawQuery)
		if err != nil {
			return err
		}
		if archive.isArchive() {
			return archives.posts(w, r, archive, q)
		}
		ctx := r.Context()
		var found []listing.Post
		if q.lastPost > 0 {
			found, err = posts.PostsAfter(ctx, q.lastPost, q.start, q.desired+1)
		} else {
			found, err = posts.Posts(ctx, q.start, q.desired+1)
		}
		if err != nil {
			return err
		}
		found, link := nextBatch(found, archives.endpoint, archive, q)
		visitor := cookie.Visitor(r)
		h := w.Header()
		if link != "" {
			h.Set("Link", link)
		}
		if r.Method == http.MethodHead {
			// HEAD asks what GET would answer without the side effect: no
			// session created or counted, no cookie. The read still
			// answers 503 when the store is down, as GET would.
			if _, err := sessions.Peek(ctx, visitor); err != nil {
				return err
			}
			h.Set("Content-Type", "application/json; charset=utf-8")
			h.Set("Cache-Control", "no-store")
			listing.WriteJSON(w, found) // its length, as GET's plain answer
			return nil
		}
		size := listing.JSONSize(found)
		room, err := unsent.reserve(w, size)
		if err != nil {
			return err
		}
		defer room.release()
		body, coding, err := encodeJSON(ctx, coder, found, r.Header.Get("Accept-Encoding"))
		if err != nil {
			return err
		}
		room.shrink(len(body))
		state, err := sessions.Visit(ctx, visitor, len(found))
		if err != nil {
			return err
		}
		setSessionCookie(w, r, cookie, visitor, state)
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		if coding != "" {
			// gzhttp, around this handler, passes a coded body through.
			h.Set("Content-Encoding", coding)
		}
		w.Write(body) // a failed write is the client gone: nothing to answer
		return nil
	}
}

// nextBatch cuts found, read one post longer than asked, to the batch, and
// returns the Link to the batch after it: "" at the end of the listing.
func nextBatch(found []listing.Post, endpoint string, a archiveRequest, q loadMoreQuery) ([]listing.Post, string) {
	if len(found) <= q.desired {
		return found, ""
	}
	found = found[:q.desired]
	return found, nextLink(endpoint, a, q.start+len(found), q.desired, found[len(found)-1].ID)
}

// servePage renders the page with the first posts_start posts, so a return
// visit shows as many as the visitor had loaded, but never more than
// maxPagePosts: a counter PHP or a long visit pushed very high must not make
// one page render the whole blog.
//
// With posts=N (the "more" link, which works without JavaScript) it renders
// N posts instead and raises posts_start to the number shown if that is
// higher: a reload or the back button then shows the same page, and the
// session counts what the visitor saw, as the JSON endpoint counts it.
//
// An archive's page (category_name=news…) is answered by
// archiveAnswers.page instead, with no session.
func servePage(posts viewSource, archives *archiveAnswers, sessions sessionStore, cookie session.Cookie, unsent *unsentAnswers,
	page *listing.Renderer, csp *pagePolicy, batch, maxPagePosts int) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		asked, err := parsePagePosts(r.URL.RawQuery)
		if err != nil {
			return err
		}
		archive, err := archives.terms.resolve(r.URL.RawQuery)
		if err != nil {
			return err
		}
		if archive.isArchive() {
			return archives.page(w, r, archive, page, csp, archivePageSize(asked, batch, maxPagePosts), maxPagePosts)
		}
		ctx := r.Context()
		visitor := cookie.Visitor(r)
		head := r.Method == http.MethodHead
		// HEAD creates, refreshes and counts nothing, and so sends no
		// cookie: it renders what GET would show from the session as it is.
		var state session.State
		if head {
			state, err = sessions.Peek(ctx, visitor)
		} else {
			state, err = sessions.Visit(ctx, visitor, 0)
		}
		if err != nil {
			return err
		}
		want := state.PostsStart
		if asked > 0 {
			want = asked
		}
		view, err := pageOfPosts(ctx, posts, want, maxPagePosts)
		if err != nil {
			return err
		}
		// Not atomic with the read above: a JSON request of the same
		// visitor in between makes the counter overshoot by its posts,
		// which only ever shows a returning visitor more.
		if raise := len(view.Posts) - state.PostsStart; asked > 0 && raise > 0 && !head {
			// A session left unstored past the creation budget is raised
			// through the companion it was just given.
			raised, err := sessions.Visit(ctx, state.InRequest(), raise)
			if err != nil {
				return err
			}
			raised.New = raised.New || state.New
			state = raised
		}
		view.PostsStart = state.PostsStart
		rendered, err := page.Render(ctx, view)
		if err != nil {
			return err
		}
		// Compressed once per page and kept with it (Renderer.Encode); HEAD
		// gets the plain headers, as gzhttp gives the JSON.
		body, coding := rendered.HTML(), ""
		if !head {
			if body, coding, err = page.Encode(ctx, rendered, r.Header.Get("Accept-Encoding")); err != nil {
				return err
			}
			// Counted even when the renderer keeps the page: a kept page
			// can be dropped while a slow reader still holds it. A page
			// refused here may have raised posts_start (posts=N), which
			// only ever shows a returning visitor more.
			room, err := unsent.reserve(w, len(body))
			if err != nil {
				return err
			}
			defer room.release()
			setSessionCookie(w, r, cookie, visitor, state)
		}
		setPageHeaders(w.Header(), csp, coding)
		w.Write(body)
		return nil
	}
}

// setPageHeaders sets the headers of the main listing's page, coded in
// coding ("" for none).
func setPageHeaders(h http.Header, csp *pagePolicy, coding string) {
	h.Set("Content-Type", "text/html; charset=utf-8")
	// PHP's default session cache limiter ("nocache"): the page holds
	// per-visitor state.
	h.Set("Cache-Control", "no-store, no-cache, must-revalidate")
	h.Set("Pragma", "no-cache")
	h.Set("Content-Security-Policy", csp.get())
	if coding != "" {
		// gzhttp, around this handler, passes a coded body through.
		h.Set("Content-Encoding", coding)
	}
}

// pageOfPosts reads the listing's first want posts for the page, at most
// maxPagePosts, and the post after them, which its "more" link lands on.
func pageOfPosts(ctx context.Context, posts viewSource, want, maxPagePosts int) (listing.PageView, error) {
	shown := min(max(want, 0), maxPagePosts)
	// One post more than shown tells whether there is more to link to,
	// and which post the link lands on.
	found, err := posts.Posts(ctx, 0, shown+1)
	if err != nil {
		return listing.PageView{}, err
	}
	view := listing.PageView{AtCap: shown == maxPagePosts, MaxPosts: maxPagePosts}
	if len(found) > shown {
		view.Next = &found[shown]
		found = found[:shown]
	}
	view.Posts = found
	return view, nil
}

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
