package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
)

// scenario is one load pattern the bench drives against the server.
type scenario struct {
	name    string
	path    string   // e.g. /load-more.php?start=0&desiredPosts=2
	cookies []string // session ids sent round robin; none: a new session per request
	conns   int
	flags   []string // the server's flags beside the bench's own (none: its defaults)
	headers []string // request headers wrk sends, "Name: value"
	fresh   bool     // on a server process of its own, so the RSS peak is this scenario's
	// limit, when set, names the row of direct, in-process calls at the same
	// concurrency, run in rounds interleaved with the scenario: direct is one
	// call on goroutine conn.
	limit  string
	direct func(ctx context.Context, conn int) error
	// flood, when set, is the connections of a second wrk that floods the
	// server with distinct ranges over floodPosts posts (flood.lua) while
	// this scenario's visitors are measured, or asks floodPath over and
	// over when that is set.
	flood, floodPosts int
	floodPath         string
	floodHeaders      []string // request headers of the flood, "Name: value"
	floodEnv          []string // flood.lua's settings beside BENCH_POSTS, "NAME=value"
	// attack, when set, floods the server at addr from the bench's own
	// goroutines, for what wrk cannot send, until the stop it returns is
	// called; stop says what the attack was answered.
	attack func(ctx context.Context, addr string) (stop func() string)
	// twin, when set, makes the row this one is measured against, in
	// turns with it on the same server: the same visitors during a
	// /healthz flood of as many connections (healthzTwin), or with a
	// Redis that has room. The row must keep half its twin's rate and
	// at most maxP99 times its p99 (0: twice).
	twin   func(scenario) scenario
	maxP99 float64
	// before, when set, runs before each of the row's rounds, on its server.
	before func(ctx context.Context, b *bench, srv *serverProcess) error
	// redis, when set, is the Redis the row's server uses instead of the
	// bench's; the row sends its sessions, or none when noSession.
	redis     *fullRedis
	noSession bool
	// archive, when set, is the archive's query vars, e.g.
	// "category_name=news"; deep tells its lastPost page from its head.
	archive string
	deep    bool
	// versus, when set, is a scenario run on a server of its own, taking
	// turns with this one (see runVersus): two rows measured side by side.
	// wordpress: that server is WordPress's REST API (startWordPress), not
	// this server, and its path a page of its posts route.
	versus    *scenario
	wordpress bool
	// duration, when set, is the row's run time instead of -duration.
	duration time.Duration
	// requests, when set, is how many requests each connection sends a
	// round, answered however long they take (see askAll), instead of
	// wrk's for a time: a row of scans of seconds each.
	requests int
	// own, when set, measures the row by itself, on no server of the
	// bench's, and returns its rows: its own and its versus's.
	own func(ctx context.Context, b *bench) ([]result, error)
}

// json tells whether the answer must be a non-empty JSON array of posts.
func (sc scenario) json() bool { return strings.Contains(sc.path, "start=") }

// desiredPosts is what each JSON scenario asks for, and so what one answer
// adds to its session's posts_start (every page of them is full).
const desiredPosts = 2

// The rows the targets read; the table's conns column tells the rest.
const (
	wideName       = "JSON start=0, 64 conns"
	oneSessionName = "JSON start=0, one session"
	newSessionName = "JSON start=0, new session per request, -new-session-bytes 0"
	page200Name    = "page, posts_start=200"
	pageCapName    = "page at -max-page-posts, posts_start=1000, 16 conns"
	limitBName     = "limit B: direct Redis update"
	referenceName  = "JSON start=0, -cache-ttl 0"
	gzipName       = "JSON start=0, Accept-Encoding gzip"
	plainName      = "JSON start=0, no Accept-Encoding"
	calmName       = "visitors, start=0, before the flood"
	floodName      = "visitors during a deep-range flood, 64 attacking conns"
	cheapFloodName = "visitors during a /healthz flood, 64 conns"
	// Each measured in turns with its twin (floodRows has more): a
	// category's readers through the deep-range flood, and visitors
	// through a flood of the longest query strings and of many ranges.
	archiveFloodName   = "archive readers during a deep-range flood, 64 attacking conns"
	longQueryFloodName = "visitors during a long-query flood, 64 conns"
	rangesFloodName    = "visitors during a many-ranges flood, 64 conns"
	searchFloodName    = "visitors during a distinct-search flood, 64 conns"
)

// floodConns is the attackers' connections in floodName: twice the
// visitors', enough that an unbounded server would let the flood take
// most of the visitors' rate.
const floodConns = 64

// The deep pages are measured without the cache: what they compare is
// what each costs the database, which the cache would hide.
func offsetName(start int) string { return fmt.Sprintf("JSON start=%d, -cache-ttl 0", start) }
func keysetName(start int) string { return fmt.Sprintf("JSON start=%d, lastPost, -cache-ttl 0", start) }

// scenarios creates the sessions the scenarios send and returns the table,
// in the order it runs: the server with its defaults, then the scenarios
// on servers of their own. The first one is measured beside limit A,
// which calls store; setup finds the posts the rows name.
func scenarios(ctx context.Context, store *wpdb.Store, setup setupDB, sessions *session.Store, o options) ([]scenario, error) {
	c := o.conns
	visitors, err1 := newSessions(ctx, sessions, max(c, 64), 2)
	// The page scenarios get sessions of their own: the JSON scenarios
	// raise their visitors' posts_start, a page view leaves it alone. The
	// one-session scenario's counter is checked, so nothing else may move it.
	pagers, err2 := newSessions(ctx, sessions, c, 2)
	readers, err3 := newSessions(ctx, sessions, c, 200)
	one, err4 := newSessions(ctx, sessions, 1, 2)
	// lastPost names the post just before mid: the keyset page at mid.
	before, err5 := setup.store.Posts(ctx, blog.Page{Offset: o.posts/2 - 1, Limit: 1})
	capped, err6 := newSessions(ctx, sessions, 16, 1000) // ten desiredPosts=100 calls past the cap
	heads, deepArchives, err7 := archiveScenarios(ctx, setup, o)
	// The HEAD flood's sessions: past -max-page-posts, so every page has
	// as many posts whatever the count its badge shows.
	attackers, err8 := newSessions(ctx, sessions, floodConns, 300)
	types, err9 := typeScenarios(ctx, o) // a shop's database of its own (types.go)
	if err := errors.Join(err1, err2, err3, err4, err5, err6, err7, err8, err9); err != nil {
		return nil, err
	}
	json := func(start int) string {
		return fmt.Sprintf("/load-more.php?start=%d&desiredPosts=%d", start, desiredPosts)
	}
	// Limit A: what the server does for one JSON request, the page query and
	// the session update, without HTTP or JSON; limit B: the update alone.
	// Each goroutine updates its own visitor's session, as each connection
	// of the scenario does.
	limitA := func(start int) func(context.Context, int) error {
		return func(ctx context.Context, i int) error {
			posts, err := store.Posts(ctx, blog.Page{Offset: start, Limit: desiredPosts})
			if err == nil && len(posts) == 0 {
				err = fmt.Errorf("no posts at start %d", start)
			}
			if err == nil {
				_, err = sessions.Visit(ctx, session.Visitor{ID: visitors[i]}, len(posts))
			}
			return err
		}
	}
	limitB := func(ctx context.Context, i int) error {
		_, err := sessions.Visit(ctx, session.Visitor{ID: visitors[i]}, desiredPosts)
		return err
	}
	mid, deep := o.posts/2, o.posts-1000
	uncached := []string{"-cache-ttl", "0"}
	nameA := "limit A: direct SQL + Redis, start="
	table := []scenario{
		{name: fmt.Sprintf("JSON start=0, %d conns", c), path: json(0), cookies: visitors[:c], conns: c,
			limit: nameA + "0", direct: limitA(0)},
		// What compression costs the hot path: the ratio of these two, run
		// one after the other on the same server, each in one round (the
		// first row takes turns with its limit, so it is no match for them).
		{name: gzipName, path: json(0), cookies: visitors[:c], conns: c, headers: []string{"Accept-Encoding: gzip"}},
		{name: plainName, path: json(0), cookies: visitors[:c], conns: c},
	}
	// The archives' heads on the same server as the main listing's first
	// rows, with the cache as it runs.
	table = append(table, heads...)
	table = append(table, []scenario{
		{name: "JSON start=1000", path: json(1000), cookies: visitors[:c], conns: c},
		{name: "page, posts_start=2", path: "/load-more.php", cookies: pagers, conns: c},
		{name: oneSessionName, path: json(0), cookies: one, conns: c},
		// Every request stores a session (no budget): with one, a flood
		// of new sessions, as this row is, soon runs past it and is
		// carried in cookies instead, and the row would no longer measure
		// what creating a session costs.
		{name: newSessionName, path: json(0), conns: c, limit: limitBName, direct: limitB,
			flags: []string{"-new-session-bytes", "0"}},
		{name: page200Name, path: "/load-more.php", cookies: readers, conns: c, fresh: true},
		{name: pageCapName, path: "/load-more.php", cookies: capped, conns: 16, fresh: true},
		{name: wideName, path: json(0), cookies: visitors[:64], conns: 64, fresh: true},
		// The same visitors alone, then during a flood of distinct deep
		// ranges, on one server of their own (the row before is fresh):
		// the flood must not reach them.
		{name: calmName, path: json(0), cookies: visitors[:c], conns: c},
		{name: floodName, path: json(0), cookies: visitors[:c], conns: c, flood: floodConns, floodPosts: o.posts},
		// The same number of connections asking the cheapest thing there
		// is: what any 64 busy clients take of two cores, whatever they
		// ask. The deep-range flood is measured against it too.
		{name: cheapFloodName, path: json(0), cookies: visitors[:c], conns: c, flood: floodConns, floodPath: "/healthz"},
		{name: archiveFloodName, path: json(0) + "&" + denseArchive, conns: c, flood: floodConns, floodPosts: o.posts, twin: healthzTwin},
		{name: longQueryFloodName, path: json(0), cookies: visitors[:c], conns: c, flood: floodConns, floodPath: longQueryPath(), twin: healthzTwin},
		{name: rangesFloodName, path: json(0), cookies: visitors[:c], conns: c, flood: floodConns, floodPath: "/assets/vendor/mustache.mjs",
			floodHeaders: []string{manyRanges()}, twin: healthzTwin},
	}...)
	table = append(table, floodRows(c, visitors[:c], attackers, json(0))...)
	table = append(table, []scenario{
		// Each search is a scan of every post: admitted among the misses,
		// it must not reach the blog's visitors.
		{name: searchFloodName, path: json(0), cookies: visitors[:c], conns: c, flood: floodConns, floodPosts: o.posts,
			floodEnv: []string{"BENCH_FLOOD=search"}, twin: healthzTwin, maxP99: 1.5},
	}...)
	table = append(table, searchFloodRows(c, o.posts, visitors[:c], json(0), json(0)+"&"+denseArchive)...)
	table = append(table, types...)
	table = append(table, []scenario{
		// The reference: every request queries the database. Then whether
		// the database or the server sets the pace at a deep offset.
		{name: referenceName, path: json(0), cookies: visitors[:c], conns: c, flags: uncached},
		{name: offsetName(mid), path: json(mid), cookies: visitors[:c], conns: c, flags: uncached,
			limit: nameA + strconv.Itoa(mid), direct: limitA(mid)},
		{name: keysetName(mid), path: fmt.Sprintf("%s&lastPost=%d", json(mid), before[0].ID), cookies: visitors[:c], conns: c, flags: uncached},
	}...)
	// The archives' deep pages right after the main listing's, on the same
	// uncached server.
	table = append(table, deepArchives...)
	table = append(table, scenario{name: offsetName(deep), path: json(deep), cookies: visitors[:c], conns: c, flags: uncached})
	table = append(table, searchScenarios(o)...)
	widget, err := widgetScenarios(ctx, setup, visitors[:c], c)
	if err != nil {
		return nil, err
	}
	table = append(table, widget...)
	table = append(table, renderScenarios()...)
	languages, err := languageScenarios(visitors[:c], pagers, c)
	return append(table, languages...), err
}

// selectScenarios keeps the scenarios whose name matches pattern, all of
// them for "", so a quick run can measure a few rows side by side.
func selectScenarios(table []scenario, pattern string) []scenario {
	re := regexp.MustCompile(pattern) // parseOptions checked it
	return slices.DeleteFunc(table, func(sc scenario) bool { return !re.MatchString(sc.name) })
}

// newSessions creates n sessions whose posts_start is postsStart, as PHP
// would have left them, and returns their ids.
func newSessions(ctx context.Context, s *session.Store, n, postsStart int) ([]string, error) {
	ids := make([]string, n)
	for i := range ids {
		st, err := s.Visit(ctx, session.Visitor{}, 0)
		if err == nil && postsStart > st.PostsStart {
			st, err = s.Visit(ctx, session.Visitor{ID: st.ID}, postsStart-st.PostsStart)
		}
		if err != nil {
			return nil, fmt.Errorf("create a session: %w", err)
		}
		ids[i] = st.ID
	}
	return ids, nil
}

// pageRenderedAnew is the page's throughput at posts_start=200 on this
// machine when every view queries the database and renders its 200 posts
// (no posts cache, no rendered-page memo): the floor the page's target is
// five times, as a reader's long page must not cost a render each time.
const pageRenderedAnew = 141

// targets turns the figures into the performance goals; table names the
// rows.
func targets(rep *report, table []scenario) []target {
	row := func(name string) result {
		if i := slices.IndexFunc(rep.Scenarios, func(r result) bool { return r.Name == name }); i >= 0 {
			return rep.Scenarios[i]
		}
		return result{}
	}
	first, fresh, one, page := row(table[0].name), row(newSessionName), row(oneSessionName), row(page200Name)
	calm, flooded, cheaply := row(calmName), row(floodName), row(cheapFloodName)
	gzipped, plain := row(gzipName), row(plainName)
	limitA, limitB := row(table[0].limit), row(limitBName)
	mid := rep.QueryOffset
	offset, keyset, ref := row(offsetName(mid)), row(keysetName(mid)), row(referenceName)
	errs, worst := 0, ""
	for _, r := range rep.Scenarios {
		errs += r.Errors
		if r.Errors > 0 && worst == "" {
			worst = r.Name + ": " + r.ErrorSample
		}
	}
	rps := func(a, b result) string { return fmt.Sprintf("%.0f vs %.0f req/s", a.RPS, b.RPS) }
	q, e2, e200, f2, f200 := rep.QueryOffset, rep.Excerpt2KB, rep.Excerpt200KB, rep.Fetch2KB, rep.Fetch200KB
	return append([]target{
		newTarget(fmt.Sprintf("server vs limit A, start=0, %d conns", first.Connections), first.RPS/limitA.RPS, 0.70, false, "%", rps(first, limitA)),
		newTarget("new session per request vs limit B", fresh.RPS/limitB.RPS, 0.60, false, "%", rps(fresh, limitB)),
		newTarget("one session vs new session per request", one.RPS/fresh.RPS, 0.80, false, "%", rps(one, fresh)),
		newTarget("one session vs new session per request, p99", float64(one.P99)/float64(fresh.P99), 2, true, "×",
			fmt.Sprintf("%s vs %s", one.P99, fresh.P99)),
		newTarget("one session: lost increments", measured(float64(*cmp.Or(one.Lost, new(int))), one.Lost != nil), 0, true, "",
			fmt.Sprintf("posts_start vs +%d for each of %d JSON answers", desiredPosts, one.Requests)),
		newTarget("Redis round trips per JSON request, start=0", measured(first.RoundTrips, first.Redis != nil), 1.05, true, "", mix(first.Redis)),
		newTarget("MariaDB queries per 1000 warm requests, start=0", measured(first.SelectsPer1000, first.Redis != nil), 5, true, "",
			fmt.Sprintf("%s, instance-wide (others' add); %.0f with -cache-ttl 0", selectsCounter, ref.SelectsPer1000)),
		newTarget(page200Name, page.RPS, 5*pageRenderedAnew, false, "req/s", fmt.Sprintf("5× the %d req/s of a page rendered anew", pageRenderedAnew)),
		newTarget(page200Name+": server RSS peak", measured(page.RSSPeakMB, page.RSSPeakMB > 0), 64, true, "MB", "VmHWM of its own server"),
		newTarget("post of 200 KB vs 2 KB, fetch + excerpt", float64(f200)/float64(f2), 1.5, true, "×", fmt.Sprintf("%s vs %s per post", f200, f2)),
		newTarget(fmt.Sprintf("deferred join speed-up at offset %d", q), float64(rep.NaiveQuery)/float64(rep.DeferredJoin), 5, false, "×",
			fmt.Sprintf("naive %s vs deferred %s (mean)", rep.NaiveQuery, rep.DeferredJoin)),
		newTarget("shaping 200 KB vs 2 KB post", float64(e200)/float64(e2), 3, true, "×", fmt.Sprintf("%s vs %s per post", e200, e2)),
		newTarget(pageCapName+": server RSS peak", measured(row(pageCapName).RSSPeakMB, row(pageCapName).RSSPeakMB > 0), 64, true, "MB", "VmHWM of its own server"),
		newTarget("server RSS peak, 64 conns", measured(row(wideName).RSSPeakMB, row(wideName).RSSPeakMB > 0), 64, true, "MB", "VmHWM of its own server"),
		newTarget("errors, all scenarios", float64(errs), 0, true, "", cmp.Or(worst, fmt.Sprintf("%d scenarios", len(rep.Scenarios)))),
		newTarget(fmt.Sprintf("lastPost vs offset at start=%d", mid), keyset.RPS/offset.RPS, 50, false, "×", rps(keyset, offset)),
		newTarget("p99 / p50 at start=0", float64(first.P99)/float64(first.P50), 5, true, "×", fmt.Sprintf("p99 %s, p50 %s", first.P99, first.P50)),
		// The seeded posts make the hot answer 1 049 bytes, just over the
		// server's 1 KiB threshold: it is compressed (to 535 bytes), and the
		// ratio is what that costs the hot path.
		newTarget(gzipName+" vs none", gzipped.RPS/plain.RPS, 0.90, false, "%", rps(gzipped, plain)),
		// The page, the whole content of the posts whose start did not
		// decide their excerpt (the first time only), the featured images,
		// the categories and their parents a level at a time (two levels
		// in the seeded site): never one a post.
		// Visitors served from memory while 64 connections ask
		// distinct deep ranges, refused at once past the bound on queries.
		newTarget("visitors during a deep-range flood vs before it", flooded.RPS/calm.RPS, 0.50, false, "%", rps(flooded, calm)),
		newTarget("visitors during a deep-range flood, p99", measured(float64(flooded.P99)/float64(time.Millisecond), flooded.P99 > 0), 20, true, "ms",
			fmt.Sprintf("%d attacking conns; %s before it", floodConns, calm.P99)),
		// On two cores the two above measure the CPU that 64 connections
		// take from the visitors, whatever they ask (docs/performance.md). What
		// the deep ranges cost beyond that, their queries, is these two:
		// the same visitors during as big a flood of /healthz.
		newTarget("visitors during a deep-range flood vs a /healthz flood", flooded.RPS/cheaply.RPS, 0.80, false, "%", rps(flooded, cheaply)),
		newTarget("visitors' p99, deep-range flood vs /healthz flood", measured(float64(flooded.P99)/float64(cheaply.P99), cheaply.P99 > 0 && flooded.P99 > 0), 1.5, true, "×",
			fmt.Sprintf("p99 %s vs %s", flooded.P99, cheaply.P99)),
		newTarget(fmt.Sprintf("head refresh of %d posts with their cards: statements", headDepth),
			measured(float64(rep.HeadRefreshNext), rep.HeadRefreshNext > 0), 6, true, "",
			fmt.Sprintf("%d the first time, mean %s", rep.HeadRefreshFirst, rep.HeadRefresh)),
	}, slices.Concat(floodTargets(row, table), archiveTargets(row, table, first, keyset), typeTargets(row, first), searchTargets(row), widgetTargets(row), renderTargets(row), languageTargets(row), mixedTargets(row))...)
}

// measured is v, or NaN when it was not measured (ok false): the target
// is then missed, not met.
func measured(v float64, ok bool) float64 {
	if !ok {
		return math.NaN()
	}
	return v
}
