// Command server is wploadmore: a drop-in replacement for the PHP "load
// more" script beside a WordPress site. It serves the posts JSON endpoint,
// the page and the mustache template behind the PHP script's URLs, and keeps
// posts_start in PHP's own session.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args, os.Environ(), os.Stdout)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "wploadmore:", err)
		stop()
		os.Exit(1)
	}
}
