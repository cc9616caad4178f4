// Command bench measures the server against a large seeded WordPress
// database and Redis, beside the floors it stands on, and checks its
// performance targets (docs/performance.md). It seeds its own database
// (scripts/seed), runs the server binary on 127.0.0.1 and drives it with wrk
// through a table of scenarios; in the same run it calls the server's own
// code in a loop at the same concurrency (limit A: the query and the session
// update; limit B: the update alone), so that ratios measured side by side
// hold on a noisy machine. wrk must be on PATH (make bench installs it).
//
//	go run ./scripts/bench            # or: make bench
//	go run ./scripts/bench -n 20000 -duration 3s
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"time"

	"github.com/wploadmore/wploadmore/internal/redisprefix"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type options struct {
	db, redis, out, run      string
	posts, conns, wrkThreads int
	duration                 time.Duration
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.db, "db", "mysql://root@127.0.0.1:3306/wploadmore_bench", "MariaDB `URL` to seed (when incomplete) and measure; its own database, not a site's")
	fs.StringVar(&o.redis, "redis", "", "Redis `URL`, whose INFO commandstats then count its other clients' commands too; the bench uses its own key prefix and removes its keys (default: a redis-server of the bench's own)")
	fs.IntVar(&o.posts, "n", 100_000, "published posts in the database")
	fs.IntVar(&o.conns, "connections", 32, "concurrent connections of most scenarios")
	fs.DurationVar(&o.duration, "duration", 8*time.Second, "run time of each scenario (wrk takes whole seconds)")
	fs.IntVar(&o.wrkThreads, "wrk-threads", 2, "wrk's threads (-t); on 2 cores 1 and 2 give the server the same throughput within noise")
	fs.StringVar(&o.out, "out", "bench-results.json", "`file` to write the figures to")
	fs.StringVar(&o.run, "run", "", "run only the scenarios whose name matches this `regexp` (targets of the others read as missed)")
	if err := fs.Parse(args[1:]); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.posts < 2000:
		return o, fmt.Errorf("-n: %d is under 2000, too few for the deep-offset scenarios", o.posts)
	case o.conns < 1 || o.wrkThreads < 1 || o.duration <= 0:
		return o, errors.New("-connections, -wrk-threads and -duration must be positive")
	}
	if _, err := regexp.Compile(o.run); err != nil {
		return o, fmt.Errorf("-run: %w", err)
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	dbCfg, err := benchDatabase(o.db)
	if err != nil {
		return err
	}
	rep := &report{Date: time.Now(), Machine: machine(), LoadAvg: [2]string{loadAverage()}}
	if u, err := url.Parse(o.redis); err == nil {
		rep.Redis = u.Redacted() + ", shared: its other clients' commands count too"
	}
	if o.redis == "" {
		addr, stop, err := startRedis(ctx)
		if err != nil {
			return err
		}
		defer stop()
		o.redis, rep.Redis = addr, "a redis-server of the bench's own"
	}
	b := &bench{o: o, dbCfg: dbCfg, logf: func(format string, a ...any) { fmt.Fprintf(stderr, "bench: "+format+"\n", a...) }}
	if b.dir, err = os.MkdirTemp("", "wploadmore-bench-"); err != nil {
		return err
	}
	defer os.RemoveAll(b.dir)
	if b.wrk, err = newWrk(b.dir, o.wrkThreads); err != nil {
		return err
	}
	rep.LoadGenerator = b.wrk.name
	if err := b.buildAndSeed(ctx, stderr); err != nil {
		return err
	}
	if err := databaseSize(ctx, dbCfg, o.posts, rep); err != nil {
		return err
	}
	closeFloors, err := b.openFloors(ctx, dbCfg)
	defer closeFloors()
	if err != nil {
		return err
	}
	if err := b.measureAll(ctx, dbCfg, rep); err != nil {
		return err
	}
	rep.LoadAvg[1] = loadAverage()
	fmt.Fprint(stdout, rep.markdown())
	js, err := json.MarshalIndent(rep, "", "  ")
	if err == nil {
		err = os.WriteFile(o.out, append(js, '\n'), 0o644)
	}
	b.logf("figures written to %s", o.out)
	return err
}

// benchDatabase is the store configuration of -db: a MariaDB, as the bench
// counts its queries and makes throwaway databases, read as the server
// reads it by default, so the limit queries as the server does.
func benchDatabase(dbURL string) (wpdb.Config, error) {
	cfg, err := wpdb.ParseURL(dbURL)
	if err != nil {
		return wpdb.Config{}, fmt.Errorf("-db: %w", err)
	}
	if cfg, _, err = wpdb.ResolveLocalSocket(cfg, wpdb.DefaultSocketPaths()); err != nil {
		return wpdb.Config{}, fmt.Errorf("-db: %w", err)
	}
	if cfg.Driver != wpdb.DriverMySQL {
		return wpdb.Config{}, fmt.Errorf("-db: %s: the bench measures MariaDB (mysql://)", cfg.Driver)
	}
	// The server's -post-types and -query-timeout defaults, which are its
	// own flags' (package main): the bench cannot import them.
	cfg.TablePrefix, cfg.PostTypes, cfg.QueryTimeout = wpdb.DefaultTablePrefix, []string{"post"}, 5*time.Second
	return cfg, nil
}

// buildAndSeed builds the server and the seed script into b.dir, as the
// measured process is the server alone, not `go run`, and seeds -db.
func (b *bench) buildAndSeed(ctx context.Context, stderr io.Writer) error {
	b.logf("load generator: %s; building the server, seeding %d posts (skipped when there)", b.wrk.name, b.o.posts)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", b.dir+"/", "./server", "./scripts/seed")
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build (run the bench from the repository root): %w", err)
	}
	b.serverBin = filepath.Join(b.dir, "server")
	cmd = exec.CommandContext(ctx, filepath.Join(b.dir, "seed"), "-db", b.o.db, "-n", strconv.Itoa(b.o.posts))
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	return nil
}

// openFloors opens the bench's own store and sessions, for the limits and
// the query timings, under a key prefix of its own; the servers it starts
// share that prefix. The function returned closes them and removes the
// bench's keys; it is to be called even when openFloors fails.
func (b *bench) openFloors(ctx context.Context, dbCfg wpdb.Config) (closeAll func(), err error) {
	var closers []func()
	closeAll = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	if b.store, err = wpdb.Open(ctx, dbCfg, nil); err != nil {
		return closeAll, err
	}
	closers = append(closers, func() { b.store.Close() })
	setupCfg := dbCfg
	setupCfg.QueryTimeout = setupQueryTimeout
	if b.setup.store, err = wpdb.Open(ctx, setupCfg, nil); err != nil {
		return closeAll, err
	}
	closers = append(closers, func() { b.setup.store.Close() })
	if b.db, err = sql.Open(dbCfg.Driver, dbCfg.DSN); err != nil { // a driver wpdb registers: go-sql-driver for MariaDB
		return closeAll, err
	}
	closers = append(closers, func() { b.db.Close() })
	b.setup.db, b.setup.prefix = b.db, dbCfg.TablePrefix
	prefix := "wploadmore_bench:" + rand.Text() + ":"
	b.prefix, b.sessionConfig = prefix, session.Config{
		KeyPrefix: prefix, Format: session.FormatPHP, MaxLifetime: session.DefaultMaxLifetime,
		InitialPostsStart: session.DefaultInitialPostsStart, OpTimeout: session.DefaultOpTimeout,
	}
	if b.sessions, err = session.OpenRedis(ctx, b.o.redis, b.sessionConfig, nil); err != nil {
		return closeAll, fmt.Errorf("-redis: %w", err)
	}
	closers = append(closers, func() { b.sessions.Close() }, func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := redisprefix.Delete(ctx, b.o.redis, prefix); err != nil {
			b.logf("could not remove the bench's Redis keys %s*: %v", prefix, err)
		}
	})
	b.serverArgs = []string{"-db", b.o.db, "-redis", b.o.redis, "-session-prefix", prefix}
	return closeAll, nil
}

// measureAll runs the scenarios -run selects, then times the queries, the
// excerpt, the head refresh and the fetch of a short and a long post, and
// turns the figures into the targets.
func (b *bench) measureAll(ctx context.Context, dbCfg wpdb.Config, rep *report) error {
	table, err := scenarios(ctx, b.store, b.setup, b.sessions, b.o)
	if err != nil {
		return err
	}
	if regexp.MustCompile(b.o.run).MatchString(pushRow) {
		if err := b.measurePush(ctx, rep); err != nil {
			return err
		}
	}
	if table = selectScenarios(table, b.o.run); len(table) == 0 {
		if rep.Push != nil {
			rep.Targets = pushTargets(rep.Push) // -run chose the push row alone
			return nil
		}
		return fmt.Errorf("-run %q matches no scenario", b.o.run)
	}
	if rep.Scenarios, err = b.runAll(ctx, table); err != nil {
		return err
	}
	b.logf("timing the deferred join and the naive LIMIT/OFFSET at offset %d, and content shaping", b.o.posts/2)
	if err := timeQueries(ctx, b.store, b.db, dbCfg.TablePrefix, b.o.posts/2, rep); err != nil {
		return err
	}
	timeExcerpt(rep)
	b.logf("counting and timing the head refresh: %d posts with their cards", headDepth)
	if err := timeHeadRefresh(ctx, b.store, b.db, rep); err != nil {
		return err
	}
	b.logf("timing Store.Posts of a 2 KB and of a 200 KB post, each in a throwaway database")
	fetch, err := timeFetch(ctx, dbCfg, 2<<10, 200<<10)
	if err != nil {
		return err
	}
	rep.Fetch2KB, rep.Fetch200KB = fetch[0], fetch[1]
	rep.Targets = append(targets(rep, table), pushTargets(rep.Push)...)
	return nil
}

func databaseSize(ctx context.Context, cfg wpdb.Config, posts int, rep *report) error {
	s, err := wpsite.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	rows, size, err := s.Size(ctx)
	rep.Database.Driver, rep.Database.Posts, rep.Database.Rows, rep.Database.SizeMB = cfg.Driver, posts, rows, float64(size)/(1<<20)
	return err
}
