// Command seed fills a WordPress database with a large, realistic,
// deterministic site for benchmarks: N published posts of Gutenberg markup
// with what a real site keeps beside them (revisions, attachments,
// unpublished posts, pages, menu items, featured images and their metadata,
// categories, tags, authors and options). The database is named as the
// server's: -db, or -wp-config (LOADMORE_DB, LOADMORE_WP_CONFIG). Every row
// has a fixed ID, so a rerun continues where the last stopped, and the
// option wploadmore_seed names the data set, so a rerun refuses another.
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
