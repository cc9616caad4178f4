package session

import (
	"net/http"
	"strings"
)

// Cookie is PHP's session cookie. Name and Path are required: the server
// sets them from its configuration.
type Cookie struct {
	Name string // session.name; PHP's is "PHPSESSID"
	Path string // session.cookie_path; PHP's is "/"
	// OverHTTPS reports whether a request reached the site over HTTPS,
	// which makes the cookie Secure. Behind a proxy only the server knows,
	// as it knows which proxies' X-Forwarded-Proto to believe; nil counts a
	// direct TLS connection alone.
	OverHTTPS func(*http.Request) bool
}

// ID returns the session id the request's cookie carries, URL-decoded as
// PHP decodes cookie values ("%2C" → ","), or "" when there is none. The
// id is not validated: Visit and Peek do that.
func (c Cookie) ID(r *http.Request) string {
	// Go's r.Cookie, like PHP's $_COOKIE, keeps the first of several
	// cookies with one name.
	ck, err := r.Cookie(c.Name)
	if err != nil {
		return ""
	}
	return phpURLDecode(ck.Value)
}

// Set sends the session cookie for id the way PHP does (path, no domain,
// lifetime 0 so no Expires, value URL-encoded), plus HttpOnly and
// SameSite=Lax, and Secure when the request came over TLS, or OverHTTPS
// says it did.
func (c Cookie) Set(w http.ResponseWriter, r *http.Request, id string) {
	http.SetCookie(w, &http.Cookie{
		Name:     c.Name,
		Value:    phpURLEncode(id),
		Path:     c.Path,
		HttpOnly: true,
		SameSite: http.SameSiteLaxMode,
		Secure:   r.TLS != nil || c.OverHTTPS != nil && c.OverHTTPS(r),
	})
}

// phpURLEncode is PHP's urlencode, which ext/session applies to the id in
// Set-Cookie: letters, digits and "-_." stay, ' ' becomes '+', every other
// byte %XX with upper-case hex.
func phpURLEncode(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case 'a' <= ch && ch <= 'z', 'A' <= ch && ch <= 'Z', '0' <= ch && ch <= '9', ch == '-', ch == '_', ch == '.':
			b.WriteByte(ch)
		case ch == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hexDigits[ch>>4])
			b.WriteByte(hexDigits[ch&15])
		}
	}
	return b.String()
}

// phpURLDecode is PHP's urldecode, which fills $_COOKIE: '+' is a space,
// %XX a byte, and a '%' not followed by two hex digits stays as it is
// (where Go's url.QueryUnescape would fail).
func phpURLDecode(s string) string {
	if !strings.ContainsAny(s, "%+") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '+':
			b = append(b, ' ')
		case ch == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		default:
			b = append(b, ch)
		}
	}
	return string(b)
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
