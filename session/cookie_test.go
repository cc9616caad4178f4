package session

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCookieSet checks the Set-Cookie line. Whether a request behind a
// proxy came over HTTPS is the server's to say (OverHTTPS): its cases,
// trusted proxies and all, are the server's TestCookieSecureBehindProxies.
func TestCookieSet(t *testing.T) {
	t.Parallel()
	says := func(https bool) func(*http.Request) bool { return func(*http.Request) bool { return https } }
	tests := []struct {
		name    string
		cookie  Cookie
		remote  string
		tls     bool
		headers map[string]string
		id      string
		want    string
	}{
		{
			name: "defaults", remote: "192.0.2.1:1234", id: idHex32,
			want: "PHPSESSID=" + idHex32 + "; Path=/; HttpOnly; SameSite=Lax",
		},
		{
			name: "name and base path", cookie: Cookie{Name: "WPSESS", Path: "/blog/"}, remote: "192.0.2.1:1234", id: idHex32,
			want: "WPSESS=" + idHex32 + "; Path=/blog/; HttpOnly; SameSite=Lax",
		},
		{
			name: "comma URL-encoded as PHP does", remote: "192.0.2.1:1234", id: idBits6,
			want: "PHPSESSID=Ab%2C-Zz09Ab%2C-Zz09Ab%2C-Zz09Ab%2C-; Path=/; HttpOnly; SameSite=Lax",
		},
		{
			name: "TLS is Secure", remote: "192.0.2.1:1234", tls: true, id: idHex32,
			want: "PHPSESSID=" + idHex32 + "; Path=/; HttpOnly; Secure; SameSite=Lax",
		},
		{
			name: "TLS is Secure whatever OverHTTPS says", cookie: Cookie{OverHTTPS: says(false)}, remote: "192.0.2.1:1234", tls: true, id: idHex32,
			want: "PHPSESSID=" + idHex32 + "; Path=/; HttpOnly; Secure; SameSite=Lax",
		},
		{
			name: "the server says HTTPS", cookie: Cookie{OverHTTPS: says(true)}, remote: "10.1.2.3:5555",
			headers: map[string]string{"X-Forwarded-Proto": "https"}, id: idHex32,
			want: "PHPSESSID=" + idHex32 + "; Path=/; HttpOnly; Secure; SameSite=Lax",
		},
		{
			name: "the server says not HTTPS", cookie: Cookie{OverHTTPS: says(false)}, remote: "192.0.2.1:1234",
			headers: map[string]string{"X-Forwarded-Proto": "https"}, id: idHex32,
			want: "PHPSESSID=" + idHex32 + "; Path=/; HttpOnly; SameSite=Lax",
		},
		{
			name: "no OverHTTPS: X-Forwarded-Proto is nobody's word", remote: "10.1.2.3:5555",
			headers: map[string]string{"X-Forwarded-Proto": "https"}, id: idHex32,
			want: "PHPSESSID=" + idHex32 + "; Path=/; HttpOnly; SameSite=Lax",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "/load-more.php", nil)
			r.RemoteAddr = tt.remote
			if tt.tls {
				r.TLS = &tls.ConnectionState{}
			}
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			phpCookie(tt.cookie).Set(w, r, tt.id)
			got := w.Result().Header.Values("Set-Cookie")
			if diff := cmp.Diff([]string{tt.want}, got); diff != "" {
				t.Errorf("Set-Cookie (-want +got):\n%s", diff)
			}
			if strings.Contains(got[0], "Expires") || strings.Contains(got[0], "Max-Age") || strings.Contains(got[0], "Domain") {
				t.Errorf("cookie must be a session cookie without domain: %s", got[0])
			}
		})
	}
}

func TestCookieID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		cookie Cookie
		header string // the request's Cookie header
		want   string
	}{
		{"absent", Cookie{}, "", ""},
		{"other cookies only", Cookie{}, "a=b; wordpress_test_cookie=WP", ""},
		{"plain", Cookie{}, "PHPSESSID=" + idHex32, idHex32},
		{"among others", Cookie{}, "a=b; PHPSESSID=" + idPHP26 + "; c=d", idPHP26},
		{"comma decoded", Cookie{}, "PHPSESSID=Ab%2C-Zz09Ab%2c-Zz09Ab%2C-Zz09Ab%2C-", idBits6},
		{"raw comma kept", Cookie{}, "PHPSESSID=" + idBits6, idBits6},
		{"plus is a space", Cookie{}, "PHPSESSID=a+b", "a b"},
		{"bad escape kept", Cookie{}, "PHPSESSID=100%zz%4", "100%zz%4"},
		{"first of two wins, as in PHP", Cookie{}, "PHPSESSID=" + idHex32 + "; PHPSESSID=" + idPHP26, idHex32},
		{"custom name", Cookie{Name: "SID"}, "PHPSESSID=" + idHex32 + "; SID=" + idPHP26, idPHP26},
		{"empty value", Cookie{}, "PHPSESSID=", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "/", nil)
			if tt.header != "" {
				r.Header.Set("Cookie", tt.header)
			}
			if diff := cmp.Diff(tt.want, phpCookie(tt.cookie).ID(r)); diff != "" {
				t.Errorf("ID (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCookieRoundTrip sends what Set wrote back as the browser would.
func TestCookieRoundTrip(t *testing.T) {
	t.Parallel()
	for _, id := range []string{idHex32, idPHP26, idBits6, strings.Repeat("a-", 128)} {
		w := httptest.NewRecorder()
		phpCookie(Cookie{}).Set(w, httptest.NewRequest("GET", "/", nil), id)
		r := httptest.NewRequest("GET", "/", nil)
		for _, c := range w.Result().Cookies() {
			r.AddCookie(c)
		}
		if got := phpCookie(Cookie{}).ID(r); got != id {
			t.Errorf("round trip of %q gave %q", id, got)
		}
	}
}

// FuzzCookieValue checks the PHP URL coding of cookie values: decoding
// what we encode gives the input back, and decoding anything never panics.
func FuzzCookieValue(f *testing.F) {
	for _, s := range []string{idBits6, "a+b", "%2C%2c", "%", "%4", "%zz", "é €", "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got := phpURLDecode(phpURLEncode(s)); got != s {
			t.Errorf("decode(encode(%q)) = %q", s, got)
		}
		enc := phpURLEncode(s)
		if strings.ContainsFunc(enc, func(r rune) bool {
			return !(r == '%' || r == '+' || r == '-' || r == '_' || r == '.' ||
				'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
		}) {
			t.Errorf("encode(%q) = %q has characters a cookie may not carry", s, enc)
		}
		if dec := phpURLDecode(s); ValidID(s) && dec != s {
			t.Errorf("valid id %q decoded to %q", s, dec)
		}
	})
}

func TestValidID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id   string
		want bool
	}{
		{idPHP26, true},
		{idHex32, true},
		{idBits6, true},
		{idShort, true},
		{strings.Repeat("Z", 256), true},
		{"", false},
		{idTooShr, false},
		{strings.Repeat("Z", 257), false},
		{idShort[:21] + " ", false},
		{idShort[:21] + "_", false},
		{idShort[:21] + ".", false},
		{idShort[:21] + "%", false},
		{idShort[:21] + "é", false},
		{idShort[:21] + "\x00", false},
	}
	for _, tt := range tests {
		if got := ValidID(tt.id); got != tt.want {
			t.Errorf("ValidID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestNewID(t *testing.T) {
	t.Parallel()
	seen := make(map[string]bool)
	for range 1000 {
		id, err := NewID()
		if err != nil {
			t.Fatal(err)
		}
		if len(id) != 32 || strings.Trim(id, "0123456789abcdef") != "" || !ValidID(id) {
			t.Fatalf("NewID() = %q, want 32 lowercase hex characters", id)
		}
		if seen[id] {
			t.Fatalf("NewID() repeated %q", id)
		}
		seen[id] = true
	}
}

// phpCookie is c with PHP's cookie name and path where c has none, as the
// server's configuration sets them by default.
func phpCookie(c Cookie) Cookie {
	if c.Name == "" {
		c.Name = "PHPSESSID"
	}
	if c.Path == "" {
		c.Path = "/"
	}
	return c
}
