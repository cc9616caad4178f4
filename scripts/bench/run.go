package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb"
)

type options struct {
	db, redis, out           string
	posts, conns, wrkThreads int
	duration                 time.Duration
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.db, "db", "mysql://root@127.0.0.1:3306/wploadmore_bench", "database `URL` to seed (when incomplete) and measure; its own database, not a site's")
	fs.StringVar(&o.redis, "redis", "redis://127.0.0.1:6379", "Redis `URL`; the bench uses its own key prefix and removes its keys")
	fs.IntVar(&o.posts, "n", 100_000, "published posts in the database")
	fs.IntVar(&o.conns, "connections", 32, "concurrent connections of most scenarios")
	fs.DurationVar(&o.duration, "duration", 8*time.Second, "run time of each scenario (wrk takes whole seconds)")
	fs.IntVar(&o.wrkThreads, "wrk-threads", 2, "wrk's threads (-t); on 2 cores 1 and 2 give the server the same throughput within noise (2 by 3%)")
	fs.StringVar(&o.out, "out", "bench-results.json", "`file` to write the figures to")
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
	// What the server runs with by default, so the limit queries as it does.
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
	if b.serverBin, err = buildAndSeed(ctx, o, b.dir, stderr); err != nil {
		return err
	}
	rep := &report{Date: time.Now(), Machine: machine(), LoadGenerator: b.wrk.name, LoadAvg: [2]string{loadAverage()}}
	if err := databaseSize(ctx, dbCfg, o.posts, rep); err != nil {
		return err
	}

	// The bench's own store and sessions, for the limit and the query
	// timings; the key prefix keeps its sessions apart.
	if b.store, err = wpdb.Open(ctx, dbCfg, nil); err != nil {
		return err
	}
	defer b.store.Close()
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

	table, err := scenarios(ctx, b.sessions, o)
	if err != nil {
		return err
	}
	if rep.Scenarios, err = b.runAll(ctx, table); err != nil {
		return err
	}
	b.logf("timing the deferred join and the naive LIMIT/OFFSET at offset %d, and content shaping", o.posts/2)
	if err := timeQueries(ctx, b.store, dbCfg, o.posts/2, rep); err != nil {
		return err
	}
	timeExcerpt(rep)
	rep.LoadAvg[1], rep.Targets = loadAverage(), targets(rep, table[0])
	fmt.Fprint(stdout, rep.markdown())
	if err := rep.writeJSON(o.out); err != nil {
		return err
	}
	b.logf("figures written to %s", o.out)
	return nil
}

// buildAndSeed builds the server and the seed script into dir, seeds the
// database (the seed skips the rows already there) and returns the server
// binary.
func buildAndSeed(ctx context.Context, o options, dir string, stderr io.Writer) (string, error) {
	server, err := build(ctx, dir, "./server", stderr)
	if err != nil {
		return "", err
	}
	seed, err := build(ctx, dir, "./scripts/seed", stderr)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, seed, "-db", o.db, "-n", strconv.Itoa(o.posts))
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("seed: %w", err)
	}
	return server, nil
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
