// Command seed fills a WordPress database with a large, realistic,
// deterministic site for benchmarks: N published posts of Gutenberg markup
// (a few hundred bytes to 200 KB, some mostly images, galleries and embeds)
// with the rows a real site keeps beside them: about two revisions per
// post, attachments, drafts and other unpublished posts, pages and menu
// items; the posts' featured images and the attachments' metadata
// (postmeta), 50 categories and 200 tags with their counts, 12 authors and
// the site's options (wpdb/sitegen).
//
// The database is named like the server's: -db mysql://… or sqlite:PATH, or
// -wp-config path/to/wp-config.php (LOADMORE_DB and LOADMORE_WP_CONFIG when
// the flags are absent). A missing MySQL database, SQLite file or table is
// created. Every row has a fixed ID, so a rerun with the same -seed
// continues after the last post written and an already full database is
// left alone; the option wploadmore_seed names the generator's version and
// seed a database holds, and a rerun refuses to continue another data set.
//
//	go run ./scripts/seed -db 'mysql://root@127.0.0.1:3306/wploadmore_bench' -n 100000
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "seed:", err)
		os.Exit(1)
	}
}
