// Command bench measures the server against a large seeded WordPress
// database and Redis, beside the floors it stands on, and checks the
// performance targets of issues 6 and 11.
//
// It seeds its own MariaDB database (scripts/seed; skipped when complete),
// runs the server binary on 127.0.0.1, drives it with wrk through a table
// of scenarios and, in the same run, calls the server's own code directly
// in a loop at the same concurrency: limit A, the SQL query and the Redis
// session update; limit B, the update alone. Around each scenario it reads
// what Redis and MariaDB ran (INFO commandstats, Com_select). It prints
// Markdown tables of the scenarios and of the targets, and writes the
// figures to a JSON file. wrk must be on PATH (make bench installs it).
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

	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb"
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
	dbCfg, err := wpdb.ParseURL(o.db)
	if err != nil {
		return fmt.Errorf("-db: %w", err)
	}
	if dbCfg, _, err = wpdb.ResolveLocalSocket(dbCfg, wpdb.DefaultSocketPaths()); err != nil {
		return fmt.Errorf("-db: %w", err)
	}
	if dbCfg.Driver != wpdb.DriverMySQL { // the bench counts MariaDB's queries and makes throwaway databases
		return fmt.Errorf("-db: %s: the bench measures MariaDB (mysql://)", dbCfg.Driver)
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
	// The server's defaults, so the limit queries as the server does.
	dbCfg.TablePrefix, dbCfg.PostTypes, dbCfg.QueryTimeout = "wp_", []string{"post"}, 5*time.Second
	b := &bench{o: o, logf: func(format string, a ...any) { fmt.Fprintf(stderr, "bench: "+format+"\n", a...) }}
	if b.dir, err = os.MkdirTemp("", "wploadmore-bench-"); err != nil {
		return err
	}
	defer os.RemoveAll(b.dir)
	if b.wrk, err = newWrk(b.dir, o.wrkThreads); err != nil {
		return err
	}
	b.logf("load generator: %s; building the server, seeding %d posts (skipped when there)", b.wrk.name, o.posts)
	// Binaries: the measured process is the server alone, not `go run`.
	cmd := exec.CommandContext(ctx, "go", "build", "-o", b.dir+"/", "./server", "./scripts/seed")
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build (run the bench from the repository root): %w", err)
	}
	b.serverBin = filepath.Join(b.dir, "server")
	cmd = exec.CommandContext(ctx, filepath.Join(b.dir, "seed"), "-db", o.db, "-n", strconv.Itoa(o.posts))
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	rep.LoadGenerator = b.wrk.name
	if err := databaseSize(ctx, dbCfg, o.posts, rep); err != nil {
		return err
	}

	// The bench's own store and sessions, for the limit and the query
	// timings; the key prefix keeps its sessions apart.
	if b.store, err = wpdb.Open(ctx, dbCfg, nil); err != nil {
		return err
	}
	defer b.store.Close()
	if b.db, err = sql.Open(dbCfg.Driver, dbCfg.DSN); err != nil { // a driver wpdb registers: go-sql-driver for MariaDB
		return err
	}
	defer b.db.Close()
	prefix := "wploadmore_bench:" + rand.Text() + ":"
	if b.sessions, err = session.OpenRedis(ctx, o.redis, session.Config{
		KeyPrefix: prefix, Format: session.FormatPHP, MaxLifetime: 1440 * time.Second,
		InitialPostsStart: 2, OpTimeout: 2 * time.Second, // the server's defaults
	}, nil); err != nil {
		return fmt.Errorf("-redis: %w", err)
	}
	defer b.sessions.Close()
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := sessiontest.DeletePrefix(ctx, o.redis, prefix); err != nil {
			b.logf("could not remove the bench's Redis keys %s*: %v", prefix, err)
		}
	}()
	b.serverArgs = []string{"-db", o.db, "-redis", o.redis, "-session-prefix", prefix}

	table, err := scenarios(ctx, b.store, b.sessions, o)
	if err != nil {
		return err
	}
	if table = selectScenarios(table, o.run); len(table) == 0 {
		return fmt.Errorf("-run %q matches no scenario", o.run)
	}
	if rep.Scenarios, err = b.runAll(ctx, table); err != nil {
		return err
	}
	b.logf("timing the deferred join and the naive LIMIT/OFFSET at offset %d, and content shaping", o.posts/2)
	if err := timeQueries(ctx, b.store, b.db, dbCfg.TablePrefix, o.posts/2, rep); err != nil {
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
	rep.LoadAvg[1], rep.Targets = loadAverage(), targets(rep, table)
	fmt.Fprint(stdout, rep.markdown())
	js, err := json.MarshalIndent(rep, "", "  ")
	if err == nil {
		err = os.WriteFile(o.out, append(js, '\n'), 0o644)
	}
	b.logf("figures written to %s", o.out)
	return err
}

func databaseSize(ctx context.Context, cfg wpdb.Config, posts int, rep *report) error {
	s, err := wpdb.OpenSeeder(ctx, cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	rows, size, err := s.Size(ctx)
	rep.Database.Driver, rep.Database.Posts, rep.Database.Rows, rep.Database.SizeMB = cfg.Driver, posts, rows, float64(size)/(1<<20)
	return err
}
