package main

import (
	"net/http"
	"net/url"
	"strings"

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
// not know it has shown.
func servePosts(posts viewSource, sessions sessionStore, cookie session.Cookie, batch, maxBatch int) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		q, err := parseLoadMoreQuery(r.URL.RawQuery, batch, maxBatch)
		if err != nil {
			return err
		}
		ctx := r.Context()
		var found []postView
		if q.lastPost > 0 {
			found, err = posts.ViewsAfter(ctx, q.lastPost, q.start, q.desired)
		} else {
			found, err = posts.Views(ctx, q.start, q.desired)
		}
		if err != nil {
			return err
		}
		if r.Method == http.MethodHead {
			// HEAD asks what GET would answer without the side effect: no
			// session created or counted, no cookie. The read still
			// answers 503 when the store is down, as GET would.
			if _, err := sessions.PeekPostsStart(ctx, cookie.ID(r)); err != nil {
				return err
			}
		} else {
			cookieID := cookie.ID(r)
			var state session.State
			if len(found) > 0 {
				state, err = sessions.AddPostsStart(ctx, cookieID, len(found))
			} else {
				state, err = sessions.PostsStart(ctx, cookieID)
			}
			if err != nil {
				return err
			}
			setSessionCookie(w, r, cookie, cookieID, state)
		}
		h := w.Header()
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		writeJSONViews(w, found) // a failed write is the client gone: nothing to answer
		return nil
	}
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
func servePage(posts viewSource, sessions sessionStore, cookie session.Cookie, page *pageRenderer, maxPagePosts int) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		asked, err := parsePagePosts(r.URL.RawQuery)
		if err != nil {
			return err
		}
		ctx := r.Context()
		cookieID := cookie.ID(r)
		head := r.Method == http.MethodHead
		// HEAD creates, refreshes and counts nothing, and so sends no
		// cookie: it renders what GET would show from the session as it is.
		lookup := sessions.PostsStart
		if head {
			lookup = sessions.PeekPostsStart
		}
		state, err := lookup(ctx, cookieID)
		if err != nil {
			return err
		}
		want := state.PostsStart
		if asked > 0 {
			want = asked
		}
		shown := min(max(want, 0), maxPagePosts)
		// One post more than shown tells whether there is more to link to,
		// and which post the link lands on.
		found, err := posts.Views(ctx, 0, shown+1)
		if err != nil {
			return err
		}
		view := pageView{AtCap: shown == maxPagePosts, MaxPosts: maxPagePosts}
		if len(found) > shown {
			view.Next = &found[shown]
			found = found[:shown]
		}
		view.Posts = found
		// Not atomic with the read above: a JSON request of the same
		// visitor in between makes the counter overshoot by its posts,
		// which only ever shows a returning visitor more.
		if raise := len(found) - state.PostsStart; asked > 0 && raise > 0 && !head {
			raised, err := sessions.AddPostsStart(ctx, state.ID, raise)
			if err != nil {
				return err
			}
			raised.New = raised.New || state.New
			state = raised
		}
		view.PostsStart = state.PostsStart
		rendered, err := page.renderPage(ctx, view)
		if err != nil {
			return err
		}
		// Compressed once per page and kept with it (pagecompress.go); HEAD
		// gets the plain headers, as gzhttp gives the JSON.
		body, coding := rendered.html, ""
		if !head {
			body, coding = page.encode(rendered, r.Header.Get("Accept-Encoding"))
		}
		if !head {
			setSessionCookie(w, r, cookie, cookieID, state)
		}
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		// PHP's default session cache limiter ("nocache"): the page holds
		// per-visitor state.
		h.Set("Cache-Control", "no-store, no-cache, must-revalidate")
		h.Set("Pragma", "no-cache")
		h.Set("Content-Security-Policy", page.format.site.Load().CSP)
		if coding != "" {
			// gzhttp, around this handler, passes a coded body through.
			h.Set("Content-Encoding", coding)
		}
		w.Write(body)
		return nil
	}
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
// does, and only then.
func setSessionCookie(w http.ResponseWriter, r *http.Request, cookie session.Cookie, cookieID string, state session.State) {
	if state.New || state.ID != cookieID {
		cookie.Set(w, r, state.ID)
	}
}
