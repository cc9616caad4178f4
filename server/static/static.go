// Package static serves the files read once at start, the widget's assets
// and the template, from memory: each with an ETag of its content and its
// compressed representations prepared ahead, its conditions and ranges
// within the server's bounds.
package static

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wploadmore/wploadmore/server/compress"
)

// File is a file read once at start and served from memory with an ETag
// of its content, so browsers revalidate it for the price of a 304.
//
// It is compressed once too, at the best levels, into a body for each
// coding that shrinks it, each with an ETag of its own (RFC 9110 8.8.3: a
// coded representation is another representation). A request then costs
// no CPU for compression, and http.ServeContent serves the chosen body as
// it serves the plain one: If-None-Match, If-Modified-Since, Range and
// HEAD all apply to the representation sent.
type File struct {
	name        string
	body        []byte
	etag        string
	encoded     []encodedBody // smallest first; none when nothing shrinks it
	codings     []string      // encoded's codings, in its order
	contentType string
	modTime     time.Time
}

// encodedBody is one compressed representation of a static file.
type encodedBody struct {
	coding string // the Content-Encoding: compress.Zstd or compress.Gzip
	body   []byte
	etag   string // the plain ETag, tagged with the coding (compress.ETag)
}

// Load reads one file of fsys. Embedded files carry no time, so they get
// builtAt: the server's start, when they last changed for any client.
func Load(fsys fs.FS, name string, builtAt time.Time, coder *compress.Coder) (File, error) {
	body, err := fs.ReadFile(fsys, name)
	if err != nil {
		return File{}, err
	}
	modTime := builtAt.Truncate(time.Second)
	if info, err := fs.Stat(fsys, name); err == nil && !info.ModTime().IsZero() {
		modTime = info.ModTime()
	}
	sum := sha256.Sum256(body)
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`
	encoded, err := precompress(coder, body, etag)
	if err != nil {
		return File{}, fmt.Errorf("compress %s: %w", name, err)
	}
	contentType := mime.TypeByExtension(path.Ext(name))
	switch {
	case strings.HasSuffix(name, ".mustache"):
		contentType = "text/plain; charset=utf-8"
	case contentType == "":
		contentType = http.DetectContentType(body)
	}
	var codings []string
	for _, e := range encoded {
		codings = append(codings, e.coding)
	}
	return File{
		name:        name,
		body:        body,
		etag:        etag,
		encoded:     encoded,
		codings:     codings,
		contentType: contentType,
		modTime:     modTime,
	}, nil
}

// Body is the file's plain content, as read; the caller must not change it.
func (f File) Body() []byte { return f.body }

// precompress returns the compressed representations of body that are
// smaller than it, smallest first; none for a file that does not shrink
// (an image already compressed, a few bytes of text).
func precompress(coder *compress.Coder, body []byte, etag string) ([]encodedBody, error) {
	var out []encodedBody
	for _, coding := range compress.Codings {
		// At start, before any request: nothing to wait for.
		coded, err := coder.Encode(context.Background(), coding, compress.Best, func(b []byte) []byte { return append(b, body...) })
		if err != nil {
			return nil, err
		}
		if len(coded) < len(body) {
			out = append(out, encodedBody{coding: coding, body: coded, etag: compress.ETag(etag, coding)})
		}
	}
	slices.SortStableFunc(out, func(a, b encodedBody) int { return len(a.body) - len(b.body) })
	return out, nil
}

// LoadTree reads every file of fsys, keyed by its slash path, but Go
// sources and Markdown: the embed.go and notes beside the assets.
func LoadTree(fsys fs.FS, builtAt time.Time, coder *compress.Coder) (map[string]File, error) {
	files := map[string]File{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".md") {
			return nil
		}
		f, err := Load(fsys, name, builtAt, coder)
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		files[name] = f
		return nil
	})
	return files, err
}

// ServeHTTP answers the file, or 304 when the client's copy is current.
// "no-cache" makes browsers revalidate every time, so a new deployment is
// picked up at once while unchanged files cost no body.
//
// The body is the compressed one Accept-Encoding welcomes most, if any, with
// its own ETag; conditions and ranges apply to the body chosen, within
// the server's bounds (see boundRequest), and HEAD answers the headers
// GET would.
func (f File) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	body, etag := f.body, f.etag
	if len(f.encoded) > 0 {
		coding := ""
		if i := compress.Choose(r.Header.Get("Accept-Encoding"), f.codings); i >= 0 {
			e := f.encoded[i]
			body, etag, coding = e.body, e.etag, e.coding
			// ServeContent leaves Content-Length out when a Content-Encoding
			// is set, in case the writer compresses; here the body is
			// already compressed, and HEAD should say its length as GET.
			// A range, 304 or error answer sets or drops it itself.
			h.Set("Content-Length", strconv.Itoa(len(body)))
		}
		compress.SetCoding(h, coding)
	}
	h.Set("Content-Type", f.contentType)
	h.Set("ETag", etag)
	h.Set("Cache-Control", "no-cache")
	r = boundRequest(r, int64(len(body)), f.contentType)
	http.ServeContent(w, r, f.name, f.modTime, bytes.NewReader(body))
}

// Assets serves files by the route's {path} wildcard, the widget's files
// under assets/: 404 for a path that is none of them.
func Assets(files map[string]File) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := files[r.PathValue("path")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		f.ServeHTTP(w, r)
	})
}
