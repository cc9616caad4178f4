package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// identityEnv is the identity git needs to create commits and annotated tags.
var identityEnv = []string{
	"GIT_AUTHOR_NAME=Tag Test", "GIT_AUTHOR_EMAIL=tag@example.com",
	"GIT_COMMITTER_NAME=Tag Test", "GIT_COMMITTER_EMAIL=tag@example.com",
}

// isolatedEnv is this process's environment without anything that configures
// git (identity, repository location, make's job server), with HOME in an
// empty directory and no global or system git config: the machine's own git
// setup must not make a test pass or fail. It has no identity; append
// identityEnv for one.
func isolatedEnv(t *testing.T) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "GIT_"), name == "EMAIL", name == "HOME",
			name == "MAKEFLAGS", name == "MFLAGS", name == "MAKELEVEL":
			continue
		}
		env = append(env, kv)
	}
	home := t.TempDir()
	return append(env,
		"HOME="+home,
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_CONFIG_NOSYSTEM=1",
		// Stop repository discovery at the temporary directories, so "not a
		// repository" holds even if /tmp sits inside one.
		"GIT_CEILING_DIRECTORIES="+filepath.Dir(home),
	)
}

// newRepo makes a git repository with one commit, so a tag has something to
// point at, and returns its directory. useConfigOnly stops git from guessing
// an identity from the host name, so a missing identity always fails.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	env := append(isolatedEnv(t), identityEnv...)
	git(t, dir, env, "init", "-q")
	git(t, dir, env, "config", "user.useConfigOnly", "true")
	git(t, dir, env, "commit", "-q", "--allow-empty", "-m", "initial")
	return dir
}

// git runs git in dir and returns its trimmed standard output; it fails the
// test when git fails.
func git(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := gitOutput(dir, env, args...)
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func gitOutput(dir string, env []string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(context.Background(), "git", args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", &gitError{err: err, stderr: stderr.String()}
	}
	return strings.TrimSpace(stdout.String()), nil
}

type gitError struct {
	err    error
	stderr string
}

func (e *gitError) Error() string { return e.err.Error() + ": " + e.stderr }

// assertAnnotatedTag fails unless repo has the annotated tag name on HEAD
// with the message "Version name".
func assertAnnotatedTag(t *testing.T, repo, name string) {
	t.Helper()
	env := isolatedEnv(t)
	if got := git(t, repo, env, "cat-file", "-t", "refs/tags/"+name); got != "tag" {
		t.Errorf("refs/tags/%s is a %q, want an annotated tag", name, got)
	}
	if got, want := git(t, repo, env, "tag", "-l", "--format=%(contents)", name), "Version "+name; got != want {
		t.Errorf("tag %s message %q, want %q", name, got, want)
	}
	if got, want := git(t, repo, env, "rev-parse", name+"^{commit}"), git(t, repo, env, "rev-parse", "HEAD"); got != want {
		t.Errorf("tag %s points at %s, want HEAD %s", name, got, want)
	}
}

// tags lists repo's tags.
func tags(t *testing.T, repo string) []string {
	t.Helper()
	out := git(t, repo, isolatedEnv(t), "tag", "-l")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}
