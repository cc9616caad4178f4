package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
)

// maxDuration bounds -duration, so that a forgotten busydb stops.
const maxDuration = 4 * time.Hour

// config is busydb's flags.
type config struct {
	dsn      string
	rate     int
	conns    int
	duration time.Duration
	every    time.Duration
	query    string
}

func parse(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.dsn, "dsn", "root@tcp(127.0.0.1:3306)/", "the MariaDB to keep busy: a go-sql-driver DSN on a loopback address or a Unix socket")
	fs.IntVar(&c.rate, "rate", 2000, "SELECTs a second")
	fs.IntVar(&c.conns, "conns", 16, "connections the SELECTs share: enough to keep up with -rate on a busy machine")
	fs.DurationVar(&c.duration, "duration", 30*time.Minute, "stop after this long (at most 4h)")
	fs.DurationVar(&c.every, "every", 10*time.Second, "say how many SELECTs ran this often")
	fs.StringVar(&c.query, "query", "SELECT 1", "the SELECT to run, as text")
	if err := fs.Parse(args[1:]); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	switch {
	case c.rate <= 0 || c.conns <= 0:
		return config{}, fmt.Errorf("-rate %d and -conns %d must be positive", c.rate, c.conns)
	case c.duration <= 0 || c.duration > maxDuration:
		return config{}, fmt.Errorf("-duration %v must be positive and at most %v", c.duration, maxDuration)
	case c.every <= 0:
		return config{}, fmt.Errorf("-every %v must be positive", c.every)
	case !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(c.query)), "SELECT"):
		return config{}, fmt.Errorf("-query %q is not a SELECT", c.query)
	}
	return c, local(c.dsn)
}

// local refuses a DSN that names another machine: busydb is for the
// database the tests use, on this one.
func local(dsn string) error {
	mc, err := mysql.ParseDSN(dsn)
	if err != nil {
		return fmt.Errorf("-dsn: %w", err)
	}
	if mc.Net == "unix" {
		return nil
	}
	host, _, err := net.SplitHostPort(mc.Addr)
	if err != nil {
		return fmt.Errorf("-dsn address %q: %w", mc.Addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("-dsn names %s, not this machine: give a loopback address or a Unix socket", mc.Addr)
	}
	return nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parse(args, stderr)
	if err != nil {
		return err
	}
	db, err := sql.Open("mysql", c.dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(c.conns)
	db.SetMaxIdleConns(c.conns)
	ctx, cancel := context.WithTimeout(ctx, c.duration)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	fmt.Fprintf(stdout, "busydb: %d SELECTs a second on %d connections for %v; Ctrl-C stops it\n", c.rate, c.conns, c.duration)
	return busy(ctx, db, c, stdout)
}

// busy runs c.query at c.rate until ctx ends, on c.conns workers fed a
// token per query. When the workers fall behind, the tokens they could not
// take are dropped rather than run in a burst later: the rate said is the
// rate run.
func busy(ctx context.Context, db *sql.DB, c config, stdout io.Writer) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	tokens := make(chan struct{}, c.conns)
	var ran atomic.Int64
	var wg sync.WaitGroup
	for range c.conns {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-tokens:
				}
				if err := query(ctx, db, c.query); err != nil {
					if ctx.Err() == nil {
						cancel(err)
					}
					return
				}
				ran.Add(1)
			}
		})
	}
	start := time.Now()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	sent, reported := int64(0), start
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case now := <-tick.C:
			for due := int64(now.Sub(start).Seconds() * float64(c.rate)); sent < due; sent++ {
				select {
				case tokens <- struct{}{}:
				default: // behind: dropped
				}
			}
			if now.Sub(reported) >= c.every {
				report(stdout, ran.Load(), now.Sub(start))
				reported = now
			}
		}
	}
	wg.Wait()
	report(stdout, ran.Load(), time.Since(start))
	if err := context.Cause(ctx); !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// query runs q and reads its rows.
func query(ctx context.Context, db *sql.DB, q string) error {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	return errors.Join(rows.Err(), rows.Close())
}

func report(w io.Writer, ran int64, took time.Duration) {
	fmt.Fprintf(w, "busydb: %d SELECTs in %v (%.0f a second)\n", ran, took.Round(time.Second), float64(ran)/max(took.Seconds(), 1e-9))
}
