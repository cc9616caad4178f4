package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/sitegen"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

func TestResult(t *testing.T) {
	t.Parallel()
	r := &result{Requests: 7, Errors: 1, ErrorSample: "first", elapsed: time.Second, rss: 16 << 20, cpu: 200 * time.Millisecond,
		count: count{redis: map[string]int64{"watch": 7, "get": 7}, selects: 7}, ok: 6, checked: true}
	for i := 7; i >= 1; i-- { // 1..7 ms, out of order
		r.lat = append(r.lat, time.Duration(i)*time.Millisecond)
	}
	// The sum of requests, not of samples: wrk adds samples of its own.
	r.add(&result{lat: []time.Duration{10 * time.Millisecond, 8 * time.Millisecond, 9 * time.Millisecond}, Requests: 2, Errors: 1,
		ErrorSample: "second", elapsed: time.Second, rss: 48 << 20, cpu: 300 * time.Millisecond,
		count: count{redis: map[string]int64{"evalsha": 2}, selects: 1}, ok: 1, lost: 1, checked: true})
	// A limit's round counts nothing, and leaves the counts alone.
	r.add(&result{})
	got := r.finish("s", 4)
	got.lat = nil
	want := result{Name: "s", Connections: 4, Requests: 9, Errors: 2, ErrorSample: "first", Seconds: 2, RPS: 3.5,
		P50: ms(5 * time.Millisecond), P90: ms(9 * time.Millisecond), P99: ms(10 * time.Millisecond),
		RSSPeakMB: 48, CPUPer1000: 500.0 / 9, elapsed: 2 * time.Second, rss: 48 << 20, cpu: 500 * time.Millisecond,
		Redis: map[string]float64{"watch": 7.0 / 9, "get": 7.0 / 9, "evalsha": 2.0 / 9}, RoundTrips: 16.0 / 9, SelectsPer1000: 8000.0 / 9,
		Lost: new(1), count: count{redis: map[string]int64{"watch": 7, "get": 7, "evalsha": 2}, selects: 8}, ok: 7, lost: 1, checked: true}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{}, count{}), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("finish (-want +got):\n%s", diff)
	}
	if p := percentile(nil, 50); p != 0 {
		t.Errorf("percentile of nothing = %v", p)
	}
}

func TestMarkdown(t *testing.T) {
	t.Parallel()
	rep := &report{Scenarios: []result{{Name: "JSON", Connections: 2, Requests: 30, RPS: 10.4, P50: ms(340 * time.Microsecond),
		P90: ms(2345 * time.Microsecond), P99: ms(2500 * time.Millisecond), RSSPeakMB: 24.04, CPUPer1000: 0.5,
		Redis: map[string]float64{"watch": 1}, RoundTrips: 2, SelectsPer1000: 1000.04}, {Name: "limit"}},
		Targets: []target{
			newTarget("ratio met", 0.8, 0.7, false, "%", "x"),
			newTarget("ratio missed", 0.5, 0.7, false, "%", "x"),
			newTarget("at most, met at the bound", 64, 64, true, "MB", ""),
			newTarget("times", 12.345, 5, false, "×", ""),
			newTarget("throughput", 701.6, 5*141, false, "req/s", "5× 141"),
			newTarget("a count", 3, 0, true, "", "s: 503"),
			newTarget("a ratio", 2.2583, 1.05, true, "", ""),
			newTarget("divided by zero", math.Inf(1), 0.7, false, "%", "x"),
			newTarget("nothing measured", math.NaN(), 5, true, "×", "x"),
		}}
	want := `| scenario | conns | requests | req/s | p50    | p90     | p99    | errors | server RSS peak (MB) | server CPU s / 1000 req | Redis round trips / req | SQL SELECTs / 1000 req |
| ---      | ---   | ---      | ---   | ---    | ---     | ---    | ---    | ---                  | ---                     | ---                     | ---                    |
| JSON     | 2     | 30       | 10    | 340 µs | 2.35 ms | 2.50 s | 0      | 24.0                 | 0.500                   | 2.00                    | 1000.0                 |
| limit    | 0     | 0        | 0     | 0 µs   | 0 µs    | 0 µs   | 0      | —                    | —                       | —                       | —                      |

| target                    | measured  | goal        | result  | how             |
| ---                       | ---       | ---         | ---     | ---             |
| ratio met                 | 80%       | ≥ 70%       | **met** | x               |
| ratio missed              | 50%       | ≥ 70%       | missed  | x               |
| at most, met at the bound | 64.00 MB  | ≤ 64.00 MB  | **met** |                 |
| times                     | 12.35 ×   | ≥ 5.00 ×    | **met** |                 |
| throughput                | 702 req/s | ≥ 705 req/s | missed  | 5× 141          |
| a count                   | 3         | ≤ 0         | missed  | s: 503          |
| a ratio                   | 2.26      | ≤ 1.05      | missed  |                 |
| divided by zero           | 0%        | ≥ 70%       | missed  | not measured: x |
| nothing measured          | 0.00 ×    | ≤ 5.00 ×    | missed  | not measured: x |

3 of 9 targets met.
`
	got := rep.markdown()
	if diff := cmp.Diff(want, got[strings.Index(got, "\n\n")+2:]); diff != "" {
		t.Errorf("markdown (-want +got):\n%s", diff)
	}
}

// TestTargets: each target finds the rows it compares in the table that
// scenarios returns. Every row and timing is 1, so a target reading a row
// that is not there measures 0, or nothing, where it should measure 1.
func TestTargets(t *testing.T) {
	t.Parallel()
	testkit.NeedPackage(t, "wordpress-l10n", filepath.Join(debianLanguages, "de_DE.mo")) // the language rows
	ctx, cfg, r := context.Background(), wpdbtest.MySQL(t), sessiontest.New(t)
	insertArchiveSite(t, ctx, cfg, 40)
	insertOptions(t, ctx, cfg) // the widget rows' home origin
	sessions, err := session.OpenRedis(ctx, r.URL, session.Config{KeyPrefix: r.Prefix, Format: session.FormatPHP,
		MaxLifetime: time.Minute, InitialPostsStart: 2, OpTimeout: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sessions.Close() })
	store := wpdbtest.Store(t, cfg)
	setup := setupDB{store: store, db: wpdbtest.OpenDB(t, cfg), prefix: cfg.TablePrefix}
	t.Cleanup(func() { dropShop(t, cfg) })
	table, err := scenarios(ctx, store, setup, sessions, options{posts: 40, conns: 2, db: wpdbtest.URL(t, cfg)})
	if err != nil {
		t.Fatal(err)
	}
	one := ms(time.Millisecond)
	rep := &report{QueryOffset: 20, DeferredJoin: one, NaiveQuery: one, Excerpt2KB: one, Excerpt200KB: one, Fetch2KB: one, Fetch200KB: one,
		HeadRefreshFirst: 1, HeadRefreshNext: 1, HeadRefresh: one}
	for _, sc := range table {
		rep.Scenarios = append(rep.Scenarios, result{Name: sc.name, RPS: 1, P50: one, P99: one, RSSPeakMB: 1,
			Redis: map[string]float64{"evalsha": 1}, RoundTrips: 1, SelectsPer1000: 1, Lost: new(0)})
		if sc.limit != "" {
			rep.Scenarios = append(rep.Scenarios, result{Name: sc.limit, RPS: 1})
		}
		if sc.versus != nil {
			rep.Scenarios = append(rep.Scenarios, result{Name: sc.versus.name, RPS: 1, P50: one})
		}
		if sc.twin != nil {
			rep.Scenarios = append(rep.Scenarios, result{Name: sc.twin(sc).name, RPS: 1, P50: one, P99: one})
		}
	}
	seen := map[string]bool{}
	for _, r := range rep.Scenarios {
		if seen[r.Name] {
			t.Errorf("two rows named %q: targets read the first", r.Name)
		}
		seen[r.Name] = true
	}
	for _, tg := range targets(rep, table) {
		want := 1.0
		if strings.Contains(tg.Name, "lost") || strings.Contains(tg.Name, "errors") {
			want = 0
		}
		if tg.Measured != want || strings.HasPrefix(tg.Detail, "not measured") {
			t.Errorf("target %q measured %v (%s), want %v", tg.Name, tg.Measured, tg.Detail, want)
		}
	}
}

// insertOptions writes the seeded site's options.
func insertOptions(t *testing.T, ctx context.Context, cfg wpdb.Config) {
	t.Helper()
	s, err := wpsite.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.InsertOptions(ctx, sitegen.Options()); err != nil {
		t.Fatal(err)
	}
}

// dropShop drops the shop database the type row writes beside cfg's.
func dropShop(t *testing.T, cfg wpdb.Config) {
	t.Helper()
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	root := mc.Clone()
	root.DBName = ""
	if err := dropDatabase(context.Background(), root, shopName(mc.DBName)); err != nil {
		t.Error(err)
	}
}

// insertArchiveSite writes n posts by anna-schmidt, each filed under the
// bench's dense and sparse categories and its tag, with the seeded site's
// terms and users: what the archive rows look up.
func insertArchiveSite(t *testing.T, ctx context.Context, cfg wpdb.Config, n int) {
	t.Helper()
	posts := wpdbtest.Posts(n)
	for i := range posts {
		posts[i].Author = 2
	}
	wpdbtest.Insert(t, cfg, posts...)
	s, err := wpsite.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	terms := sitegen.Terms(1, 0)
	var rels []wpsite.TermRelationship
	for k, term := range terms {
		if term.Slug == "news" || term.Slug == "archive-oddities" || term.Slug == "quick-recipes" {
			terms[k].Count = int64(n)
			for _, p := range posts {
				rels = append(rels, wpsite.TermRelationship{ObjectID: p.ID, TermTaxonomyID: term.ID})
			}
		}
	}
	if err := errors.Join(s.InsertUsers(ctx, sitegen.Users()), s.InsertTerms(ctx, terms), s.InsertTermRelationships(ctx, rels)); err != nil {
		t.Fatal(err)
	}
}

// TestWatchProcess: the peak RSS and the CPU time of this very process
// while it touches 64 MB and spins.
func TestWatchProcess(t *testing.T) {
	stop, err := watchProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	block := make([]byte, 64<<20)
	for i := range block {
		block[i] = byte(i)
	}
	// Spin until the kernel counts 150 ms of CPU for this process: on a
	// loaded machine wall-clock time says nothing of it.
	for start := cpuTime(t); cpuTime(t)-start < 150*time.Millisecond; {
	}
	m, err := stop()
	if err != nil {
		t.Fatal(err)
	}
	if m.rss < 64<<20 || m.cpu < 100*time.Millisecond {
		t.Errorf("watched peak %d bytes and %v of CPU; want at least 64 MiB and 100ms", m.rss, m.cpu)
	}
	if block[len(block)-1] != byte(len(block)-1) {
		t.Fatal("block lost")
	}
}

func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestNaivePostsMatchesPosts: the naive query pages through the same posts
// in the same order as the store's deferred join, ties on post_date and
// rows to skip included, so the bench times the two on the same work.
func TestNaivePostsMatchesPosts(t *testing.T) {
	t.Parallel()
	ctx, cfg := context.Background(), wpdbtest.MySQL(t)
	const n = 40
	rows := wpdbtest.Posts(n)
	for i := range rows {
		rows[i].Date = fmt.Sprintf("2024-01-%02d 10:00:00", 1+i%10) // four posts a date: ID breaks ties
	}
	const later = "2030-01-01 00:00:00" // first, were they not skipped
	wpdbtest.Insert(t, cfg, append(rows, wpsite.Post{Date: later, Status: "draft"}, wpsite.Post{Date: later, Type: "page"},
		wpsite.Post{Date: later, Status: "inherit", Type: "revision", Parent: 1})...)
	store, db := wpdbtest.Store(t, cfg), wpdbtest.OpenDB(t, cfg)
	for _, off := range []int{0, 1, 17, 38, 39, 40, 41} {
		posts, err := store.Posts(ctx, blog.Page{Offset: off, Limit: 3})
		if err != nil || len(posts) != min(3, max(n-off, 0)) {
			t.Fatalf("Posts(%d, 3) = %d posts of %d, %v", off, len(posts), n, err)
		}
		var want []uint64
		for _, p := range posts {
			want = append(want, p.ID)
		}
		got, err := naivePosts(ctx, db, cfg.TablePrefix, off, 3)
		if err != nil {
			t.Fatalf("naivePosts(%d, 3): %v", off, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("offset %d: IDs (-Posts +naivePosts):\n%s", off, diff)
		}
	}
}

// TestTimeFetch: the excerpt timing reads each post from a database of its
// own, which is gone afterwards. The throwaways are named after the test's
// database, so other clients' databases do not count.
func TestTimeFetch(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: times queries on a seeded database")
	}
	t.Parallel()
	ctx, cfg := context.Background(), wpdbtest.MySQL(t)
	db := wpdbtest.OpenDB(t, cfg)
	mc, err := mysql.ParseDSN(cfg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	pattern := strings.ReplaceAll(mc.DBName, "_", `\_`) + `\_2kb\_%`
	throwaways := func() (n int) {
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name LIKE ?`, pattern).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := throwaways()
	if d, err := timeFetch(ctx, cfg, 2<<10, 2<<10); err != nil || len(d) != 2 || d[0] <= 0 || d[1] <= 0 {
		t.Fatalf("timeFetch = %v, %v", d, err)
	}
	if after := throwaways(); after != before {
		t.Errorf("%d throwaway databases before timeFetch, %d after", before, after)
	}
}

// TestArchiveSize: a category's size is its count, and an author's, which
// has none, is counted: their published posts only, of their own.
func TestArchiveSize(t *testing.T) {
	t.Parallel()
	ctx, cfg := context.Background(), wpdbtest.MySQL(t)
	insertArchiveSite(t, ctx, cfg, 12)
	others := wpdbtest.Posts(19)[12:] // IDs 13 to 19
	for i := range others {
		others[i].Author = 1 // admin
	}
	drafts := wpdbtest.Posts(21)[19:] // the admin's too, but not listed
	for i := range drafts {
		drafts[i].Author, drafts[i].Status = 1, "draft"
	}
	wpdbtest.Insert(t, cfg, append(others, drafts...)...)
	store := wpdbtest.Store(t, cfg)
	setup := setupDB{store: store, db: wpdbtest.OpenDB(t, cfg), prefix: cfg.TablePrefix}
	terms, err := store.Terms(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		vars string
		want int
	}{
		{denseArchive, 12},
		{authorArchive, 12},
		{"author_name=admin", 7},
	} {
		a := wpdbtest.ResolveArchive(t, terms, tt.vars)
		got, err := archiveSize(ctx, setup, terms, a, tt.vars)
		if err != nil || got != tt.want {
			t.Errorf("archiveSize(%s) = %d, %v; want %d", tt.vars, got, err, tt.want)
		}
		// What the server lists: its page at size-1 holds the last one.
		if posts, err := store.Posts(ctx, blog.Page{In: a, Offset: got - 1, Limit: 2}); err != nil || len(posts) != 1 {
			t.Errorf("%s: %d posts at offset %d, %v; want 1", tt.vars, len(posts), got-1, err)
		}
	}
}

// TestFloodTargetsP99: a flood row's p99 is held to its own bound, twice
// its twin's when it states none; at 1.8× its twin's, a row bound to
// 1.5× misses where a row of the default bound meets it.
func TestFloodTargetsP99(t *testing.T) {
	t.Parallel()
	table := []scenario{{name: "default", twin: healthzTwin}, {name: "strict", twin: healthzTwin, maxP99: 1.5}}
	var rows []result
	for _, sc := range table {
		rows = append(rows, result{Name: sc.name, RPS: 1, P99: ms(18 * time.Millisecond)},
			result{Name: sc.twin(sc).name, RPS: 1, P99: ms(10 * time.Millisecond)})
	}
	row := func(name string) result {
		return rows[slices.IndexFunc(rows, func(r result) bool { return r.Name == name })]
	}
	got := map[string]bool{}
	for _, tg := range floodTargets(row, table) {
		if strings.Contains(tg.Name, "p99") {
			got[tg.Name] = tg.Met
		}
	}
	want := map[string]bool{"default, p99 vs its twin": true, "strict, p99 vs its twin": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("p99 targets met (-want +got):\n%s", diff)
	}
}
