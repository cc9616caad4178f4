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
	"strings"
	"time"
)

const (
	loadMoreTemplate = "load-more.mustache"
	pageTemplate     = "page.html"
	vendoredMustache = "vendor/mustache.mjs"
)

// staticFile is a file read once at start and served from memory with an
// ETag of its content, so browsers revalidate it for the price of a 304.
type staticFile struct {
	name        string
	body        []byte
	etag        string
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
		etag:        `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`,
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
func (f staticFile) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("ETag", f.etag)
	h.Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, f.name, f.modTime, bytes.NewReader(f.body))
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
