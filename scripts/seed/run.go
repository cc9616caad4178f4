package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/sitegen"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// options are the command line, checked.
type options struct {
	db          wpdb.Config
	posts       int
	seed        uint64
	batch       int // posts per transaction
	workers     int // goroutines generating content
	quiet       bool
	description string // where the rows go, for messages (never the password)
}

func parseOptions(args []string, getenv func(string) string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbURL := fs.String("db", getenv("LOADMORE_DB"), "WordPress database: mysql://user:password@host:port/dbname or sqlite:PATH")
	wpConfig := fs.String("wp-config", getenv("LOADMORE_WP_CONFIG"), "`path` to a wp-config.php naming the database")
	prefix := fs.String("table-prefix", "", "table `prefix` (default wp_, or $table_prefix from -wp-config)")
	fs.IntVar(&o.posts, "n", 100_000, "published posts to have in the database")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed; a rerun must use the same one to continue a data set")
	fs.IntVar(&o.batch, "batch", 200, "posts (with their revisions and other rows) per transaction")
	fs.IntVar(&o.workers, "workers", runtime.GOMAXPROCS(0), "goroutines generating content")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress bar")
	if err := fs.Parse(args[1:]); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var err error
	switch {
	case *dbURL != "" && *wpConfig != "":
		return o, errors.New("-db and -wp-config: give one or the other")
	case *wpConfig != "":
		if o.db, err = wpdb.LoadWPConfig(*wpConfig); err != nil {
			return o, fmt.Errorf("-wp-config: %w", err)
		}
		o.description = *wpConfig
	case *dbURL != "":
		if o.db, err = wpdb.ParseURL(*dbURL); err != nil {
			return o, fmt.Errorf("-db: %w", err)
		}
		o.description = o.db.Driver + " database"
	default:
		return o, errors.New("no database: give -db mysql://… or sqlite:PATH, or -wp-config")
	}
	// localhost is the local Unix socket, as for the server (which has
	// -mysql-socket; the usual paths serve here).
	if o.db, _, err = wpdb.ResolveLocalSocket(o.db, wpdb.DefaultSocketPaths()); err != nil {
		return o, err
	}
	switch {
	case *prefix != "":
		o.db.TablePrefix = *prefix
	case o.db.TablePrefix == "":
		o.db.TablePrefix = wpdb.DefaultTablePrefix
	}
	switch {
	case o.posts < 0:
		return o, fmt.Errorf("-n: %d is negative", o.posts)
	case o.batch < 1:
		return o, fmt.Errorf("-batch: %d is not positive", o.batch)
	case o.workers < 1:
		return o, fmt.Errorf("-workers: %d is not positive", o.workers)
	}
	return o, nil
}

// dataSetOption is the option that names the data set a database holds:
// the generator's version and the seed. A rerun continues only the same one.
// The label still says "fixture", as the databases already seeded say it.
const dataSetOption = "wploadmore_seed"

func dataSet(seed uint64) string { return fmt.Sprintf("fixture %d, seed %d", sitegen.Version, seed) }

// run seeds the database the command line names and reports the rate.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, getenv, stderr)
	if err != nil {
		return err
	}
	s, err := wpsite.Open(ctx, o.db)
	if err != nil {
		return err
	}
	defer s.Close()
	maxID, err := checkDataSet(ctx, s, o)
	if err != nil {
		return err
	}
	// The rows that do not depend on the posts first: a rerun skips them.
	site := sitegen.Options()
	site[dataSetOption] = dataSet(o.seed)
	if err := s.InsertOptions(ctx, site); err != nil {
		return err
	}
	if err := s.InsertUsers(ctx, sitegen.Users()); err != nil {
		return err
	}

	// Batches commit in order, each its posts last, so every post before
	// the one holding the largest ID is complete in every table; that one
	// is written again and its present rows are skipped.
	first := 0
	if maxID > 0 {
		first = sitegen.PostIndex(maxID)
	}
	if maxID >= sitegen.PostID(o.posts-1) && o.posts > 0 && complete(maxID, o) {
		fmt.Fprintf(stdout, "seed: %s already holds the %d posts of seed %d\n", o.description, o.posts, o.seed)
		// The terms come last: an earlier run may have stopped before.
		return s.InsertTerms(ctx, sitegen.Terms(o.seed, o.posts))
	}
	if first > 0 {
		fmt.Fprintf(stdout, "seed: resuming at post %d of %d\n", first, o.posts)
	}
	if err := writePosts(ctx, s, o, first, stdout, stderr); err != nil {
		return err
	}
	if err := s.Analyze(ctx); err != nil {
		return err
	}
	total, size, err := s.Size(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "seed: %s: %d rows in the posts table, %.0f MB in the site's tables\n", o.description, total, float64(size)/1e6)
	return nil
}

// checkDataSet returns the largest post ID the database holds, when its
// rows are of the data set o asks for, to be continued: a table holding
// more posts than o.posts, or another generator version or seed, is refused.
func checkDataSet(ctx context.Context, s *wpsite.Writer, o options) (maxID uint64, err error) {
	if maxID, err = s.MaxID(ctx); err != nil {
		return 0, err
	}
	if maxID > sitegen.LastID(o.posts) {
		return 0, fmt.Errorf("the table holds ID %d, beyond the %d posts asked for: "+
			"not a data set of this seed script, or made with a larger -n", maxID, o.posts)
	}
	options, err := s.Options(ctx, dataSetOption)
	if err != nil {
		return 0, err
	}
	want := dataSet(o.seed)
	if got, ok := options[dataSetOption]; maxID > 0 && got != want {
		if !ok {
			got = "none named: made before the seed wrote the other tables, or not by it"
		}
		return 0, fmt.Errorf("the database holds posts of another data set (%s), not %s: "+
			"seed into an empty database, or drop this one's tables first", got, want)
	}
	return maxID, nil
}

// writePosts writes posts first..o.posts-1 with their rows in the other
// tables, then the terms' counts, showing progress on stderr and the rate
// on stdout.
func writePosts(ctx context.Context, s *wpsite.Writer, o options, first int, stdout, stderr io.Writer) error {
	bar := progressbar.NewOptions(o.posts-first,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetVisibility(!o.quiet),
		progressbar.OptionSetDescription("seeding posts"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("posts"),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	start := time.Now()
	var rows, meta, relationships, bytes int64
	written := 0
	err := generate(ctx, o, first, func(b batch) error {
		// Posts last: MaxID then vouches for the batch's other rows.
		if err := s.InsertPostMeta(ctx, b.meta); err != nil {
			return err
		}
		if err := s.InsertTermRelationships(ctx, b.relationships); err != nil {
			return err
		}
		if err := s.Insert(ctx, b.rows); err != nil {
			return err
		}
		written += b.posts
		rows, meta, relationships = rows+int64(len(b.rows)), meta+int64(len(b.meta)), relationships+int64(len(b.relationships))
		for i := range b.rows {
			bytes += int64(len(b.rows[i].Content))
		}
		return bar.Add(b.posts)
	})
	bar.Finish()
	if err == nil {
		// Counts of published posts, as WordPress keeps them, once every
		// post is there.
		err = s.InsertTerms(ctx, sitegen.Terms(o.seed, o.posts))
	}
	elapsed := time.Since(start)
	fmt.Fprintf(stdout, "seed: wrote %d posts (%d rows, %d postmeta, %d term relationships, %.0f MB of content) in %s: %.0f rows/s, %.1f MB/s\n",
		written, rows, meta, relationships, float64(bytes)/1e6, elapsed.Round(time.Millisecond),
		float64(rows)/elapsed.Seconds(), float64(bytes)/1e6/elapsed.Seconds())
	return err
}

// complete says whether the last post's rows are all written: its own ID
// range is full up to the last row Rows makes for it.
func complete(maxID uint64, o options) bool {
	rows := sitegen.Rows(o.seed, o.posts-1)
	return maxID >= rows[len(rows)-1].ID
}

// batch is the rows of consecutive posts in every table.
type batch struct {
	rows          []wpsite.Post
	meta          []wpsite.PostMeta
	relationships []wpsite.TermRelationship
	posts         int
}

// generate makes the rows of posts first..o.posts-1 in batches of o.batch
// posts on o.workers goroutines and hands them to write in ID order.
func generate(ctx context.Context, o options, first int, write func(batch) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Each batch gets its own result channel, queued in order: workers
	// finish in any order, the writer still takes them in sequence.
	queue := make(chan chan batch, o.workers*2)
	sem := make(chan struct{}, o.workers)
	go func() {
		defer close(queue)
		for lo := first; lo < o.posts; lo += o.batch {
			hi := min(lo+o.batch, o.posts)
			result := make(chan batch, 1)
			select {
			case queue <- result:
			case <-ctx.Done():
				return
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go func() {
				defer func() { <-sem }()
				b := batch{posts: hi - lo}
				for i := lo; i < hi; i++ {
					set := sitegen.PostSet(o.seed, i)
					b.rows = append(b.rows, set.Posts...)
					b.meta = append(b.meta, set.Meta...)
					b.relationships = append(b.relationships, set.Relationships...)
				}
				result <- b
			}()
		}
	}()
	for result := range queue {
		var b batch
		select {
		case b = <-result:
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := write(b); err != nil {
			return err
		}
	}
	return ctx.Err()
}
