package main

import (
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"

	"github.com/wploadmore/wploadmore/server/compress"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/session"
)

// serveCountedPage renders the blog's page with the first posts_start
// posts, so a return visit shows as many as the visitor had loaded, but
// never more than maxPagePosts: a counter PHP or a long visit pushed very
// high must not make one page render the whole blog. With posts=N (the
// "more" link, which works without JavaScript) it renders N posts and
// raises posts_start to the number shown if that is higher, so a reload
// or the back button shows the same page.
func (lm *loadMore) serveCountedPage(w http.ResponseWriter, r *http.Request, q loadMoreQuery) error {
	ctx := r.Context()
	visitor := lm.cookie.Visitor(r)
	head := r.Method == http.MethodHead
	// HEAD creates, refreshes and counts nothing, and so sends no cookie:
	// it renders what GET would show from the session as it is.
	var state session.State
	var err error
	if head {
		state, err = lm.sessions.Peek(ctx, visitor)
	} else {
		state, err = lm.sessions.Visit(ctx, visitor, 0)
	}
	if err != nil {
		return err
	}
	want := state.PostsStart
	if q.posts > 0 {
		want = q.posts
	}
	view, err := lm.firstPosts(ctx, archiveRequest{}, min(max(want, 0), lm.maxPagePosts))
	if err != nil {
		return err
	}
	// Not atomic with the read above: a JSON request of the same visitor
	// in between makes the counter overshoot by its posts, which only ever
	// shows a returning visitor more.
	if raise := len(view.Posts) - state.PostsStart; q.posts > 0 && raise > 0 && !head {
		// A session left unstored past the creation budget is raised
		// through the companion it was just given.
		raised, err := lm.sessions.Visit(ctx, state.InRequest(), raise)
		if err != nil {
			return err
		}
		raised.New = raised.New || state.New
		state = raised
	}
	view.PostsStart = state.PostsStart
	// A page refused for room may have raised posts_start (posts=N), which
	// only ever shows a returning visitor more.
	page, err := lm.renderPage(w, r, view, nil)
	defer page.room.release()
	if err != nil {
		return err
	}
	if !head {
		setSessionCookie(w, r, lm.cookie, visitor, state)
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// PHP's default session cache limiter ("nocache"): the page holds
	// per-visitor state.
	h.Set("Cache-Control", "no-store, no-cache, must-revalidate")
	h.Set("Pragma", "no-cache")
	h.Set("Content-Security-Policy", lm.csp.get())
	compress.SetBody(r, h, page.coding, page.body)
	w.Write(page.body)
	return nil
}

// servePublicPage renders an archive's page, headed and titled as
// WordPress heads and titles it: posts=N or one batch, at most
// maxPagePosts, as there is no posts_start to start from. The badge counts
// the posts shown.
func (lm *loadMore) servePublicPage(w http.ResponseWriter, r *http.Request, q loadMoreQuery, a archiveRequest) error {
	ctx := r.Context()
	shown := q.posts
	if shown == 0 {
		shown = lm.batch
	}
	view, err := lm.firstPosts(ctx, a, min(shown, lm.maxPagePosts))
	if err != nil {
		return err
	}
	view.PostsStart = len(view.Posts)
	var first *listing.Post
	if len(view.Posts) > 0 {
		first = &view.Posts[0]
	}
	titles := lm.format.TypeArchiveTitles(a.archive, first, listing.ArchiveLabelsOf(a.archive, a.terms))
	if a.search != nil {
		text := a.search.Text()
		titles, view.Search = lm.format.SearchTitles(text), &text
	}
	view.Archive = &listing.PageArchive{Titles: titles, Vars: queryVars(a.canonical)}
	var answer publicAnswer
	page, err := lm.renderPage(w, r, view, func(html []byte) bool {
		answer = publicAnswer{contentType: "text/html; charset=utf-8", body: html}
		answer.etag = publicETag(func(h io.Writer) { h.Write(html) }, "")
		w.Header().Set("Content-Security-Policy", lm.csp.get())
		return answer.answeredNotModified(w, r, lm.maxAge)
	})
	defer page.room.release()
	if err != nil || page.body == nil {
		return err
	}
	answer.body, answer.coding = page.body, page.coding
	writePublic(w, r, answer, lm.maxAge)
	return nil
}

// sentPage is a page as one request is sent it.
type sentPage struct {
	body   []byte      // nil when the request was answered otherwise (a 304)
	coding string      // body's Content-Encoding, "" for the HTML
	room   *unsentRoom // the room body holds until it is written; nil for none
}

// renderPage renders view and encodes it as r's Accept-Encoding welcomes
// it most, for both pages. GET takes room for the page before it is
// rendered, so that one refused renders nothing (a kept page is counted
// too: it can be dropped while a slow reader still holds it), then fits
// it to the page as rendered, should it pass its bound, and to the body as
// sent. HEAD writes no body, so it takes no room, and gets the plain
// HTML, as gzhttp gives the JSON. answered, when not nil, is given the
// HTML first, before anything is compressed, and reports whether it
// answered r itself. The caller releases the room once the body is
// written, whatever the error.
func (lm *loadMore) renderPage(w http.ResponseWriter, r *http.Request, view listing.PageView, answered func(html []byte) bool) (sentPage, error) {
	var page sentPage
	var reserve func(int) error
	head := r.Method == http.MethodHead
	if !head {
		reserve = func(n int) (err error) { page.room, err = lm.unsent.reserve(w, n); return err }
	}
	rendered, err := lm.renderer.Render(r.Context(), view, reserve)
	if err != nil {
		return page, err
	}
	html := rendered.HTML()
	if answered != nil && answered(html) {
		return page, nil
	}
	if head {
		page.body = html
		return page, nil
	}
	if err := page.room.resize(len(html)); err != nil {
		return page, err
	}
	// Compressed once per page and kept with it.
	if page.body, page.coding, err = lm.renderer.Encode(r.Context(), rendered, r.Header.Get("Accept-Encoding")); err != nil {
		return page, err
	}
	return page, page.room.resize(len(page.body))
}

// queryVars lists v's vars by name, as the page's form carries them.
func queryVars(v url.Values) []listing.QueryVar {
	var out []listing.QueryVar
	for _, name := range slices.Sorted(maps.Keys(v)) {
		for _, value := range v[name] {
			out = append(out, listing.QueryVar{Name: name, Value: value})
		}
	}
	return out
}
