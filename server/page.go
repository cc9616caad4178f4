package main

import (
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"

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
	// HEAD writes no body, so it takes no room; GET takes room for the
	// page before it is rendered, so that one refused renders nothing. A
	// kept page is counted too: it can be dropped while a slow reader still
	// holds it. A page refused here may have raised posts_start (posts=N),
	// which only ever shows a returning visitor more.
	var room *unsentRoom
	defer func() { room.release() }()
	var reserve func(int) error
	if !head {
		reserve = func(n int) (err error) { room, err = lm.unsent.reserve(w, n); return err }
	}
	rendered, err := lm.renderer.Render(ctx, view, reserve)
	if err != nil {
		return err
	}
	// Compressed once per page and kept with it; HEAD gets the plain
	// headers, as gzhttp gives the JSON.
	body, coding := rendered.HTML(), ""
	if !head {
		// The page as rendered, should it pass its bound, then as sent.
		if err := room.resize(len(body)); err != nil {
			return err
		}
		if body, coding, err = lm.renderer.Encode(ctx, rendered, r.Header.Get("Accept-Encoding")); err != nil {
			return err
		}
		if err := room.resize(len(body)); err != nil {
			return err
		}
		setSessionCookie(w, r, lm.cookie, visitor, state)
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// PHP's default session cache limiter ("nocache"): the page holds
	// per-visitor state.
	h.Set("Cache-Control", "no-store, no-cache, must-revalidate")
	h.Set("Pragma", "no-cache")
	h.Set("Content-Security-Policy", lm.csp.get())
	if coding != "" {
		// gzhttp, around this handler, passes a coded body through.
		h.Set("Content-Encoding", coding)
	}
	w.Write(body)
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
	titles := lm.format.ArchiveTitles(a.archive, first)
	if a.search != nil {
		text := a.search.Text()
		titles, view.Search = lm.format.SearchTitles(text), &text
	}
	view.Archive = &listing.PageArchive{Titles: titles, Vars: queryVars(a.canonical)}
	// As on the blog's page, GET takes room before the page is rendered.
	var room *unsentRoom
	defer func() { room.release() }()
	var reserve func(int) error
	if r.Method != http.MethodHead {
		reserve = func(n int) (err error) { room, err = lm.unsent.reserve(w, n); return err }
	}
	rendered, err := lm.renderer.Render(ctx, view, reserve)
	if err != nil {
		return err
	}
	html := rendered.HTML()
	answer := publicAnswer{contentType: "text/html; charset=utf-8", body: html}
	answer.etag = publicETag(func(h io.Writer) { h.Write(html) }, "")
	w.Header().Set("Content-Security-Policy", lm.csp.get())
	if answer.answeredNotModified(w, r, lm.maxAge) {
		return nil
	}
	if r.Method != http.MethodHead {
		if err := room.resize(len(html)); err != nil {
			return err
		}
		if answer.body, answer.coding, err = lm.renderer.Encode(ctx, rendered, r.Header.Get("Accept-Encoding")); err != nil {
			return err
		}
		if err := room.resize(len(answer.body)); err != nil {
			return err
		}
	}
	writePublic(w, answer, lm.maxAge)
	return nil
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
