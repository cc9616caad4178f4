// Command busydb keeps a MariaDB busy as another client would, to run the
// tests on a database that others share: it runs about -rate SELECTs a
// second on -conns connections until stopped (Ctrl-C) or until -duration
// has passed, and says every -every how many it ran. It talks to a
// database on this machine only (loopback or a Unix socket).
//
//	go run ./scripts/busydb -rate 2000 -duration 30m
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
		fmt.Fprintln(os.Stderr, "busydb:", err)
		os.Exit(1)
	}
}
