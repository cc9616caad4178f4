package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/wploadmore/wploadmore/scripts/seed/fixture"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
)

type options struct {
	db               string
	redis            string
	posts            int
	conns            int
	bounds           bounds
	out              string
	cpuProfile       string
	memProfile       string
	serverCPUProfile string
	loadGen          string // "auto", "wrk" or "vegeta"
	wrkThreads       int
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.db, "db", "mysql://root@127.0.0.1:3306/wploadmore_bench", "database `URL` to seed (when incomplete) and measure; its own database, not a site's")
	fs.StringVar(&o.redis, "redis", "redis://127.0.0.1:6379", "Redis `URL`; the bench uses its own key prefix and removes its keys")
	fs.IntVar(&o.posts, "n", 100_000, "published posts in the database")
	fs.IntVar(&o.conns, "connections", 32, "concurrent connections of most scenarios")
	fs.DurationVar(&o.bounds.duration, "duration", 8*time.Second, "longest run of each scenario")
	fs.IntVar(&o.bounds.requests, "requests", 50_000, "most requests of each scenario")
	fs.StringVar(&o.out, "out", "bench-results.json", "`file` to write the figures to")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the direct loop (the limit) to `file`")
	fs.StringVar(&o.memProfile, "memprofile", "", "write a heap profile of the bench to `file` at the end")
	fs.StringVar(&o.loadGen, "loadgen", "auto", "load `generator`: wrk (a C program, far less CPU per request; bounded by -duration only), vegeta (a Go library inside the bench), or auto: wrk when it is on PATH, else vegeta")
	fs.IntVar(&o.wrkThreads, "wrk-threads", 2, "wrk's threads (-t); on 2 cores 1 and 2 give the server the same throughput within noise (2 by 3%)")
	fs.StringVar(&o.serverCPUProfile, "server-cpuprofile", "", "write a CPU profile of the server during the first start=0 round to `file` (through its -pprof listener)")
	if err := fs.Parse(args[1:]); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.posts < 2000:
		return o, fmt.Errorf("-n: %d is under 2000, too few for the deep-offset scenarios", o.posts)
	case o.conns < 1:
		return o, fmt.Errorf("-connections: %d is not positive", o.conns)
	case o.bounds.duration <= 0 || o.bounds.requests < 1:
		return o, errors.New("-duration and -requests must be positive")
	case o.loadGen != "auto" && o.loadGen != "wrk" && o.loadGen != "vegeta":
		return o, fmt.Errorf("-loadgen: %q is not auto, wrk or vegeta", o.loadGen)
	case o.wrkThreads < 1:
		return o, fmt.Errorf("-wrk-threads: %d is not positive", o.wrkThreads)
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "bench: "+format+"\n", a...) }
	dbCfg, err := wpdb.ParseURL(o.db)
	if err != nil {
		return fmt.Errorf("-db: %w", err)
	}
	dir, err := os.MkdirTemp("", "wploadmore-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	gen, genName, err := chooseLoadGenerator(o, dir)
	if err != nil {
		return err
	}
	logf("load generator: %s", genName)

	logf("building the server and the seed script")
	serverBin, seedBin, err := buildBinaries(ctx, dir, stderr)
	if err != nil {
		return err
	}
	logf("seeding %d posts (skipped when the database holds them already)", o.posts)
	seed := exec.CommandContext(ctx, seedBin, "-db", o.db, "-n", strconv.Itoa(o.posts))
	seed.Stdout, seed.Stderr = stderr, stderr
	if err := seed.Run(); err != nil {
		return fmt.Errorf("seed: %w", err)
	}

	rep := &report{Date: time.Now(), Machine: machine(), LoadGenerator: genName}
	rep.LoadAvg[0] = loadAverage()
	rep.Database.Driver, rep.Database.Posts = dbCfg.Driver, o.posts
	if err := databaseSize(ctx, dbCfg, rep); err != nil {
		return err
	}

	// The bench's own store and sessions: the direct loop and the query
	// timings use them; the prefix keeps our keys apart.
	store, err := wpdb.Open(ctx, dbCfg)
	if err != nil {
		return err
	}
	defer store.Close()
	prefix := "wploadmore_bench:" + randomHex(6) + ":"
	sessions, err := session.OpenRedis(ctx, o.redis, session.Config{KeyPrefix: prefix}, nil)
	if err != nil {
		return fmt.Errorf("-redis: %w", err)
	}
	defer sessions.Close()
	defer func() {
		if err := deletePrefix(o.redis, prefix); err != nil {
			logf("could not remove the bench's Redis keys %s*: %v", prefix, err)
		}
	}()
	visitors, err := newSessions(ctx, sessions, max(o.conns, 64), 2)
	if err != nil {
		return err
	}
	// The page scenarios get sessions of their own: the JSON scenarios
	// raise their visitors' posts_start, a page view leaves it alone.
	pagers, err := newSessions(ctx, sessions, o.conns, 2)
	if err != nil {
		return err
	}
	readers, err := newSessions(ctx, sessions, o.conns, 200)
	if err != nil {
		return err
	}

	serverArgs := []string{"-db", o.db, "-redis", o.redis, "-session-prefix", prefix}
	pprofAddr := ""
	if o.serverCPUProfile != "" {
		if !serverHasFlag(ctx, serverBin, "pprof") {
			return errors.New("-server-cpuprofile: the server has no -pprof flag")
		}
		if pprofAddr, err = freeLoopbackAddr(); err != nil {
			return err
		}
	}
	firstArgs := serverArgs
	if pprofAddr != "" {
		firstArgs = append(serverArgs[:len(serverArgs):len(serverArgs)], "-pprof", pprofAddr)
	}
	srv, err := startServer(ctx, serverBin, dir, "server", firstArgs, nil)
	if err != nil {
		return err
	}
	defer srv.stop()
	if _, ok := gen.(*wrkDriver); ok {
		logf("server up at %s (pid %d); each scenario runs for %ds (wrk: whole seconds, no request bound)", srv.baseURL, srv.pid(), wrkSeconds(o.bounds.duration))
	} else {
		logf("server up at %s (pid %d); each scenario runs for %s or %d requests", srv.baseURL, srv.pid(), o.bounds.duration, o.bounds.requests)
	}

	json := func(start int) string {
		return "/load-more.php?start=" + strconv.Itoa(start) + "&desiredPosts=2"
	}
	c := o.conns
	mid, deep := o.posts/2, o.posts-1000
	startZero := fmt.Sprintf("JSON start=0, %d conns", c)
	scenarios := []httpScenario{
		{name: startZero, path: json(0), cookies: visitors[:c], conns: c, json: true},
		{name: "JSON start=1000", path: json(1000), cookies: visitors[:c], conns: c, json: true},
		{name: fmt.Sprintf("JSON start=%d", mid), path: json(mid), cookies: visitors[:c], conns: c, json: true},
		{name: fmt.Sprintf("JSON start=%d", deep), path: json(deep), cookies: visitors[:c], conns: c, json: true},
		{name: "page, posts_start=2", path: "/load-more.php", cookies: pagers, conns: c},
		{name: "page, posts_start=200", path: "/load-more.php", cookies: readers, conns: c},
		{name: "JSON start=0, one session reused", path: json(0), cookies: visitors[:1], conns: c, json: true},
		{name: "JSON start=0, new session per request", path: json(0), conns: c, json: true},
		{name: "JSON start=0, 64 conns", path: json(0), cookies: visitors[:64], conns: 64, json: true},
	}
	// Warm the pools and caches so the first scenario is not the one that
	// pays for them.
	if _, err := gen.run(ctx, srv.baseURL, srv.pid(), scenarios[0], bounds{2 * time.Second, 4000}, "PHPSESSID"); err != nil {
		return err
	}
	// The server at start=0 and the limit are compared by a target: they
	// run in interleaved rounds, so a neighbour's burst on this shared
	// machine weighs on both alike.
	logf("scenario: %s, interleaved with the limit (direct SQL + Redis loop)", startZero)
	server, limit := &measurement{}, &measurement{}
	// Whole seconds, as wrk's -d takes them: both sides run as long.
	round := bounds{max((o.bounds.duration / limitRounds).Round(time.Second), time.Second), max(o.bounds.requests/limitRounds, 1)}
	for i := range limitRounds {
		profileDone := make(chan error, 1)
		if i == 0 && pprofAddr != "" {
			go func() { profileDone <- fetchProfile(ctx, pprofAddr, round.duration, o.serverCPUProfile) }()
		} else {
			profileDone <- nil
		}
		m, err := gen.run(ctx, srv.baseURL, srv.pid(), scenarios[0], round, "PHPSESSID")
		if err != nil {
			return err
		}
		if err := <-profileDone; err != nil {
			return fmt.Errorf("-server-cpuprofile: %w", err)
		}
		server.add(m)
		stopProfile, err := startCPUProfile(o.cpuProfile)
		if err != nil {
			return err
		}
		limit.add(runDirect(ctx, store, sessions, visitors[:c], 0, c, round))
		if err := stopProfile(); err != nil {
			return err
		}
		o.cpuProfile = "" // profile the first round only: one file
	}
	rep.Scenarios = append(rep.Scenarios, server.result(startZero, c), limit.result(limitName(c), c))
	for _, sc := range scenarios[1:] {
		logf("scenario: %s", sc.name)
		m, err := gen.run(ctx, srv.baseURL, srv.pid(), sc, o.bounds, "PHPSESSID")
		if err != nil {
			return err
		}
		rep.Scenarios = append(rep.Scenarios, m.result(sc.name, sc.conns))
		if sc.path == json(mid) {
			// The same floor at a deep offset: whether the database or the
			// server sets the pace there.
			logf("scenario: the limit at start=%d", mid)
			name := fmt.Sprintf("limit: direct SQL + Redis, start=%d", mid)
			rep.Scenarios = append(rep.Scenarios, runDirect(ctx, store, sessions, visitors[:c], mid, c, o.bounds).result(name, c))
		}
	}
	if err := srv.stop(); err != nil {
		return err
	}

	cacheRan := false
	if serverHasFlag(ctx, serverBin, "cache-ttl") {
		logf("scenario: micro-cache on (LOADMORE_CACHE_TTL=1s)")
		cached, err := startServer(ctx, serverBin, dir, "server-cache", serverArgs, []string{"LOADMORE_CACHE_TTL=1s"})
		if err != nil {
			return err
		}
		// What the cache buys where it can: the same first page for every
		// visitor, and the page view's long range.
		for _, sc := range []httpScenario{scenarios[0], scenarios[5]} {
			sc.name += ", cache 1s"
			m, err := gen.run(ctx, cached.baseURL, cached.pid(), sc, o.bounds, "PHPSESSID")
			if err != nil {
				cached.stop()
				return err
			}
			rep.Scenarios = append(rep.Scenarios, m.result(sc.name, sc.conns))
		}
		if err := cached.stop(); err != nil {
			return err
		}
		cacheRan = true
	} else {
		logf("the server has no -cache-ttl flag yet: the cache scenario is skipped")
	}

	logf("timing the deferred join and the naive LIMIT/OFFSET at offset %d", mid)
	if err := timeQueries(ctx, store, dbCfg, mid, rep); err != nil {
		return err
	}
	logf("timing content shaping of 2 KB and 200 KB posts")
	timeExcerpt(rep)

	rep.LoadAvg[1] = loadAverage()
	rep.Targets = targets(rep, c, cacheRan)
	fmt.Fprint(stdout, rep.markdown())
	if err := writeJSON(o.out, rep); err != nil {
		return err
	}
	logf("figures written to %s", o.out)
	return writeHeapProfile(o.memProfile)
}

// chooseLoadGenerator returns the load generator -loadgen asks for and its
// name for the report; wrk.lua goes into dir. It returns an error when
// -loadgen wrk is set and wrk is not on PATH.
func chooseLoadGenerator(o options, dir string) (loadGenerator, string, error) {
	bin, err := exec.LookPath("wrk")
	switch {
	case o.loadGen == "vegeta" || (o.loadGen == "auto" && err != nil):
		return vegetaDriver{}, "vegeta (in the bench process)", nil
	case err != nil:
		return nil, "", fmt.Errorf("-loadgen wrk: %w (apt-get install wrk)", err)
	}
	w, err := newWrkDriver(bin, dir, o.wrkThreads)
	if err != nil {
		return nil, "", err
	}
	version := "wrk"
	if out, _ := exec.Command(bin, "-v").CombinedOutput(); len(out) > 0 {
		// "wrk debian/4.1.0-3+b2 [epoll] Copyright ...": name, version, engine.
		if f := strings.Fields(string(out)); len(f) >= 3 {
			version = strings.Join(f[:3], " ")
		}
	}
	return w, fmt.Sprintf("%s, %d thread(s), a separate process", version, min(o.wrkThreads, o.conns)), nil
}

// limitRounds is how many rounds the server at start=0 and the limit take
// turns in.
const limitRounds = 3

func limitName(conns int) string { return fmt.Sprintf("limit: direct SQL + Redis, %d conns", conns) }

// databaseSize fills the report's database figures.
func databaseSize(ctx context.Context, cfg wpdb.Config, rep *report) error {
	s, err := wpdb.OpenSeeder(ctx, cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	rows, size, err := s.Size(ctx)
	if err != nil {
		return err
	}
	rep.Database.Rows, rep.Database.SizeMB = rows, float64(size)/(1<<20)
	return nil
}

// newSessions creates n sessions whose posts_start is postsStart, as PHP
// would have left them, and returns their ids.
func newSessions(ctx context.Context, s *session.Store, n, postsStart int) ([]string, error) {
	ids := make([]string, n)
	for i := range ids {
		st, err := s.PostsStart(ctx, "")
		if err != nil {
			return nil, fmt.Errorf("create a session: %w", err)
		}
		if postsStart > st.PostsStart {
			if st, err = s.AddPostsStart(ctx, st.ID, postsStart-st.PostsStart); err != nil {
				return nil, fmt.Errorf("create a session: %w", err)
			}
		}
		ids[i] = st.ID
	}
	return ids, nil
}

// deletePrefix removes every key the run created.
func deletePrefix(url, prefix string) error {
	c, err := redis.DialURL(url, redis.DialConnectTimeout(5*time.Second), redis.DialReadTimeout(30*time.Second))
	if err != nil {
		return err
	}
	defer c.Close()
	cursor := "0"
	for {
		reply, err := redis.Values(c.Do("SCAN", cursor, "MATCH", prefix+"*", "COUNT", 1000))
		if err != nil {
			return err
		}
		var keys []any
		if _, err := redis.Scan(reply, &cursor, &keys); err != nil {
			return err
		}
		if len(keys) > 0 {
			if _, err := c.Do("UNLINK", keys...); err != nil {
				return err
			}
		}
		if cursor == "0" {
			return nil
		}
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// timeQueries measures the page query against the naive one it replaced.
func timeQueries(ctx context.Context, store *wpdb.Store, cfg wpdb.Config, offset int, rep *report) error {
	rep.Queries.Offset = offset
	d, n, err := timeQuery(ctx, func(ctx context.Context) error {
		_, err := store.Posts(ctx, offset, 2)
		return err
	}, true, 200, 3*time.Second)
	if err != nil {
		return fmt.Errorf("deferred join: %w", err)
	}
	rep.Queries.Deferred, rep.Queries.Runs.Deferred = ms(d), n
	db, err := sql.Open(cfg.Driver, cfg.DSN) // a driver wpdb registers: go-sql-driver for MariaDB
	if err != nil {
		return err
	}
	defer db.Close()
	// The naive query reads every skipped row (seconds at a deep offset):
	// no warm-up run, and one or two timed runs.
	d, n, err = timeQuery(ctx, func(ctx context.Context) error {
		_, err := naivePosts(ctx, db, cfg.TablePrefix, offset, 2)
		return err
	}, false, 2, 10*time.Second)
	if err != nil {
		return fmt.Errorf("naive query: %w", err)
	}
	rep.Queries.Naive, rep.Queries.Runs.Naive = ms(d), n
	return nil
}

// timeExcerpt benchmarks content shaping on a 2 KB and a 200 KB post of
// the seed's kind, as `go test -bench Excerpt ./wpdb` does.
func timeExcerpt(rep *report) {
	e := wpdb.NewExcerpter()
	bench := func(post string) testing.BenchmarkResult {
		return testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.Excerpt(post)
			}
		})
	}
	small, large := bench(fixture.Post(1, 2<<10, false)), bench(fixture.Post(1, 200<<10, false))
	rep.Excerpt.Small, rep.Excerpt.Large = ms(small.NsPerOp()), ms(large.NsPerOp())
	rep.Excerpt.SmallAlloc, rep.Excerpt.LargeAlloc = small.AllocsPerOp(), large.AllocsPerOp()
}

// targets turns the figures into the goals.
func targets(rep *report, conns int, cacheRan bool) []target {
	find := func(name string) *result {
		for i := range rep.Scenarios {
			if rep.Scenarios[i].Name == name {
				return &rep.Scenarios[i]
			}
		}
		return nil
	}
	var ts []target
	server, limit := find(fmt.Sprintf("JSON start=0, %d conns", conns)), find(limitName(conns))
	if server != nil && limit != nil && limit.RPS > 0 {
		ts = append(ts, newTarget(fmt.Sprintf("server throughput vs the limit (start=0, %d conns)", conns),
			server.RPS/limit.RPS, 0.70, false, "%", fmt.Sprintf("%.0f vs %.0f req/s", server.RPS, limit.RPS)))
	}
	if rep.Queries.Deferred > 0 {
		ts = append(ts, newTarget(fmt.Sprintf("deferred join speed-up at offset %d", rep.Queries.Offset),
			float64(rep.Queries.Naive)/float64(rep.Queries.Deferred), 5, false, "×",
			fmt.Sprintf("naive %s vs deferred %s (mean)", rep.Queries.Naive, rep.Queries.Deferred)))
	}
	if rep.Excerpt.Small > 0 {
		ts = append(ts, newTarget("shaping 200 KB vs 2 KB post",
			float64(rep.Excerpt.Large)/float64(rep.Excerpt.Small), 3, true, "×",
			fmt.Sprintf("%s vs %s per post", rep.Excerpt.Large, rep.Excerpt.Small)))
	}
	if r := find("JSON start=0, 64 conns"); r != nil && r.RSSPeakMB != nil {
		ts = append(ts, newTarget("server RSS peak, 64 conns", *r.RSSPeakMB, 64, true, "MB", "VmRSS sampled every 20 ms"))
	}
	errs, worst := 0, ""
	for _, r := range rep.Scenarios {
		errs += r.Errors
		if r.Errors > 0 && worst == "" {
			worst = r.Name + ": " + r.ErrorSample
		}
	}
	if worst == "" {
		worst = fmt.Sprintf("%d scenarios", len(rep.Scenarios))
	}
	ts = append(ts, newTarget("errors, all scenarios", float64(errs), 0, true, "", worst))
	if server != nil && server.P50 > 0 {
		ts = append(ts, newTarget("p99 / p50 at start=0", float64(server.P99)/float64(server.P50), 5, true, "×",
			fmt.Sprintf("p99 %s, p50 %s", server.P99, server.P50)))
	}
	if !cacheRan {
		ts = append(ts, target{Name: "micro-cache scenario", Skipped: true, Detail: "server has no -cache-ttl flag"})
	}
	return ts
}

func writeJSON(path string, rep *report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// startCPUProfile profiles the bench process until the returned function
// is called; with no path it does nothing.
func startCPUProfile(path string) (func() error, error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// fetchProfile saves a CPU profile of the server taken over d (at least a
// second) from its pprof listener at addr.
func fetchProfile(ctx context.Context, addr string, d time.Duration, path string) error {
	seconds := max(int(d.Round(time.Second)/time.Second), 1)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		"http://"+addr+"/debug/pprof/profile?seconds="+strconv.Itoa(seconds), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET profile: %s", resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeHeapProfile(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	runtime.GC()
	return pprof.WriteHeapProfile(f)
}
