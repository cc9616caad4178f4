package proxy

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestClientIP(t *testing.T) {
	t.Parallel()
	proxies := Trusted{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	tests := []struct {
		name    string
		remote  string
		xff     []string // X-Forwarded-For header lines
		trusted Trusted
		want    string
	}{
		{"direct", "203.0.113.7:5000", nil, proxies, "203.0.113.7"},
		{"direct, header ignored: the peer is no proxy", "203.0.113.7:5000", []string{"198.51.100.1"}, proxies, "203.0.113.7"},
		{"no trusted proxies: header ignored", "10.0.0.2:5000", []string{"198.51.100.1"}, nil, "10.0.0.2"},
		{"one trusted proxy", "10.0.0.2:5000", []string{"198.51.100.1"}, proxies, "198.51.100.1"},
		{"a client's own entry on the left is not believed", "10.0.0.2:5000", []string{"1.2.3.4, 198.51.100.1"}, proxies, "198.51.100.1"},
		{"through two trusted proxies", "10.0.0.2:5000", []string{"198.51.100.1, 10.0.0.9"}, proxies, "198.51.100.1"},
		{"several header lines", "10.0.0.2:5000", []string{"6.6.6.6, 198.51.100.1", "10.0.0.9"}, proxies, "198.51.100.1"},
		{"all trusted: the leftmost", "10.0.0.2:5000", []string{"10.1.1.1, 10.0.0.9"}, proxies, "10.1.1.1"},
		{"junk stops at the last proxy", "10.0.0.2:5000", []string{"198.51.100.1, not-an-ip, 10.0.0.9"}, proxies, "10.0.0.9"},
		{"junk right away: the peer", "10.0.0.2:5000", []string{"<script>"}, proxies, "10.0.0.2"},
		{"empty entries skipped", "10.0.0.2:5000", []string{"198.51.100.1,, "}, proxies, "198.51.100.1"},
		{"entry with a port", "10.0.0.2:5000", []string{"198.51.100.1:4711"}, proxies, "198.51.100.1"},
		{"IPv6 peer", "[2001:db8::1]:5000", nil, proxies, "2001:db8::1"},
		{"IPv6 behind an IPv6 proxy", "[fd00::1]:5000", []string{"[2001:db8::2]:80"}, proxies, "2001:db8::2"},
		{"IPv4-mapped peer, unmapped", "[::ffff:10.0.0.2]:5000", []string{"198.51.100.1"}, proxies, "198.51.100.1"},
		{"zone dropped", "10.0.0.2:5000", []string{"fe80::1%" + strings.Repeat("z", 500)}, proxies, "fe80::1"},
		{"a Unix socket's peer", "@", nil, proxies, "@"},
		{"trusted entries read to the bound", "10.0.0.2:5000", []string{"198.51.100.1, " + trustedChain(MaxForwardedEntries)}, proxies, "10.0.0.16"},
		{"past the bound: the last proxy read", "10.0.0.2:5000", []string{"198.51.100.1, " + trustedChain(MaxForwardedEntries+1)}, proxies, "10.0.0.16"},
		{"tens of KB of trusted entries", "10.0.0.2:5000", []string{"198.51.100.1, " + trustedChain(5000)}, proxies, "10.0.0.16"},
		{"tens of KB of empty entries", "10.0.0.2:5000", []string{"198.51.100.1" + strings.Repeat(",", 30000)}, proxies, "10.0.0.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			got := r.RemoteAddr
			if addr, ok := tt.trusted.Client(r); ok {
				got = addr.String()
			}
			if got != tt.want {
				t.Errorf("Client = %q, want %q", got, tt.want)
			}
		})
	}
}

// trustedChain is n X-Forwarded-For entries of trusted proxies, the
// rightmost 10.0.0.1, the leftmost 10.0.0.n (for n up to 255).
func trustedChain(n int) string {
	entries := make([]string, n)
	for i := range entries {
		entries[n-1-i] = fmt.Sprintf("10.0.%d.%d", (i+1)/256, (i+1)%256)
	}
	return strings.Join(entries, ", ")
}
