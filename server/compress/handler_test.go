package compress

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSetCoding: an answer chosen by Accept-Encoding says so in Vary, once
// whoever said it first, and its coding in Content-Encoding, if any.
func TestSetCoding(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		vary   []string // before
		coding string
		want   http.Header
	}{
		{"plain", nil, "", http.Header{"Vary": {"Accept-Encoding"}}},
		{"gzip", nil, Gzip, http.Header{"Vary": {"Accept-Encoding"}, "Content-Encoding": {"gzip"}}},
		{"zstd, said by gzhttp", []string{"Accept-Encoding"}, Zstd, http.Header{"Vary": {"Accept-Encoding"}, "Content-Encoding": {"zstd"}}},
		{"varying on another header", []string{"Origin"}, "", http.Header{"Vary": {"Origin", "Accept-Encoding"}}},
		{"in a list, any case", []string{"Origin, accept-encoding"}, Gzip, http.Header{"Vary": {"Origin, accept-encoding"}, "Content-Encoding": {"gzip"}}},
		{"a longer name", []string{"Accept-Encoding-Extra"}, "", http.Header{"Vary": {"Accept-Encoding-Extra", "Accept-Encoding"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for _, v := range tt.vary {
				h.Add("Vary", v)
			}
			SetCoding(h, tt.coding)
			if diff := cmp.Diff(tt.want, h); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSetBody: a GET's answer built whole is sent with its length, coded
// or not; a HEAD's is not told one, as its GET's body may be coded.
func TestSetBody(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, method, coding string
		want                 http.Header
	}{
		{"GET, plain", http.MethodGet, "", http.Header{"Vary": {"Accept-Encoding"}, "Content-Length": {"5"}}},
		{"GET, gzip", http.MethodGet, "gzip", http.Header{"Vary": {"Accept-Encoding"}, "Content-Encoding": {"gzip"}, "Content-Length": {"5"}}},
		{"HEAD", http.MethodHead, "", http.Header{"Vary": {"Accept-Encoding"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			SetBody(&http.Request{Method: tt.method}, h, tt.coding, []byte("hello"))
			if diff := cmp.Diff(tt.want, h); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}
