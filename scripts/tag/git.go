package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
)

// tagArgs is the git command line, without "git", that creates the annotated
// tag for v.
func tagArgs(v version) []string {
	return []string{"tag", "-a", "-m", "Version " + v.String(), v.String()}
}

// gitResult is how a git run ended.
type gitResult struct {
	code   int    // exit status; 0 is success
	stderr string // everything git wrote to its error stream
}

// runGit runs git with args in dir and env, copying its standard output to
// stdout and collecting its error stream. A git that ran and failed is a
// result with a non-zero code, not an error; it returns an error only when
// git could not be started (not installed, dir missing).
func runGit(ctx context.Context, dir string, env, args []string, stdout io.Writer) (gitResult, error) {
	var errBuf bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout = stdout
	cmd.Stderr = &errBuf
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return gitResult{stderr: errBuf.String()}, nil
	case errors.As(err, &exitErr):
		code := exitErr.ExitCode()
		if code <= 0 { // killed by a signal, e.g. on interrupt
			code = 1
		}
		stderr := errBuf.String()
		if stderr == "" {
			stderr = exitErr.Error()
		}
		return gitResult{code: code, stderr: stderr}, nil
	default:
		return gitResult{}, fmt.Errorf("run git: %w", err)
	}
}
