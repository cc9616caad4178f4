package main

import (
	"context"
	"io"
	"net/http"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/server/compress"
	"github.com/wploadmore/wploadmore/server/listing"
)

// readBatch reads the JSON endpoint's batch of a's listing, and the Link to
// the next batch while posts follow: one post more than asked for is read
// to know it, and never sent.
func (lm *loadMore) readBatch(ctx context.Context, q loadMoreQuery, a archiveRequest) ([]listing.Post, string, error) {
	found, err := lm.pages.Posts(ctx, blog.Page{In: a.listing(), LastPost: q.lastPost, Offset: q.start, Limit: q.desired + 1})
	if err != nil {
		return nil, "", err
	}
	if len(found) == 0 && q.start == 0 && q.lastPost == 0 {
		// The archive's first batch: a date with no posts is a 404, as on
		// the page. A later batch past the end is an empty one, as ever.
		if err := a.noPosts(); err != nil {
			return nil, "", err
		}
	}
	if len(found) <= q.desired {
		return found, "", nil
	}
	found = found[:q.desired]
	return found, nextLink(lm.endpoint, a, q.start+len(found), q.desired, found[len(found)-1].ID), nil
}

// writeCountedJSON writes the blog's batch and counts it into the
// session's posts_start. The count is saved before the answer is sent: if
// it cannot be, the client gets a 503 rather than posts the session does
// not know it has shown. For the same reason the answer, compressed whole,
// takes its room among the answers being written before it is counted.
func (lm *loadMore) writeCountedJSON(w http.ResponseWriter, r *http.Request, found []listing.Post, link string) error {
	ctx := r.Context()
	visitor := lm.cookie.Visitor(r)
	h := w.Header()
	if link != "" {
		h.Set("Link", link)
	}
	if r.Method == http.MethodHead {
		// HEAD asks what GET would answer without the side effect: no
		// session created or counted, no cookie. The read still answers
		// 503 when the store is down, as GET would.
		if _, err := lm.sessions.Peek(ctx, visitor); err != nil {
			return err
		}
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		listing.WriteJSON(w, found) // its length, as GET's plain answer
		return nil
	}
	room, err := lm.unsent.reserve(w, listing.JSONSize(found))
	if err != nil {
		return err
	}
	defer room.release()
	body, coding, err := encodeJSON(ctx, lm.coder, found, r.Header.Get("Accept-Encoding"))
	if err != nil {
		return err
	}
	room.shrink(len(body))
	state, err := lm.sessions.Visit(ctx, visitor, len(found))
	if err != nil {
		return err
	}
	setSessionCookie(w, r, lm.cookie, visitor, state)
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	// gzhttp, around this handler, passes a coded body through.
	compress.SetBody(r, h, coding, body)
	w.Write(body) // a failed write is the client gone: nothing to answer
	return nil
}

// writePublicJSON writes an archive's batch, the same for every reader,
// tagged by the plain body and its Link, which it hashes without building
// it: the body is built once, as it is sent.
func (lm *loadMore) writePublicJSON(w http.ResponseWriter, r *http.Request, found []listing.Post, link string) error {
	answer := publicAnswer{contentType: "application/json; charset=utf-8", link: link}
	answer.etag = publicETag(func(h io.Writer) { listing.WriteJSON(h, found) }, link)
	if answer.answeredNotModified(w, r, lm.maxAge) {
		return nil
	}
	if r.Method == http.MethodHead {
		answer.body = listing.AppendJSON(nil, found)
		writePublic(w, r, answer, lm.maxAge)
		return nil
	}
	room, err := lm.unsent.reserve(w, listing.JSONSize(found))
	if err != nil {
		return err
	}
	defer room.release()
	answer.body, answer.coding, err = encodeJSON(r.Context(), lm.coder, found, r.Header.Get("Accept-Encoding"))
	if err != nil {
		return err
	}
	room.shrink(len(answer.body))
	writePublic(w, r, answer, lm.maxAge)
	return nil
}
