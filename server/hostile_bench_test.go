package main

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// junkQuery is a query string of n junk pairs after start=0, as a flood
// sends it: "start=0&a0=x&a1=x…".
func junkQuery(n int) string {
	var b strings.Builder
	b.WriteString("start=0")
	for i := range n {
		b.WriteString("&a")
		b.WriteString(strings.Repeat("x", 1+i%5))
		b.WriteString("=x")
	}
	return b.String()
}

// manyRanges is a Range header of n one-byte ranges, every other byte.
func manyRanges(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strconv.Itoa(2*i) + "-" + strconv.Itoa(2*i)
	}
	return "bytes=" + strings.Join(parts, ",")
}

// BenchmarkHostileRequest is what one request costs the whole handler
// when a header or the query string is as long as the server takes,
// against a normal request to the same URL (go test -bench Hostile
// -benchmem ./server).
func BenchmarkHostileRequest(b *testing.B) {
	h, id := benchHandler(b, time.Minute, 2)
	const target = "/load-more.php?start=10&desiredPosts=2"
	for _, bc := range []struct {
		name   string
		target string
		header string
		value  string
	}{
		{"normal", target, "", ""},
		{"accept-encoding 58KB", target, "Accept-Encoding", strings.Repeat("x;q=0.5, ", 58<<10/9)},
		{"query 63KB 6000 pairs", "/load-more.php?" + junkQuery(6000), "", ""},
		{"query 8KB", "/load-more.php?" + junkQuery(8<<10/6), "", ""},
		{"cookie 60KB 12000 cookies", target, "Cookie", strings.Repeat("a=b; ", 60<<10/5)},
		{"cookie 60KB 2900 cookies", target, "Cookie", strings.Repeat("abcdefghijklmnop=b; ", 2900)},
		{"if-none-match 60KB", "/assets/vendor/mustache.mjs", "If-None-Match", strings.Repeat(`"x", `, 60<<10/5)},
		{"healthz", "/healthz", "", ""},
		{"healthz 63KB query", "/healthz?" + junkQuery(6000), "", ""},
		{"asset", "/assets/vendor/mustache.mjs", "", ""},
		{"asset 5000 ranges", "/assets/vendor/mustache.mjs", "Range", manyRanges(5000)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, bc.target, nil)
			req.AddCookie(&http.Cookie{Name: "PHPSESSID", Value: id})
			if bc.header == "Cookie" {
				req.Header.Set("Cookie", bc.value+"PHPSESSID="+id)
			} else if bc.header != "" {
				req.Header.Set(bc.header, bc.value)
			}
			b.ReportAllocs()
			var written int
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				written = w.Body.Len()
			}
			b.ReportMetric(float64(written), "body-bytes")
		})
	}
}
