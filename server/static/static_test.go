package static

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/public"
	"github.com/wploadmore/wploadmore/server/compress"
	"github.com/wploadmore/wploadmore/templates"
)

// served routes the widget's assets and the posts' template as the server
// does, from the files embedded in the binary.
func served(t *testing.T) http.Handler {
	t.Helper()
	coder := compress.New()
	assets, err := LoadTree(public.FS, time.Now(), coder)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := assets["vendor/mustache.mjs"]; !ok {
		t.Fatal("public/vendor/mustache.mjs is missing: run `make assets`")
	}
	template, err := Load(templates.FS, "load-more.mustache", time.Now(), coder)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /assets/{path...}", Assets(assets))
	mux.Handle("GET /load-more.mustache", template)
	return mux
}

// TestStaticRangesBounded: whatever Range a client sends for a static file
// (an asset, the template), the answer is never larger than the file; past
// the bounds it is the whole file with 200, and within them the ranges as
// before.
func TestStaticRangesBounded(t *testing.T) {
	h := served(t)
	for _, path := range []string{"/assets/vendor/mustache.mjs", "/load-more.mustache"} {
		// The plain file and its gzip representation, each its own size.
		for _, coding := range []string{"", "gzip"} {
			whole := httptest.NewRequest(http.MethodGet, path, nil)
			whole.Header.Set("Accept-Encoding", coding)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, whole)
			size := rec.Body.Len()
			if rec.Header().Get("Content-Encoding") != coding {
				t.Fatalf("%s: Content-Encoding %q, want %q", path, rec.Header().Get("Content-Encoding"), coding)
			}
			for _, tt := range []struct {
				name       string
				header     string
				wantStatus int // for the plain file; 0: either
			}{
				{"one range", "bytes=0-99", http.StatusPartialContent},
				{"two ranges", "bytes=0-99,200-299", 0},
				{"5 000 one-byte ranges", manyRanges(5000), http.StatusOK},
				{"maxRanges+1 ranges", "bytes=" + ranges(maxRanges+1, 200, 10), http.StatusOK},
				{"the whole file twice", "bytes=0-,0-", http.StatusOK},
				{"past the end", fmt.Sprintf("bytes=%d-", size+10), http.StatusRequestedRangeNotSatisfiable},
			} {
				t.Run(path+"/"+coding+"/"+tt.name, func(t *testing.T) {
					req := httptest.NewRequest(http.MethodGet, path, nil)
					req.Header.Set("Accept-Encoding", coding)
					req.Header.Set("Range", tt.header)
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					if tt.wantStatus != 0 && rec.Code != tt.wantStatus {
						t.Errorf("status %d, want %d", rec.Code, tt.wantStatus)
					}
					if rec.Body.Len() > size {
						t.Errorf("an answer of %d bytes for a representation of %d", rec.Body.Len(), size)
					}
					if rec.Code == http.StatusOK && rec.Body.Len() != size {
						t.Errorf("200 with %d bytes, want the whole representation's %d", rec.Body.Len(), size)
					}
					if req.Header.Get("Range") != tt.header {
						t.Error("the handler changed the request's own Range header")
					}
				})
			}
		}
	}
}

// TestPrecompress checks each kept representation decodes to the file and
// is smaller, and that a file compression cannot shrink keeps none.
func TestPrecompress(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body []byte
		want int // representations kept
	}{
		{"text", bytes.Repeat([]byte("load more posts "), 100), 2},
		{"one byte", []byte("x"), 0},
		{"empty", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := precompress(compress.New(), tt.body, `"tag"`)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.want {
				t.Fatalf("%d representations; want %d", len(got), tt.want)
			}
			for _, e := range got {
				if plain := testkit.Decode(t, e.coding, e.body); !bytes.Equal(plain, tt.body) {
					t.Errorf("%s does not decode to the file", e.coding)
				}
				if want := `"tag-` + e.coding + `"`; e.etag != want {
					t.Errorf("ETag %s; want %s", e.etag, want)
				}
			}
		})
	}
}
