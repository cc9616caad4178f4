package main

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
)

// handleLoadMore answers the PHP script's one URL: the JSON endpoint when
// the query names start, the page otherwise.
func handleLoadMore(d routeDeps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, err := parseLoadMoreQuery(r.URL.RawQuery, d.config.Batch, d.config.MaxBatch)
		if !q.wantsJSON {
			if err := servePage(w, r, d); err != nil {
				writeHTMLError(w, r, d.logger, err)
			}
			return
		}
		if err == nil {
			err = servePosts(w, r, d, q)
		}
		if err != nil {
			writeJSONError(w, r, d.logger, err)
		}
	})
}

// servePosts writes the JSON array of posts and counts them into the
// session's posts_start. The count is saved before the answer is sent: if
// it cannot be, the client gets a 503 rather than posts the session does
// not know it has shown.
func servePosts(w http.ResponseWriter, r *http.Request, d routeDeps, q loadMoreQuery) error {
	ctx := r.Context()
	posts, err := d.posts.Posts(ctx, q.start, q.desired)
	if err != nil {
		return unavailable("database unavailable", err)
	}
	// Not HTML-escaped: the JSON holds "a & b" as the notes promise, and it
	// is served as application/json with nosniff, never as markup.
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(posts); err != nil {
		return err
	}
	// HEAD asks what GET would answer without the side effect.
	if r.Method != http.MethodHead {
		cookieID := d.cookie.ID(r)
		var state session.State
		if len(posts) > 0 {
			state, err = d.sessions.AddPostsStart(ctx, cookieID, len(posts))
		} else {
			state, err = d.sessions.PostsStart(ctx, cookieID)
		}
		if err != nil {
			return unavailable("session store unavailable", err)
		}
		setSessionCookie(w, r, d, cookieID, state)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.Write(body.Bytes())
	return nil
}

// servePage renders the page with the first posts_start posts, so a return
// visit shows as many as the visitor had loaded.
func servePage(w http.ResponseWriter, r *http.Request, d routeDeps) error {
	ctx := r.Context()
	cookieID := d.cookie.ID(r)
	state, err := d.sessions.PostsStart(ctx, cookieID)
	if err != nil {
		return unavailable("session store unavailable", err)
	}
	// A counter PHP or a long visit pushed very high must not make one
	// page render the whole blog.
	shown := min(max(state.PostsStart, 0), d.config.MaxPagePosts)
	posts := []wpdb.Post{}
	if shown > 0 {
		if posts, err = d.posts.Posts(ctx, 0, shown); err != nil {
			return unavailable("database unavailable", err)
		}
	}
	var page bytes.Buffer
	if err := d.page.render(&page, state.PostsStart, posts); err != nil {
		return err
	}
	setSessionCookie(w, r, d, cookieID, state)
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// PHP's default session cache limiter ("nocache"): the page holds
	// per-visitor state.
	h.Set("Cache-Control", "no-store, no-cache, must-revalidate")
	h.Set("Pragma", "no-cache")
	h.Set("Content-Security-Policy", pageCSP)
	w.Write(page.Bytes())
	return nil
}

// pageCSP allows the page its own script, styles and fetches, and nothing
// inline: a title that slipped past escaping still could not run.
const pageCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'"

func setSessionCookie(w http.ResponseWriter, r *http.Request, d routeDeps, cookieID string, state session.State) {
	if state.New || state.ID != cookieID {
		d.cookie.Set(w, r, state.ID)
	}
}
