package main

import (
	"net/http"
	"net/netip"

	"github.com/wploadmore/wploadmore/server/proxy"
)

// searchClient is the client whose share of the kept rankings r's search
// counts against (see listing.WithClient): its visitor's address, as
// -max-conns-per-client counts it, an IPv6 one's /64; behind a trusted
// proxy, the visitor's address the proxy forwards. "" when r came over no
// IP (a Unix socket): all such requests share one share.
func searchClient(r *http.Request, trusted proxy.Trusted) string {
	addr, ok := trusted.Client(r)
	if !ok {
		return ""
	}
	if addr.Is6() {
		return netip.PrefixFrom(addr, 64).Masked().String()
	}
	return addr.String()
}
