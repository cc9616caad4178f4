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
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(exitCode(os.Args, os.Environ(), os.Stdout, os.Stderr))
}

// exitCode runs the server until SIGINT (Ctrl-C) or SIGTERM and says how
// it ended: 0 once it shut down cleanly, or when -h asked for the usage;
// 1 when it failed, with why on stderr.
func exitCode(args, environ []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, args, environ, stdout)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(stderr, "wploadmore:", err)
	return 1
}
