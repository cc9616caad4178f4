// Package proxy reads what the proxies an operator trusts
// (-trusted-proxies) say of the visitor behind them: the visitor's address
// in X-Forwarded-For and the scheme in X-Forwarded-Proto. Anybody else
// could send those headers, so nobody else's are believed.
package proxy

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// MaxForwardedEntries is how many X-Forwarded-For entries, empty ones
// included, Client reads: no site sits behind more proxies than that, and
// a header of tens of KB of trusted-looking entries is read no further.
const MaxForwardedEntries = 16

// Trusted are the proxies whose headers are believed, as CIDRs.
type Trusted []netip.Prefix

// Parse reads a comma-separated list of addresses and CIDRs, as
// -trusted-proxies takes it; an address is its own /32 or /128.
func Parse(s string) (Trusted, error) {
	var prefixes Trusted
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !strings.Contains(p, "/") {
			addr, err := netip.ParseAddr(p)
			if err != nil {
				return nil, fmt.Errorf("%q is not an address or CIDR", p)
			}
			prefixes = append(prefixes, netip.PrefixFrom(addr, addr.BitLen()))
			continue
		}
		prefix, err := netip.ParsePrefix(p)
		if err != nil {
			return nil, fmt.Errorf("%q is not an address or CIDR", p)
		}
		prefixes = append(prefixes, prefix.Masked())
	}
	return prefixes, nil
}

// Contains reports whether addr is a trusted proxy's.
func (t Trusted) Contains(addr netip.Addr) bool {
	for _, p := range t {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// Client is the visitor's address. It is the connection's peer, unless
// the peer is trusted: then it is the rightmost address of
// X-Forwarded-For that is not a trusted proxy, walking from the peer
// towards the visitor. Entries left of that one are whatever the client
// wrote, so they are never believed; and without a trusted peer nobody's
// X-Forwarded-For is. An entry that is no address stops the walk at the
// last trusted proxy, which is then the answer, as it is when the walk
// reaches MaxForwardedEntries. Zones are dropped and IPv4-mapped
// addresses unmapped. It reports false when the peer is no IP address (a
// Unix socket's peer is "@" or empty).
func (t Trusted) Client(r *http.Request) (netip.Addr, bool) {
	peer, ok := ParseAddr(r.RemoteAddr)
	if !ok {
		return netip.Addr{}, false
	}
	if !t.Contains(peer) {
		return peer, true
	}
	client := peer
	forwarded := r.Header.Values("X-Forwarded-For")
	entries := 0
	// Proxies append, so the last header line and its last entry are the
	// nearest hop; a proxy may also add a line of its own.
	for i := len(forwarded) - 1; i >= 0; i-- {
		rest := forwarded[i]
		for rest != "" {
			if entries++; entries > MaxForwardedEntries {
				return client, true
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
			addr, ok := ParseAddr(entry)
			if !ok {
				return client, true
			}
			client = addr
			if !t.Contains(addr) {
				return client, true
			}
		}
	}
	return client, true
}

// OverHTTPS reports whether the visitor reached the site over HTTPS: the
// connection is TLS, or its peer is trusted and says so in
// X-Forwarded-Proto. It is what makes the session cookie Secure.
func (t Trusted) OverHTTPS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	proto := r.Header.Get("X-Forwarded-Proto")
	if proto == "" || len(t) == 0 {
		return false
	}
	// Behind several proxies the first entry is the visitor's protocol.
	first, _, _ := strings.Cut(proto, ",")
	if !strings.EqualFold(strings.TrimSpace(first), "https") {
		return false
	}
	peer, ok := ParseAddr(r.RemoteAddr)
	return ok && t.Contains(peer)
}

// ParseAddr reads "ip", "ip:port" or "[ipv6]:port" (RemoteAddr's form,
// and what some proxies write in X-Forwarded-For), with its zone dropped
// and an IPv4-mapped address unmapped.
func ParseAddr(s string) (netip.Addr, bool) {
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
