package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/server/compress"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/session"
)

// compressServer is the whole handler over 30 posts whose JSON answer at
// desiredPosts=20 is a few KB, and in-memory sessions, behind a real
// listener, and a client that neither asks for nor decodes compression, so
// a test sees the bytes as sent.
func compressServer(t *testing.T) (srv *httptest.Server, logs fmt.Stringer, client *http.Client) {
	t.Helper()
	cfg, err := parseConfig([]string{"wploadmore"}, envFunc(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	store, err := session.NewMemory(cfg.sessionConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var posts []blog.Post
	for id := uint64(30); id >= 1; id-- {
		posts = append(posts, blog.Post{
			ID: id, Title: fmt.Sprintf("Post number %d", id), Name: fmt.Sprintf("post-number-%d", id),
			Excerpt: strings.Repeat(fmt.Sprintf("Words of post %d. ", id), 8), Date: "2024-01-01 00:00:00",
		})
	}
	h, buf := fakeServer(t, fakePosts{posts: posts}, store)
	srv = httptest.NewServer(h)
	t.Cleanup(srv.Close)
	client = &http.Client{Transport: &http.Transport{DisableCompression: true}}
	t.Cleanup(client.CloseIdleConnections)
	return srv, buf, client
}

// sent is an answer as it came over the wire.
type sent struct {
	status int
	header http.Header
	body   []byte // as sent, compressed or not
}

func send(t *testing.T, client *http.Client, method, url string, header map[string]string) sent {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return sent{status: resp.StatusCode, header: resp.Header, body: body}
}

// decode undoes the answer's Content-Encoding.
func decode(t *testing.T, s sent) []byte {
	t.Helper()
	return testkit.Decode(t, s.header.Get("Content-Encoding"), s.body)
}

var loggedBytes = regexp.MustCompile(`bytes=(\d+) .*request_id=(\S+)`)

// TestCompression sends each kind of answer with the Accept-Encoding of
// browsers and others: it is compressed when it should be, decodes to the
// plain answer, says Vary, keeps the request id and the security headers,
// and the request log counts the bytes as sent.
func TestCompression(t *testing.T) {
	t.Parallel()
	srv, logs, client := compressServer(t)
	const chromium = "gzip, deflate, br, zstd"
	tests := []struct {
		name, method, path, acceptEncoding string
		wantStatus                         int
		wantCoding                         string
		wantVary                           bool
	}{
		{"page, gzip", "GET", "/load-more.php", "gzip", 200, "gzip", true},
		{"page, zstd", "GET", "/load-more.php", "zstd", 200, "zstd", true},
		{"page, chromium: zstd", "GET", "/load-more.php", chromium, 200, "zstd", true},
		{"page, gzip preferred by q", "GET", "/load-more.php", "gzip, zstd;q=0.5", 200, "gzip", true},
		{"page, none asked", "GET", "/load-more.php", "", 200, "", true},
		{"page, gzip refused", "GET", "/load-more.php", "gzip;q=0", 200, "", true},
		{"page HEAD: headers only, plain", "HEAD", "/load-more.php", "gzip", 200, "", true},
		{"archive page, gzip", "GET", "/load-more.php?year=2024&posts=20", "gzip", 200, "gzip", true},
		{"archive page, zstd", "GET", "/load-more.php?year=2024&posts=20", chromium, 200, "zstd", true},
		{"archive page, none asked", "GET", "/load-more.php?year=2024&posts=20", "", 200, "", true},
		{"archive page HEAD", "HEAD", "/load-more.php?year=2024&posts=20", "gzip", 200, "", true},
		{"archive JSON 20 posts, gzip", "GET", "/load-more.php?start=0&desiredPosts=20&year=2024", "gzip", 200, "gzip", true},
		{"archive JSON 20 posts, zstd", "GET", "/load-more.php?start=0&desiredPosts=20&year=2024", chromium, 200, "zstd", true},
		{"JSON hot path: under the threshold", "GET", "/load-more.php?start=0&desiredPosts=2", "gzip", 200, "", true},
		{"JSON 20 posts, gzip", "GET", "/load-more.php?start=0&desiredPosts=20", "gzip", 200, "gzip", true},
		{"JSON 20 posts, zstd", "GET", "/load-more.php?start=0&desiredPosts=20", chromium, 200, "zstd", true},
		{"JSON 20 posts, none asked", "GET", "/load-more.php?start=0&desiredPosts=20", "", 200, "", true},
		{"JSON 400", "GET", "/load-more.php?start=x", "gzip", 400, "", true},
		{"page 400", "GET", "/load-more.php?posts=x", "gzip", 400, "", true},
		{"405", "POST", "/load-more.php", "gzip", 405, "", false},
		{"script, gzip", "GET", "/assets/load-more.js", "gzip", 200, "gzip", true},
		{"script, zstd alone", "GET", "/assets/load-more.js", "zstd", 200, "zstd", true},
		{"script, x-gzip", "GET", "/assets/load-more.js", "x-gzip", 200, "gzip", true},
		{"script, any", "GET", "/assets/load-more.js", "*", 200, "gzip", true},
		{"script, identity", "GET", "/assets/load-more.js", "identity", 200, "", true},
		{"script, identity preferred", "GET", "/assets/load-more.js", "gzip;q=0.5, identity", 200, "", true},
		{"script, none asked", "GET", "/assets/load-more.js", "", 200, "", true},
		{"script HEAD, gzip", "HEAD", "/assets/load-more.js", "gzip", 200, "gzip", true},
		{"styles", "GET", "/assets/load-more.css", chromium, 200, "gzip", true},
		// Both welcome, the smaller body: gzip's best level beats zstd's
		// default on each of our files.
		{"vendored mustache", "GET", "/assets/vendor/mustache.mjs", chromium, 200, "gzip", true},
		{"template", "GET", "/load-more.mustache", chromium, 200, "gzip", true},
		{"asset 404", "GET", "/assets/nope.js", "gzip", 404, "", false},
		{"healthz", "GET", "/healthz", "gzip", 200, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := send(t, client, tt.method, srv.URL+tt.path, map[string]string{"Accept-Encoding": tt.acceptEncoding})
			if got.status != tt.wantStatus || got.header.Get("Content-Encoding") != tt.wantCoding {
				t.Fatalf("%d, Content-Encoding %q; want %d, %q", got.status, got.header.Get("Content-Encoding"), tt.wantStatus, tt.wantCoding)
			}
			if vary := strings.Contains(strings.Join(got.header.Values("Vary"), ","), "Accept-Encoding"); vary != tt.wantVary {
				t.Errorf("Vary %q; want Accept-Encoding: %v", got.header.Values("Vary"), tt.wantVary)
			}
			for _, h := range []string{"X-Request-Id", "X-Content-Type-Options", "X-Frame-Options"} {
				if got.header.Get(h) == "" {
					t.Errorf("no %s", h)
				}
			}
			// The endpoint's answers are built whole: sent with their
			// length, not chunked, which takes a write more.
			if tt.method == "GET" && tt.wantStatus == 200 && strings.HasPrefix(tt.path, "/load-more.php") &&
				got.header.Get("Content-Length") == "" {
				t.Errorf("no Content-Length (Transfer-Encoding %q)", got.header.Get("Transfer-Encoding"))
			}
			if tt.method == "HEAD" {
				if len(got.body) != 0 {
					t.Errorf("HEAD answered %d bytes", len(got.body))
				}
				return
			}
			// The same answer, asked for plain, is what the compressed one holds.
			plain := send(t, client, tt.method, srv.URL+tt.path, nil)
			if tt.wantStatus < 300 && !strings.Contains(tt.path, "start=") && !strings.HasSuffix(tt.path, ".php") {
				if diff := cmp.Diff(string(plain.body), string(decode(t, got))); diff != "" {
					t.Errorf("decoded body (-plain +decoded):\n%s", diff)
				}
			} else if !bytes.Equal(plain.body[:min(len(plain.body), 16)], decode(t, got)[:min(len(plain.body), 16)]) {
				t.Errorf("decoded body starts %q; plain %q", decode(t, got)[:16], plain.body[:16])
			}
			if tt.wantCoding != "" && len(got.body) >= len(plain.body) {
				t.Errorf("%d bytes compressed, %d plain", len(got.body), len(plain.body))
			}
			if n := got.header.Get("Content-Length"); n != "" && n != strconv.Itoa(len(got.body)) {
				t.Errorf("Content-Length %s, body %d bytes", n, len(got.body))
			}
			id, logged := got.header.Get("X-Request-Id"), false
			for _, m := range loggedBytes.FindAllStringSubmatch(logs.String(), -1) {
				if m[2] != id {
					continue
				}
				logged = true
				if m[1] != strconv.Itoa(len(got.body)) {
					t.Errorf("request log: bytes=%s; %d sent", m[1], len(got.body))
				}
			}
			if !logged && tt.wantStatus < 400 {
				t.Errorf("no request line with request_id=%s", id)
			}
		})
	}
}

// TestCompressedJSONDecodes checks a compressed JSON answer is the same
// posts as the plain one: the session counts each, so the bodies differ
// only by what the second request's session has, which is nothing here
// (start=0 answers the same posts).
func TestCompressedJSONDecodes(t *testing.T) {
	t.Parallel()
	srv, _, client := compressServer(t)
	url := srv.URL + "/load-more.php?start=0&desiredPosts=20"
	plain := send(t, client, "GET", url, nil)
	for _, coding := range []string{"gzip", "zstd"} {
		t.Run(coding, func(t *testing.T) {
			got := send(t, client, "GET", url, map[string]string{"Accept-Encoding": coding})
			if got.header.Get("Content-Encoding") != coding {
				t.Fatalf("Content-Encoding %q", got.header.Get("Content-Encoding"))
			}
			if diff := cmp.Diff(string(plain.body), string(decode(t, got))); diff != "" {
				t.Errorf("(-plain +decoded):\n%s", diff)
			}
		})
	}
}

// TestStaticRevalidation checks each representation of a static file has
// its own ETag, and a client revalidating what it holds gets a 304 for it;
// a tag of another representation is no match (RFC 9110 13.1.2), so the
// client gets the body it asked for.
func TestStaticRevalidation(t *testing.T) {
	t.Parallel()
	srv, _, client := compressServer(t)
	for _, path := range []string{"/assets/load-more.js", "/assets/load-more.css", "/load-more.mustache"} {
		t.Run(path, func(t *testing.T) {
			url := srv.URL + path
			etags := map[string]string{}
			for _, coding := range []string{"", "gzip", "zstd"} {
				got := send(t, client, "GET", url, map[string]string{"Accept-Encoding": coding})
				if got.header.Get("Content-Encoding") != coding {
					t.Fatalf("%q: Content-Encoding %q", coding, got.header.Get("Content-Encoding"))
				}
				etags[coding] = got.header.Get("ETag")
			}
			plain := etags[""]
			want := map[string]string{"": plain, "gzip": strings.TrimSuffix(plain, `"`) + `-gzip"`, "zstd": strings.TrimSuffix(plain, `"`) + `-zstd"`}
			if diff := cmp.Diff(want, etags); diff != "" {
				t.Fatalf("ETags (-want +got):\n%s", diff)
			}
			tests := []struct {
				name, acceptEncoding, ifNoneMatch string
				wantStatus                        int
				wantCoding                        string
			}{
				{"plain, its tag", "", etags[""], 304, ""},
				{"gzip, its tag", "gzip", etags["gzip"], 304, ""},
				{"zstd, its tag", "zstd", etags["zstd"], 304, ""},
				{"gzip, weak tag", "gzip", "W/" + etags["gzip"], 304, ""},
				{"gzip, both tags, as a cache holding both sends", "gzip", etags[""] + ", " + etags["gzip"], 304, ""},
				{"gzip, the plain tag", "gzip", etags[""], 200, "gzip"},
				{"plain, the gzip tag", "", etags["gzip"], 200, ""},
				{"gzip, *", "gzip", "*", 304, ""},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					got := send(t, client, "GET", url, map[string]string{"Accept-Encoding": tt.acceptEncoding, "If-None-Match": tt.ifNoneMatch})
					if got.status != tt.wantStatus || got.header.Get("Content-Encoding") != tt.wantCoding {
						t.Fatalf("%d, Content-Encoding %q; want %d, %q", got.status, got.header.Get("Content-Encoding"), tt.wantStatus, tt.wantCoding)
					}
					coding := tt.acceptEncoding
					if got.header.Get("ETag") != etags[coding] {
						t.Errorf("ETag %s; want %s", got.header.Get("ETag"), etags[coding])
					}
					if got.header.Get("Vary") != "Accept-Encoding" {
						t.Errorf("Vary %q", got.header.Get("Vary"))
					}
					if tt.wantStatus == 304 && len(got.body) != 0 {
						t.Errorf("304 with %d bytes", len(got.body))
					}
				})
			}
		})
	}
}

// TestStaticRange checks ranges apply to the representation sent: a client
// that resumes a compressed download gets the compressed bytes it lacks.
func TestStaticRange(t *testing.T) {
	t.Parallel()
	srv, _, client := compressServer(t)
	url := srv.URL + "/assets/load-more.js"
	whole := map[string][]byte{}
	etags := map[string]string{}
	for _, coding := range []string{"", "gzip"} {
		got := send(t, client, "GET", url, map[string]string{"Accept-Encoding": coding})
		whole[coding], etags[coding] = got.body, got.header.Get("ETag")
	}
	tests := []struct {
		name, acceptEncoding, rangeHeader, ifRange string
		wantStatus                                 int
		wantBody                                   []byte
	}{
		{"plain", "", "bytes=0-9", "", 206, whole[""][:10]},
		{"gzip", "gzip", "bytes=0-9", "", 206, whole["gzip"][:10]},
		{"gzip, the rest", "gzip", "bytes=100-", "", 206, whole["gzip"][100:]},
		{"gzip, If-Range its tag", "gzip", "bytes=0-9", etags["gzip"], 206, whole["gzip"][:10]},
		{"gzip, If-Range the plain tag: the whole", "gzip", "bytes=0-9", etags[""], 200, whole["gzip"]},
		{"gzip, past the end", "gzip", fmt.Sprintf("bytes=%d-", len(whole["gzip"])), "", 416, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := map[string]string{"Accept-Encoding": tt.acceptEncoding, "Range": tt.rangeHeader}
			if tt.ifRange != "" {
				header["If-Range"] = tt.ifRange
			}
			got := send(t, client, "GET", url, header)
			if got.status != tt.wantStatus {
				t.Fatalf("%d; want %d", got.status, tt.wantStatus)
			}
			if tt.wantBody != nil && !bytes.Equal(got.body, tt.wantBody) {
				t.Errorf("%d bytes, not the %d bytes of the representation's range", len(got.body), len(tt.wantBody))
			}
			if tt.wantStatus == 416 {
				if ce := got.header.Get("Content-Encoding"); ce != "" {
					t.Errorf("416 says Content-Encoding %q", ce)
				}
				return
			}
			if got.header.Get("Content-Encoding") != tt.acceptEncoding {
				t.Errorf("Content-Encoding %q", got.header.Get("Content-Encoding"))
			}
			if tt.wantStatus == 206 {
				wantRange := fmt.Sprintf("/%d", len(whole[tt.acceptEncoding]))
				if !strings.HasSuffix(got.header.Get("Content-Range"), wantRange) {
					t.Errorf("Content-Range %q; want the length %s", got.header.Get("Content-Range"), wantRange)
				}
			}
		})
	}
}

// BenchmarkCompression is the JSON endpoint and the page through the whole
// handler, with the cache, asked plain, for gzip, and as Chromium asks
// (zstd): what compression costs the hot path (desiredPosts=2, under
// compress.MinSize: the wrapper alone) and a larger answer.
func BenchmarkCompression(b *testing.B) {
	targets := []struct {
		name, target string
		postsStart   int
	}{
		{"JSON desiredPosts=2", "/load-more.php?start=10&desiredPosts=2", 2},
		{"JSON desiredPosts=20", "/load-more.php?start=10&desiredPosts=20", 2},
		{"page posts_start=2", "/load-more.php", 2},
		{"page posts_start=200", "/load-more.php", 200},
	}
	for _, tg := range targets {
		h, id := benchHandler(b, time.Minute, tg.postsStart)
		for _, ae := range []string{"", "gzip", "gzip, deflate, br, zstd"} {
			b.Run(fmt.Sprintf("%s/ae=%s", tg.name, ae), func(b *testing.B) {
				req := httptest.NewRequest(http.MethodGet, tg.target, nil)
				req.AddCookie(&http.Cookie{Name: "PHPSESSID", Value: id})
				if ae != "" {
					req.Header.Set("Accept-Encoding", ae)
				}
				b.ReportAllocs()
				var sent int
				for b.Loop() {
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req)
					if w.Code != http.StatusOK {
						b.Fatalf("status %d: %s", w.Code, w.Body)
					}
					sent = w.Body.Len()
				}
				b.ReportMetric(float64(sent), "bytes/answer")
			})
		}
	}
}

// TestPageEncoding checks the page is sent in the coding a client welcomes
// most, decoding to its HTML, compressed once and then kept with the page
// (listing's TestCompressed checks how it is kept); and that a page too
// small is sent as it is.
func TestPageEncoding(t *testing.T) {
	t.Parallel()
	p, format := testPageRenderer(t)
	var stored []blog.Post
	for id := uint64(6); id >= 1; id-- {
		stored = append(stored, blog.Post{ID: id, Title: fmt.Sprintf("Post %d", id), Excerpt: "Some text...", Date: "2024-01-01 00:00:00"})
	}
	posts, err := format.Posts(stored)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	page, err := p.Render(ctx, listing.PageView{PostsStart: 6, Posts: posts, MaxPosts: 1000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.HTML()) < compress.MinSize {
		t.Fatalf("page of %d bytes: under the threshold", len(page.HTML()))
	}
	tests := []struct {
		acceptEncoding, wantCoding string
	}{
		{"", ""},
		{"gzip", "gzip"},
		{"gzip, deflate, br, zstd", "zstd"},
		{"br", ""},
	}
	for _, tt := range tests {
		t.Run(tt.acceptEncoding, func(t *testing.T) {
			body, coding, err := p.Encode(ctx, page, tt.acceptEncoding)
			if err != nil {
				t.Fatal(err)
			}
			if coding != tt.wantCoding {
				t.Fatalf("coding %q; want %q", coding, tt.wantCoding)
			}
			got := decode(t, sent{header: http.Header{"Content-Encoding": {coding}}, body: body})
			if !bytes.Equal(got, page.HTML()) {
				t.Fatal("the body does not decode to the page")
			}
			if coding == "" {
				return
			}
			if again, _, err := p.Encode(ctx, page, tt.acceptEncoding); err != nil || &again[0] != &body[0] {
				t.Error("compressed again: not kept")
			}
		})
	}

	// A page that is too small is sent as it is.
	small, err := p.Render(ctx, listing.PageView{PostsStart: 0, MaxPosts: 1000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, coding, err := p.Encode(ctx, small, "gzip")
	if err != nil {
		t.Fatal(err)
	}
	if len(small.HTML()) < compress.MinSize && coding != "" {
		t.Errorf("a page of %d bytes coded %q", len(small.HTML()), coding)
	}
}
