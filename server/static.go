package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/wploadmore/wploadmore/server/listing"
)

const (
	loadMoreTemplate = listing.PostsTemplate
	vendoredMustache = "vendor/mustache.mjs"
)

// staticFile is a file read once at start and served from memory with an
// ETag of its content, so browsers revalidate it for the price of a 304.
// It is compressed once too (see compress.go).
type staticFile struct {
	name        string
	body        []byte
	etag        string
	encoded     []encodedBody // smallest first; none when nothing shrinks it
	contentType string
	modTime     time.Time
}

// loadStatic reads one file of fsys. Embedded files carry no time, so they
// get builtAt: the server's start, when they last changed for any client.
func loadStatic(fsys fs.FS, name string, builtAt time.Time) (staticFile, error) {
	body, err := fs.ReadFile(fsys, name)
	if err != nil {
		return staticFile{}, err
	}
	modTime := builtAt.Truncate(time.Second)
	if info, err := fs.Stat(fsys, name); err == nil && !info.ModTime().IsZero() {
		modTime = info.ModTime()
	}
	sum := sha256.Sum256(body)
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`
	encoded, err := precompress(body, etag)
	if err != nil {
		return staticFile{}, fmt.Errorf("compress %s: %w", name, err)
	}
	contentType := mime.TypeByExtension(path.Ext(name))
	switch {
	case strings.HasSuffix(name, ".mustache"):
		contentType = "text/plain; charset=utf-8"
	case contentType == "":
		contentType = http.DetectContentType(body)
	}
	return staticFile{
		name:        name,
		body:        body,
		etag:        etag,
		encoded:     encoded,
		contentType: contentType,
		modTime:     modTime,
	}, nil
}

// loadStaticTree reads every file of fsys, keyed by its slash path.
func loadStaticTree(fsys fs.FS, builtAt time.Time) (map[string]staticFile, error) {
	files := map[string]staticFile{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".md") {
			return nil
		}
		f, err := loadStatic(fsys, name, builtAt)
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
// its own ETag; conditions and ranges apply to the body chosen, and HEAD
// answers the headers GET would.
func (f staticFile) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	body, etag := f.body, f.etag
	if len(f.encoded) > 0 {
		h.Add("Vary", "Accept-Encoding")
		if i := chooseEncoding(r.Header.Get("Accept-Encoding"), f.encoded); i >= 0 {
			e := f.encoded[i]
			body, etag = e.body, e.etag
			h.Set("Content-Encoding", e.coding)
			// ServeContent leaves Content-Length out when a Content-Encoding
			// is set, in case the writer compresses; here the body is
			// already compressed, and HEAD should say its length as GET.
			// A range, 304 or error answer sets or drops it itself.
			h.Set("Content-Length", strconv.Itoa(len(body)))
		}
	}
	h.Set("Content-Type", f.contentType)
	h.Set("ETag", etag)
	h.Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, f.name, f.modTime, bytes.NewReader(body))
}

// handleAssets serves the widget's files under assets/.
func handleAssets(files map[string]staticFile) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := files[r.PathValue("path")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		f.ServeHTTP(w, r)
	})
}
