// Command tag bumps the project's version: it reads the one-line `version`
// file, creates the annotated git tag for the next major, minor or patch
// version and, only when git succeeds, writes the new version back.
//
// Usage:
//
//	go run ./scripts/tag [-C dir] [-n] major|minor|patch
//
// The Makefile targets tag.major, tag.minor and tag.patch call it.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, os.Environ(), os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
