package main

import (
	"crypto/sha256"
	"encoding/base64"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wploadmore/wploadmore/server/compress"
	"github.com/wploadmore/wploadmore/server/listing"
)

// An archive's answers, the JSON and the page, hold nothing of the
// visitor: no session is read or written and no cookie set, since an
// archive's state is its URL (start and lastPost, or the page's posts).
// So any cache may keep them for the freshness bound, and revalidate them
// by a strong ETag; the main listing's answers stay per visitor, as PHP's.

// archiveAnswers answers the requests that name an archive.
type archiveAnswers struct {
	views    archiveViews
	terms    *archiveTerms
	format   *listing.Format // for the page's titles
	endpoint string          // the JSON endpoint's path, for the next batch's Link
	maxAge   time.Duration   // the freshness bound, how long any cache may keep an answer
	unsent   *unsentAnswers  // shared with the listing's answers
	coder    *compress.Coder
}

// posts answers an archive's batch. It reads and writes no
// session and sets no cookie: an archive's state is its URL. So its answer
// is the same for every reader, and any cache may keep it for the
// freshness bound and revalidate it by its ETag.
func (aa *archiveAnswers) posts(w http.ResponseWriter, r *http.Request, a archiveRequest, q loadMoreQuery) error {
	ctx := r.Context()
	var found []listing.Post
	var err error
	if q.lastPost > 0 {
		found, err = aa.views.PostsAfterIn(ctx, a.archive, q.lastPost, q.start, q.desired+1)
	} else {
		found, err = aa.views.PostsIn(ctx, a.archive, q.start, q.desired+1)
	}
	if err != nil {
		return err
	}
	if len(found) == 0 && q.start == 0 && q.lastPost == 0 {
		// The archive's first batch: a date with no posts is a 404, as on
		// the page. A later batch past the end is an empty one, as ever.
		if err := a.archive.In.NoPosts(); err != nil {
			return err
		}
	}
	found, link := nextBatch(found, aa.endpoint, a, q)
	// The ETag is the plain body's; a compressed one is tagged apart.
	answer := publicAnswer{contentType: "application/json; charset=utf-8", body: listing.AppendJSON(nil, found), link: link}
	if r.Method != http.MethodHead {
		room, err := aa.unsent.reserve(w, len(answer.body))
		if err != nil {
			return err
		}
		defer room.release()
		answer.coded, answer.coding, err = encodeJSON(ctx, aa.coder, found, r.Header.Get("Accept-Encoding"))
		if err != nil {
			return err
		}
	}
	writePublic(w, r, answer, aa.maxAge)
	return nil
}

// writePublic writes a public answer, or 304 when the client holds it.
// gzhttp, around the handler, passes a coded body through.
func writePublic(w http.ResponseWriter, r *http.Request, answer publicAnswer, maxAge time.Duration) {
	etag := answer.etag()
	if notModified(w, r, etag, func(tag string) { answer.setHeaders(w, tag, maxAge) }) {
		return
	}
	if answer.coding != "" {
		// Another representation, another tag (RFC 9110 8.8.3), as
		// gzhttp and the static files tag theirs.
		answer.setHeaders(w, compress.ETag(etag, answer.coding), maxAge)
		w.Header().Set("Content-Encoding", answer.coding)
		w.Write(answer.coded)
		return
	}
	answer.setHeaders(w, etag, maxAge)
	w.Write(answer.body)
}

// archivePageSize is how many posts an archive's page shows: posts=N, or
// one batch, at most maxPagePosts. There is no posts_start to start from.
func archivePageSize(asked, batch, maxPagePosts int) int {
	if asked == 0 {
		asked = batch
	}
	return min(asked, maxPagePosts)
}

// page renders an archive's first shown posts, as servePage renders the
// listing's, headed and titled as WordPress heads and titles the archive;
// the badge counts the posts shown.
func (aa *archiveAnswers) page(w http.ResponseWriter, r *http.Request, a archiveRequest, page *listing.Renderer,
	csp *pagePolicy, shown, maxPagePosts int) error {
	ctx := r.Context()
	// One post more tells whether there is more to link to.
	found, err := aa.views.PostsIn(ctx, a.archive, 0, shown+1)
	if err != nil {
		return err
	}
	if len(found) == 0 {
		if err := a.archive.In.NoPosts(); err != nil {
			return err
		}
	}
	view := listing.PageView{AtCap: shown == maxPagePosts, MaxPosts: maxPagePosts}
	if len(found) > shown {
		view.Next = &found[shown]
		found = found[:shown]
	}
	view.Posts, view.PostsStart = found, len(found)
	var first *listing.Post
	if len(found) > 0 {
		first = &found[0]
	}
	view.Archive = &listing.PageArchive{Titles: aa.format.ArchiveTitles(a.archive.In, first), Vars: queryVars(a.canonical)}
	rendered, err := page.Render(ctx, view)
	if err != nil {
		return err
	}
	answer := publicAnswer{contentType: "text/html; charset=utf-8", body: rendered.HTML()}
	if r.Method != http.MethodHead {
		if answer.coded, answer.coding, err = page.Encode(ctx, rendered, r.Header.Get("Accept-Encoding")); err != nil {
			return err
		}
		room, err := aa.unsent.reserve(w, len(answer.coded))
		if err != nil {
			return err
		}
		defer room.release()
	}
	w.Header().Set("Content-Security-Policy", csp.get())
	writePublic(w, r, answer, aa.maxAge)
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

// publicAnswer is an answer any cache may keep: an archive's, which holds
// nothing of the visitor.
type publicAnswer struct {
	contentType string
	body        []byte // as it would be sent unencoded
	link        string // the Link header, "" for none
	// coded is body in the Content-Encoding coding, when the handler
	// compressed it (the page, compressed once and kept); gzhttp passes
	// it through.
	coded  []byte
	coding string
}

// etag is a strong validator of the answer: the body and the Link header,
// which says whether more posts follow, hashed. The same on every
// instance, so a proxy in front of several revalidates with any.
func (p publicAnswer) etag() string {
	h := sha256.New()
	h.Write(p.body)
	h.Write([]byte{0})
	h.Write([]byte(p.link))
	return `"` + base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:15]) + `"`
}

// setHeaders sets the headers of p's answer, 200 or 304 alike (RFC 9110
// 15.4.5): kept by any cache for maxAge, validated by etag.
func (p publicAnswer) setHeaders(w http.ResponseWriter, etag string, maxAge time.Duration) {
	h := w.Header()
	h.Set("Content-Type", p.contentType)
	h.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(maxAge/time.Second)))
	h.Set("ETag", etag)
	if p.link != "" {
		h.Set("Link", p.link)
	}
}

// notModified answers 304 when the request's If-None-Match names etag or
// one of its coded representations (the compressed bodies' tags end in
// -gzip or -zstd), and reports whether it did. If-None-Match compares
// weakly (RFC 9110 13.1.2): W/ is ignored.
func notModified(w http.ResponseWriter, r *http.Request, etag string, set func(etag string)) bool {
	header := r.Header.Get("If-None-Match")
	if header == "" {
		return false
	}
	plain := strings.TrimSuffix(etag, `"`)
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag || tag == plain+`-gzip"` || tag == plain+`-zstd"` {
			if tag == "*" {
				tag = etag
			}
			set(tag)
			w.WriteHeader(http.StatusNotModified)
			return true
		}
	}
	return false
}
