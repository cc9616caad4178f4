package main

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"
	"golang.org/x/time/rate"
)

// The floods measured in turns with their twins, each row's visitors the
// same as its twin's.
const (
	// The floors of the long-query and many-ranges floods: the same
	// bytes asked of /healthz, and of the asset with no Range.
	longQueryFloorName = "visitors during a flood of /healthz with the same 63 KB query string, 64 conns"
	rangesFloorName    = "visitors during a flood of the same asset with a header as big but no Range, 64 conns"
	pagesFloodName     = "visitors during a flood of distinct archive pages, 64 conns"
	headFloodName      = "visitors during a HEAD flood of pages whose count changes, 64 conns"
	bigSessFloodName   = "visitors during a flood of one 3 MB session, 4 conns"
	// New visitors, a connection each, on a server at -max-conns 10000.
	idleFloodName = "new visitors (a connection each) during an idle flood: 10 000 keep-alives at -max-conns"
	// Visitors with a session and new ones (no cookie), during a
	// /healthz flood, on a Redis of the bench's own, full in turns with
	// having room.
	fullSessFloodName = "visitors with a session during a /healthz flood, Redis full (noeviction)"
	fullNewFloodName  = "new sessions during a /healthz flood, Redis full (noeviction)"
)

// floodCategories are the seeded site's twelve largest categories, each
// of some hundreds of posts at -n 20000: pages of 100 to 200 of them are
// full.
var floodCategories = []string{"news", "food-drink", "europe", "travel", "recipes", "technology",
	"asia", "science", "health", "france", "sports", "music"}

// idleConns is the idle flood's keep-alive connections, and the
// -max-conns of its server; idleRefill is how many a second the attacker
// reopens once closed: enough to keep 10 000 open against a 30 s
// -idle-timeout, as the attack that locked visitors out did.
const (
	idleConns  = 10_000
	idleRefill = 330
)

// floodRows are the rows of the floods above, in the order they run.
func floodRows(c int, visitors, attackers []string, json0 string) []scenario {
	full := &fullRedis{sessions: c}
	ranges := manyRanges()
	return []scenario{
		{name: longQueryFloorName, path: json0, cookies: visitors, conns: c, flood: floodConns, twin: healthzTwin,
			floodPath: "/healthz" + strings.TrimPrefix(longQueryPath(), "/load-more.php")},
		{name: rangesFloorName, path: json0, cookies: visitors, conns: c, flood: floodConns, twin: healthzTwin,
			floodPath: "/assets/vendor/mustache.mjs", floodHeaders: []string{"X-Padding: " + strings.Repeat("0", len(ranges)-len("Range: "))}},
		{name: pagesFloodName, path: json0, cookies: visitors, conns: c, flood: floodConns, twin: healthzTwin,
			floodEnv:     []string{"BENCH_FLOOD=pages", "BENCH_CATEGORIES=" + strings.Join(floodCategories, " ")},
			floodHeaders: []string{"Accept-Encoding: gzip"}},
		{name: headFloodName, path: json0, cookies: visitors, conns: c, twin: healthzTwin,
			attack: func(ctx context.Context, addr string) func() string {
				return headFlood(ctx, addr, floodConns, attackers)
			}},
		{name: bigSessFloodName, path: json0, cookies: visitors, conns: c, flood: 4, floodPath: json0, twin: healthzTwin,
			floodHeaders: []string{"Cookie: " + sessionCookie + "=" + bigSessionID}, before: storeBigSession},
		{name: idleFloodName, path: "/healthz", conns: c, flags: []string{"-max-conns", strconv.Itoa(idleConns)},
			headers: []string{"Connection: close"}, twin: healthzTwin,
			attack: func(ctx context.Context, addr string) func() string {
				return idleFlood(ctx, addr, idleConns, idleRefill)
			}},
		{name: fullSessFloodName, path: json0, conns: c, flood: floodConns, floodPath: "/healthz", redis: full, before: full.full, twin: full.roomTwin},
		{name: fullNewFloodName, path: json0, conns: c, flood: floodConns, floodPath: "/healthz", redis: full, noSession: true,
			before: full.full, twin: full.roomTwin},
	}
}

// healthzTwin is sc's visitors during a /healthz flood from as many
// connections as sc's flood: what any busy clients take of the cores,
// whatever they ask.
func healthzTwin(sc scenario) scenario {
	t := sc
	t.name = "twin of " + sc.name + ": a /healthz flood instead"
	if sc.attack != nil {
		t.flood = floodConns
	}
	t.floodPath, t.floodHeaders, t.floodEnv, t.floodPosts, t.attack, t.before, t.twin = "/healthz", nil, nil, 0, nil, nil, nil
	return t
}

// floodTargets holds each row with a twin to half the twin's rate and
// to its maxP99 times the twin's p99, twice by default.
func floodTargets(row func(string) result, table []scenario) []target {
	var out []target
	for _, sc := range table {
		if sc.twin == nil {
			continue
		}
		twin := sc.twin(sc).name
		r, base := row(sc.name), row(twin)
		maxP99 := cmp.Or(sc.maxP99, 2)
		out = append(out,
			newTarget(sc.name+" vs its twin", r.RPS/base.RPS, 0.50, false, "%", fmt.Sprintf("%.0f vs %.0f req/s", r.RPS, base.RPS)),
			newTarget(sc.name+", p99 vs its twin", measured(float64(r.P99)/float64(base.P99), r.P99 > 0 && base.P99 > 0), maxP99, true, "×",
				fmt.Sprintf("p99 %s vs %s", r.P99, base.P99)))
	}
	return out
}

// longQueryPath is the JSON endpoint with 6 000 junk pairs, a 63 KB query
// string: answered 414 before any of it is decoded.
func longQueryPath() string {
	var b strings.Builder
	b.WriteString("/load-more.php?start=0")
	for i := range 6000 {
		fmt.Fprintf(&b, "&j%d=%d", i, i)
	}
	return b.String()
}

// manyRanges is a Range header of 5 000 one-byte ranges: answered with
// the whole file, as more than a few ranges are.
func manyRanges() string {
	var b strings.Builder
	b.WriteString("Range: bytes=0-0")
	for i := 1; i < 5000; i++ {
		fmt.Fprintf(&b, ",%d-%d", i*2, i*2)
	}
	return b.String()
}

// rawRequest is one request as written on the wire, gzip welcome.
func rawRequest(method, addr, path, cookie string) []byte {
	return fmt.Appendf(nil, "%s %s HTTP/1.1\r\nHost: %s\r\nCookie: %s=%s\r\nAccept-Encoding: gzip\r\n\r\n",
		method, path, addr, sessionCookie, cookie)
}

// headFlood floods the server at addr from conns keep-alive connections,
// each on a session of attackers (past -max-page-posts), until the
// returned stop is called: a JSON request of one post, which changes the
// session's count, then a HEAD of the page with posts=100..200, so no
// page is one rendered before. It is the bench's own Go, not wrk: wrk
// waits for the body a HEAD's Content-Length announces. stop returns the
// answers' statuses.
func headFlood(ctx context.Context, addr string, conns int, attackers []string) (stop func() string) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[string]int{}
	for i := range conns {
		cookie := attackers[i%len(attackers)]
		wg.Go(func() {
			var c net.Conn
			var br *bufio.Reader
			for n := 0; ctx.Err() == nil; n++ {
				if c == nil {
					var err error
					if c, err = (&net.Dialer{}).DialContext(ctx, "tcp", addr); err != nil {
						time.Sleep(10 * time.Millisecond)
						continue
					}
					context.AfterFunc(ctx, func() { c.Close() })
					br = bufio.NewReader(c)
				}
				method, path := http.MethodGet, "/load-more.php?start=0&desiredPosts=1"
				if n%2 == 1 {
					method, path = http.MethodHead, fmt.Sprintf("/load-more.php?posts=%d", 100+rand.IntN(101))
				}
				status, ok := exchange(c, br, method, rawRequest(method, addr, path, cookie))
				if !ok {
					c.Close()
					c = nil
				}
				if ctx.Err() == nil {
					mu.Lock()
					statuses[method+" "+strconv.Itoa(status)]++
					mu.Unlock()
				}
			}
		})
	}
	return func() string {
		cancel()
		wg.Wait()
		return fmt.Sprintf("HEAD flood answered (0: none): %v", statuses)
	}
}

// exchange writes req on c and reads its answer through br; it returns
// the answer's status (0: none) and whether the connection is still
// usable.
func exchange(c net.Conn, br *bufio.Reader, method string, req []byte) (status int, ok bool) {
	if _, err := c.Write(req); err != nil {
		return 0, false
	}
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		return 0, false
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, err == nil && !resp.Close
}

// idleFlood opens n keep-alive connections to addr, each from one of the
// loopback addresses 127.0.2.1 on, 50 a client (under
// -max-conns-per-client), has one /healthz answered on each and leaves
// it idle; it reopens those the server closes, at most refill a second,
// until the returned stop is called, which says how many were opened
// and reopened. It returns once all n were opened, or after 30 s.
func idleFlood(ctx context.Context, addr string, n, refill int) (stop func() string) {
	ctx, cancel := context.WithCancel(ctx)
	limit := rate.NewLimiter(rate.Limit(refill), 1)
	var wg sync.WaitGroup
	var first, reopened, failed atomic.Int64
	allOpen := make(chan struct{})
	for i := range n {
		local := &net.TCPAddr{IP: net.IPv4(127, 0, byte(2+i/50/250), byte(1+i/50%250))}
		wg.Go(func() {
			isFirst := true
			for ctx.Err() == nil {
				if !isFirst && limit.Wait(ctx) != nil {
					return
				}
				c, err := (&net.Dialer{LocalAddr: local}).DialContext(ctx, "tcp", addr)
				if err == nil {
					stopped := context.AfterFunc(ctx, func() { c.Close() })
					if _, ok := exchange(c, bufio.NewReader(c), http.MethodGet, []byte("GET /healthz HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")); ok {
						if isFirst {
							if first.Add(1) == int64(n) {
								close(allOpen)
							}
							isFirst = false
						} else {
							reopened.Add(1)
						}
						c.Read(make([]byte, 1)) // idle until the server closes it
					} else if ctx.Err() == nil {
						failed.Add(1)
					}
					stopped()
					c.Close()
				} else if ctx.Err() == nil {
					failed.Add(1)
				}
				if isFirst {
					time.Sleep(10 * time.Millisecond)
				}
			}
		})
	}
	select {
	case <-allOpen:
	case <-ctx.Done():
	case <-time.After(30 * time.Second):
	}
	return func() string {
		cancel()
		wg.Wait()
		return fmt.Sprintf("idle flood: %d of %d opened and answered, then %d reopened; %d dials or answers failed",
			first.Load(), n, reopened.Load(), failed.Load())
	}
}

// bigSessionID is the session a PHP page grew to bigSessionBytes, that
// the big-session flood clicks on.
const (
	bigSessionID    = "b16b16b16b16b16b16b16b16b16b16b1"
	bigSessionBytes = 3 << 20
)

// storeBigSession stores the big session under the bench's prefix: its
// posts_start first, as this server creates it, then a list of short
// records a PHP page appended, in PHP's "php" format.
func storeBigSession(ctx context.Context, b *bench, _ *serverProcess) error {
	var list strings.Builder
	n := 0
	for ; list.Len() < bigSessionBytes; n++ {
		item := "viewed:" + strconv.Itoa(n)
		fmt.Fprintf(&list, `i:%d;s:%d:"%s";`, n, len(item), item)
	}
	value := "posts_start|i:2;history|a:" + strconv.Itoa(n) + ":{" + list.String() + "}"
	c, err := redis.DialURLContext(ctx, b.o.redis)
	if err != nil {
		return fmt.Errorf("big session: %w", err)
	}
	defer c.Close()
	if _, err := redis.DoContext(c, ctx, "SETEX", b.prefix+bigSessionID, 1440, value); err != nil {
		return fmt.Errorf("big session: %w", err)
	}
	return nil
}
