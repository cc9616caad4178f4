package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
)

// scenario is one load pattern the bench drives against the server.
type scenario struct {
	name    string
	path    string   // e.g. /load-more.php?start=0&desiredPosts=2
	cookies []string // session ids sent round robin; none: a new session per request
	conns   int
	cache   bool   // against the server with its micro-cache on (-cache-ttl 1s)
	limit   string // when set, the limit at start runs in rounds interleaved with the scenario, in a row of this name
	start   int    // the JSON start, for the limit
}

// json tells whether the answer must be a non-empty JSON array of posts.
func (sc scenario) json() bool { return strings.Contains(sc.path, "start=") }

const wideName = "JSON start=0, 64 conns" // its server RSS is a target

func keysetName(start int) string { return fmt.Sprintf("JSON start=%d, lastPost", start) }

// scenarios creates the sessions the scenarios send and returns the table;
// the first one is measured beside the limit for the throughput target.
func scenarios(ctx context.Context, store *wpdb.Store, sessions *session.Store, o options) ([]scenario, error) {
	c := o.conns
	visitors, err1 := newSessions(ctx, sessions, max(c, 64), 2)
	// The page scenarios get sessions of their own: the JSON scenarios
	// raise their visitors' posts_start, a page view leaves it alone.
	pagers, err2 := newSessions(ctx, sessions, c, 2)
	readers, err3 := newSessions(ctx, sessions, c, 200)
	// lastPost names the post just before mid: the keyset page at mid.
	before, err4 := store.Posts(ctx, o.posts/2-1, 1)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return nil, err
	}
	json := func(start int) string { return fmt.Sprintf("/load-more.php?start=%d&desiredPosts=2", start) }
	limit, mid, deep := "limit: direct SQL + Redis, ", o.posts/2, o.posts-1000
	return []scenario{
		{name: fmt.Sprintf("JSON start=0, %d conns", c), path: json(0), cookies: visitors[:c], conns: c, limit: fmt.Sprintf("%s%d conns", limit, c)},
		{name: "JSON start=1000", path: json(1000), cookies: visitors[:c], conns: c},
		// Whether the database or the server sets the pace at a deep offset.
		{name: fmt.Sprintf("JSON start=%d", mid), path: json(mid), cookies: visitors[:c], conns: c, limit: fmt.Sprintf("%sstart=%d", limit, mid), start: mid},
		{name: keysetName(mid), path: fmt.Sprintf("%s&lastPost=%d", json(mid), before[0].ID), cookies: visitors[:c], conns: c},
		{name: fmt.Sprintf("JSON start=%d", deep), path: json(deep), cookies: visitors[:c], conns: c},
		{name: "page, posts_start=2", path: "/load-more.php", cookies: pagers, conns: c},
		{name: "page, posts_start=200", path: "/load-more.php", cookies: readers, conns: c},
		{name: "JSON start=0, one session reused", path: json(0), cookies: visitors[:1], conns: c},
		{name: "JSON start=0, new session per request", path: json(0), conns: c},
		{name: wideName, path: json(0), cookies: visitors[:64], conns: 64},
		// What the cache buys where it can: the same first page for every
		// visitor, and the page view's long range.
		{name: fmt.Sprintf("JSON start=0, %d conns, cache 1s", c), path: json(0), cookies: visitors[:c], conns: c, cache: true},
		{name: "page, posts_start=200, cache 1s", path: "/load-more.php", cookies: readers, conns: c, cache: true},
	}, nil
}

// newSessions creates n sessions whose posts_start is postsStart, as PHP
// would have left them, and returns their ids.
func newSessions(ctx context.Context, s *session.Store, n, postsStart int) ([]string, error) {
	ids := make([]string, n)
	for i := range ids {
		st, err := s.PostsStart(ctx, "")
		if err == nil && postsStart > st.PostsStart {
			st, err = s.AddPostsStart(ctx, st.ID, postsStart-st.PostsStart)
		}
		if err != nil {
			return nil, fmt.Errorf("create a session: %w", err)
		}
		ids[i] = st.ID
	}
	return ids, nil
}

// bench runs the scenarios: the server it starts, wrk, and what the limit
// calls.
type bench struct {
	o          options
	wrk        *wrk
	dir        string // the binaries, wrk.lua and the server logs
	serverBin  string
	serverArgs []string // -db, -redis, -session-prefix
	store      *wpdb.Store
	sessions   *session.Store
	logf       func(format string, a ...any)
}

// runAll runs the plain server's scenarios, then the cached server's (the
// table lists them so), and returns their rows. Each server first runs the
// first scenario for two seconds, so no scenario pays for filling the
// pools and caches.
func (b *bench) runAll(ctx context.Context, table []scenario) ([]result, error) {
	var rows []result
	for _, cache := range []bool{false, true} {
		args, name := b.serverArgs, "server"
		if cache {
			args, name = append(slices.Clip(args), "-cache-ttl", "1s"), "server-cache"
		}
		srv, err := startServer(ctx, b.serverBin, filepath.Join(b.dir, name+".log"), args)
		if err != nil {
			return nil, err
		}
		b.logf("%s up at %s; each scenario runs for %ds", name, srv.baseURL, wrkSeconds(b.o.duration))
		_, err = b.wrk.run(ctx, srv, table[0], 2*time.Second)
		for _, sc := range table {
			if sc.cache != cache || err != nil {
				continue
			}
			b.logf("scenario: %s", sc.name)
			var r []result
			r, err = b.runScenario(ctx, srv, sc)
			rows = append(rows, r...)
		}
		if err := errors.Join(err, srv.stop()); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// limitRounds is how many rounds a scenario and its limit take turns in, so
// a neighbour's burst on this shared machine weighs on both alike.
const limitRounds = 3

// runScenario drives sc against srv and returns its row; with a limit, in
// rounds of whole seconds (as wrk's -d takes them) taking turns with the
// limit at sc.start, and the limit's row too.
func (b *bench) runScenario(ctx context.Context, srv *serverProcess, sc scenario) ([]result, error) {
	if sc.limit == "" {
		m, err := b.wrk.run(ctx, srv, sc, b.o.duration)
		if err != nil {
			return nil, err
		}
		return []result{m.finish(sc.name, sc.conns)}, nil
	}
	server, limit := &result{}, &result{}
	round := max((b.o.duration / limitRounds).Round(time.Second), time.Second)
	for range limitRounds {
		m, err := b.wrk.run(ctx, srv, sc, round)
		if err != nil {
			return nil, err
		}
		server.add(m)
		limit.add(runDirect(ctx, b.store, b.sessions, sc.cookies, sc.start, sc.conns, round))
	}
	return []result{server.finish(sc.name, sc.conns), limit.finish(sc.limit, sc.conns)}, nil
}

// targets turns the figures into the goals; first is the scenario
// measured beside the limit at start=0.
func targets(rep *report, first scenario) []target {
	row := func(name string) result {
		if i := slices.IndexFunc(rep.Scenarios, func(r result) bool { return r.Name == name }); i >= 0 {
			return rep.Scenarios[i]
		}
		return result{}
	}
	server, limit, rss := row(first.name), row(first.limit), row(wideName).RSSPeakMB
	mid := rep.QueryOffset
	offset, keyset := row(fmt.Sprintf("JSON start=%d", mid)), row(keysetName(mid))
	if rss == 0 {
		rss = math.NaN() // not measured: the target is missed, not met
	}
	errs, worst := 0, ""
	for _, r := range rep.Scenarios {
		errs += r.Errors
		if r.Errors > 0 && worst == "" {
			worst = r.Name + ": " + r.ErrorSample
		}
	}
	q, e2, e200 := rep.QueryOffset, rep.Excerpt2KB, rep.Excerpt200KB
	return []target{
		newTarget(fmt.Sprintf("server throughput vs the limit (start=0, %d conns)", first.conns), server.RPS/limit.RPS, 0.70, false, "%",
			fmt.Sprintf("%.0f vs %.0f req/s", server.RPS, limit.RPS)),
		newTarget(fmt.Sprintf("deferred join speed-up at offset %d", q), float64(rep.NaiveQuery)/float64(rep.DeferredJoin), 5, false, "×",
			fmt.Sprintf("naive %s vs deferred %s (mean)", rep.NaiveQuery, rep.DeferredJoin)),
		newTarget("shaping 200 KB vs 2 KB post", float64(e200)/float64(e2), 3, true, "×", fmt.Sprintf("%s vs %s per post", e200, e2)),
		newTarget("server RSS peak, 64 conns", rss, 64, true, "MB", "VmHWM, the kernel's own peak"),
		newTarget("errors, all scenarios", float64(errs), 0, true, "", cmp.Or(worst, fmt.Sprintf("%d scenarios", len(rep.Scenarios)))),
		newTarget(fmt.Sprintf("lastPost vs offset at start=%d", mid), keyset.RPS/offset.RPS, 50, false, "×",
			fmt.Sprintf("%.0f vs %.0f req/s", keyset.RPS, offset.RPS)),
		newTarget("p99 / p50 at start=0", float64(server.P99)/float64(server.P50), 5, true, "×", fmt.Sprintf("p99 %s, p50 %s", server.P99, server.P50)),
	}
}
