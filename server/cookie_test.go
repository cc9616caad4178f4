package main

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCookieSecureBehindProxies checks the session cookie's Secure flag as
// the server builds the cookie: over TLS, or when a -trusted-proxies peer
// says https in X-Forwarded-Proto, by the one check the access log's client address also
// uses, zones and IPv4-mapped addresses included.
func TestCookieSecureBehindProxies(t *testing.T) {
	t.Parallel()
	const id = "0123456789abcdef0123456789abcdef"
	const secure = "PHPSESSID=" + id + "; Path=/; HttpOnly; Secure; SameSite=Lax"
	const plain = "PHPSESSID=" + id + "; Path=/; HttpOnly; SameSite=Lax"
	tests := []struct {
		name    string
		proxies string // -trusted-proxies
		remote  string
		tls     bool
		proto   string // X-Forwarded-Proto
		want    string
	}{
		{name: "direct", remote: "192.0.2.1:1234", want: plain},
		{name: "TLS is Secure", remote: "192.0.2.1:1234", tls: true, want: secure},
		{name: "trusted proxy says https", proxies: "10.0.0.0/8,::1", remote: "10.1.2.3:5555", proto: "https", want: secure},
		{name: "trusted IPv6 proxy, several hops", proxies: "10.0.0.0/8,::1", remote: "[::1]:5555", proto: "HTTPS, http", want: secure},
		{name: "trusted proxy as IPv4-mapped IPv6", proxies: "10.0.0.0/8,::1", remote: "[::ffff:10.0.0.1]:5555", proto: "https", want: secure},
		{name: "trusted IPv6 proxy with a zone", proxies: "fe80::/10", remote: "[fe80::1%eth0]:5555", proto: "https", want: secure},
		{name: "trusted proxy says http", proxies: "10.0.0.0/8,::1", remote: "10.1.2.3:5555", proto: "http", want: plain},
		{name: "untrusted X-Forwarded-Proto ignored", proxies: "10.0.0.0/8,::1", remote: "192.0.2.1:1234", proto: "https", want: plain},
		{name: "no trusted proxies configured", remote: "10.1.2.3:5555", proto: "https", want: plain},
		{name: "unparsable remote address", proxies: "10.0.0.0/8,::1", remote: "@", proto: "https", want: plain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := parseConfig([]string{"wploadmore", "-trusted-proxies", tt.proxies}, nil, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			r := httptest.NewRequest(http.MethodGet, "/load-more.php", nil)
			r.RemoteAddr = tt.remote
			if tt.tls {
				r.TLS = &tls.ConnectionState{}
			}
			if tt.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tt.proto)
			}
			w := httptest.NewRecorder()
			cfg.cookie().Set(w, r, id)
			if diff := cmp.Diff([]string{tt.want}, w.Result().Header.Values("Set-Cookie")); diff != "" {
				t.Errorf("Set-Cookie (-want +got):\n%s", diff)
			}
		})
	}
}
