package main

import (
	"net/http"
	"net/netip"
	"strings"
)

// maxLoggedRemoteAddr cuts a peer address that is no IP (a Unix socket's
// peer is "@" or empty), which the log then shows as it is.
const maxLoggedRemoteAddr = 64

// maxForwardedEntries is how many X-Forwarded-For entries, empty ones
// included, the walk reads: no site sits behind more proxies than that, and
// a header of tens of KB of trusted-looking entries is read no further.
const maxForwardedEntries = 16

// clientIP is the visitor's address for the request log. It is the
// connection's peer, unless the peer is one of trusted (-trusted-proxies):
// then it is the rightmost address of X-Forwarded-For that is not a
// trusted proxy, walking from the peer towards the visitor. Entries left
// of that one are whatever the client wrote, so they are never believed;
// and without a trusted peer nobody's X-Forwarded-For is. An entry that is
// no address stops the walk at the last trusted proxy, which is then what
// is logged, as it is when the walk reaches maxForwardedEntries. Zones are
// dropped and IPv4-mapped addresses unmapped, so the result is at most an
// IPv6 address's 39 bytes.
func clientIP(r *http.Request, trusted []netip.Prefix) string {
	peer, ok := parseHostAddr(r.RemoteAddr)
	if !ok {
		s, _ := cutForLog(r.RemoteAddr, maxLoggedRemoteAddr)
		return s
	}
	if !isTrusted(peer, trusted) {
		return peer.String()
	}
	client := peer
	forwarded := r.Header.Values("X-Forwarded-For")
	entries := 0
	// Proxies append, so the last header line and its last entry are the
	// nearest hop; a proxy may also add a line of its own.
	for i := len(forwarded) - 1; i >= 0; i-- {
		rest := forwarded[i]
		for rest != "" {
			if entries++; entries > maxForwardedEntries {
				return client.String()
			}
			var entry string
			if at := strings.LastIndexByte(rest, ','); at >= 0 {
				rest, entry = rest[:at], rest[at+1:]
			} else {
				rest, entry = "", rest
			}
			entry = strings.TrimSpace(entry)
			if entry == "" {
				continue
			}
			addr, ok := parseHostAddr(entry)
			if !ok {
				return client.String()
			}
			client = addr
			if !isTrusted(addr, trusted) {
				return client.String()
			}
		}
	}
	return client.String()
}

// overHTTPS reports whether the visitor reached the site over HTTPS: the
// connection is TLS, or its peer is one of trusted (-trusted-proxies) and
// says so in X-Forwarded-Proto. Anybody else could set that header, so
// nobody else's is believed. It is what makes the session cookie Secure.
func overHTTPS(r *http.Request, trusted []netip.Prefix) bool {
	if r.TLS != nil {
		return true
	}
	proto := r.Header.Get("X-Forwarded-Proto")
	if proto == "" || len(trusted) == 0 {
		return false
	}
	// Behind several proxies the first entry is the visitor's protocol.
	first, _, _ := strings.Cut(proto, ",")
	if !strings.EqualFold(strings.TrimSpace(first), "https") {
		return false
	}
	peer, ok := parseHostAddr(r.RemoteAddr)
	return ok && isTrusted(peer, trusted)
}

// parseHostAddr reads "ip", "ip:port" or "[ipv6]:port" (RemoteAddr's form,
// and what some proxies write in X-Forwarded-For).
func parseHostAddr(s string) (netip.Addr, bool) {
	var addr netip.Addr
	if ap, err := netip.ParseAddrPort(s); err == nil {
		addr = ap.Addr()
	} else if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")); err == nil {
		addr = a
	} else {
		return netip.Addr{}, false
	}
	// A zone names the interface a link-local peer came in on; no prefix
	// contains an address that has one, so it is dropped before the check.
	return addr.Unmap().WithZone(""), true
}

func isTrusted(addr netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}
