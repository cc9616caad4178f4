// Command bench measures the server against a large seeded WordPress
// database and Redis, beside the floor it stands on, and checks the
// performance targets of issue 6.
//
// It seeds its own MariaDB database (scripts/seed; skipped when complete),
// builds the server and runs it as a subprocess on 127.0.0.1, drives it
// with wrk, a separate C process, through a table of scenarios, and in the
// same run issues the server's SQL query and Redis update directly in a
// loop at the same concurrency: the limit. It prints a Markdown table of
// every scenario and of the targets, each marked met or missed, and writes
// the figures to a JSON file. wrk must be on PATH (make bench installs it).
//
//	go run ./scripts/bench            # or: make bench
//	go run ./scripts/bench -n 20000 -duration 3s
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
	err := run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
