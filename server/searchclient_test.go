package main

import (
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/server/proxy"
)

// TestSearchClient: a search counts against its visitor's address, as the
// per-client connection cap counts it; a trusted proxy's forwarded
// visitor's, nobody else's X-Forwarded-For.
func TestSearchClient(t *testing.T) {
	trusted, err := proxy.Parse("10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, peer, forwarded, want string
	}{
		{"IPv4", "192.0.2.7:4000", "", "192.0.2.7"},
		{"IPv4 forwarding untrusted", "192.0.2.7:4000", "198.51.100.9", "192.0.2.7"},
		{"IPv6 by its /64", "[2001:db8:1:2:3:4:5:6]:4000", "", "2001:db8:1:2::/64"},
		{"IPv4-mapped", "[::ffff:192.0.2.7]:4000", "", "192.0.2.7"},
		{"behind a trusted proxy", "10.0.0.1:4000", "198.51.100.9", "198.51.100.9"},
		{"a Unix socket", "@", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/load-more.php?s=x", nil)
			r.RemoteAddr = tc.peer
			if tc.forwarded != "" {
				r.Header.Set("X-Forwarded-For", tc.forwarded)
			}
			if diff := cmp.Diff(tc.want, searchClient(r, trusted)); diff != "" {
				t.Errorf("client (-want +got):\n%s", diff)
			}
		})
	}
}
