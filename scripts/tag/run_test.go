package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// result is what one run of the command produced.
type result struct {
	code           int
	stdout, stderr string
}

func runTag(t *testing.T, env []string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), append([]string{"tag"}, args...), env, &stdout, &stderr)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

const listing = `Tasks:
  major  (or tag.major)  Major tag incrementation
  minor  (or tag.minor)  Minor tag incrementation
  patch  (or tag.patch)  Patch tag incrementation
`

func TestRunListing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want result
	}{
		{"no argument", nil, result{code: 0, stdout: listing}},
		{"only flags", []string{"-n", "-C", "."}, result{code: 0, stdout: listing}},
		{"unknown task", []string{"release"}, result{code: 2, stderr: "tag: unknown task \"release\"\n" + listing}},
		{"empty task", []string{""}, result{code: 2, stderr: "tag: unknown task \"\"\n" + listing}},
		{"two tasks", []string{"patch", "minor"}, result{code: 2, stderr: "tag: one task at a time, got extra argument(s) [\"minor\"]\n" + listing}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, runTag(t, isolatedEnv(t), tc.args...), cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("run %q (-want +got):\n%s", tc.args, diff)
			}
		})
	}
}

func TestRunHelpAndBadFlags(t *testing.T) {
	t.Parallel()
	t.Run("help", func(t *testing.T) {
		for _, args := range [][]string{{"-h"}, {"--help"}, {"patch", "-h"}} {
			got := runTag(t, isolatedEnv(t), args...)
			if got.code != 0 || got.stderr != "" {
				t.Errorf("run %q = exit %d, stderr %q; want 0 and nothing", args, got.code, got.stderr)
			}
			for _, want := range []string{"Usage:", "major|minor|patch", "-C dir", "-n", "-dry-run", "Major tag incrementation", "1.0.0", "Exit status"} {
				if !strings.Contains(got.stdout, want) {
					t.Errorf("run %q help does not mention %q:\n%s", args, want, got.stdout)
				}
			}
		}
	})
	t.Run("bad flag", func(t *testing.T) {
		for _, args := range [][]string{{"-x", "patch"}, {"patch", "--bogus"}, {"-C"}} {
			got := runTag(t, isolatedEnv(t), args...)
			if got.code != 2 || got.stdout != "" || !strings.HasPrefix(got.stderr, "tag: ") || !strings.Contains(got.stderr, "Usage:") {
				t.Errorf("run %q = %+v; want exit 2 and the error with usage on stderr", args, got)
			}
		}
	})
}

func TestRunBump(t *testing.T) {
	t.Parallel()
	tests := []struct {
		from, task, want string
	}{
		{"0.0.0", "major", "1.0.0"},
		{"0.0.0", "minor", "0.1.0"},
		{"0.0.0", "patch", "0.0.1"},
		{"1.9.9", "major", "2.0.0"},
		{"1.9.9", "minor", "1.10.0"},
		{"1.9.9", "patch", "1.9.10"},
		{"9.99.999", "major", "10.0.0"},
		{"9.99.999", "minor", "9.100.0"},
		{"9.99.999", "patch", "9.99.1000"},
		{"1.2.3", "tag.major", "2.0.0"},
		{"1.2.3", "tag.minor", "1.3.0"},
		{"1.2.3", "tag.patch", "1.2.4"},
	}
	endings := []struct{ name, eol string }{{"lf", "\n"}, {"crlf", "\r\n"}, {"none", ""}}
	for _, tc := range tests {
		for _, e := range endings {
			t.Run(fmt.Sprintf("%s/%s/%s", tc.from, tc.task, e.name), func(t *testing.T) {
				t.Parallel()
				repo := newRepo(t)
				path := filepath.Join(repo, "version")
				writeFile(t, path, tc.from+e.eol, 0o644)

				got := runTag(t, append(isolatedEnv(t), identityEnv...), "-C", repo, tc.task)
				want := result{stdout: fmt.Sprintf("Increasing from %s to %s...\ncommand used: git tag -a -m 'Version %s' %s\n", tc.from, tc.want, tc.want, tc.want)}
				if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
					t.Fatalf("run (-want +got):\n%s", diff)
				}
				assertAnnotatedTag(t, repo, tc.want)
				if diff := cmp.Diff(tc.want+e.eol, readFile(t, path)); diff != "" {
					t.Errorf("version file (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff([]string{tc.want}, tags(t, repo)); diff != "" {
					t.Errorf("tags (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestRunMissingFileStartsAtOneZeroZero(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	got := runTag(t, append(isolatedEnv(t), identityEnv...), "-C", repo, "patch")
	if got.code != 0 || !strings.HasPrefix(got.stdout, "Increasing from 1.0.0 to 1.0.1...\n") {
		t.Fatalf("run = %+v, want exit 0 from 1.0.0 to 1.0.1", got)
	}
	assertAnnotatedTag(t, repo, "1.0.1")
	if diff := cmp.Diff("1.0.1\n", readFile(t, filepath.Join(repo, "version"))); diff != "" {
		t.Errorf("version file (-want +got):\n%s", diff)
	}
}

// TestRunSuccessive bumps the same repository three times: each run starts
// from what the previous one wrote.
func TestRunSuccessive(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	env := append(isolatedEnv(t), identityEnv...)
	for _, step := range []struct{ args []string }{
		{[]string{"-C", repo, "patch"}},     // flags before
		{[]string{"minor", "-C", repo}},     // flags after
		{[]string{"-C", repo, "tag.major"}}, // Makefile name
	} {
		if got := runTag(t, env, step.args...); got.code != 0 {
			t.Fatalf("run %q = %+v", step.args, got)
		}
	}
	if diff := cmp.Diff([]string{"1.0.1", "1.1.0", "2.0.0"}, tags(t, repo)); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("2.0.0\n", readFile(t, filepath.Join(repo, "version"))); diff != "" {
		t.Errorf("version file (-want +got):\n%s", diff)
	}
}

func TestRunDryRun(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"-n", "--dry-run", "-dry-run"} {
		t.Run(flag, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			path := filepath.Join(repo, "version")
			writeFile(t, path, "1.9.9\n", 0o644)
			got := runTag(t, append(isolatedEnv(t), identityEnv...), "-C", repo, flag, "minor")
			want := result{stdout: "Increasing from 1.9.9 to 1.10.0...\n" +
				"command used: git tag -a -m 'Version 1.10.0' 1.10.0\n" +
				"dry run: git not run, " + path + " not written (it would hold 1.10.0)\n"}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("run (-want +got):\n%s", diff)
			}
			if tags := tags(t, repo); tags != nil {
				t.Errorf("dry run created tags %q", tags)
			}
			if diff := cmp.Diff("1.9.9\n", readFile(t, path)); diff != "" {
				t.Errorf("version file (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunMalformedVersionFile(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, content string }{
		{"two numbers", "1.2\n"},
		{"letter", "1.2.x\n"},
		{"negative", "-1.0.0\n"},
		{"overflow", "18446744073709551616.0.0\n"},
		{"two lines", "1.0.0\n2.0.0\n"},
		{"blank line after", "1.0.0\n\n"},
		{"empty", ""},
		{"spaces", " 1.0.0 \n"},
		{"v prefix", "v1.0.0\n"},
		{"leading zero", "1.0.01\n"},
		{"bump overflows", "1.2.18446744073709551615\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			path := filepath.Join(repo, "version")
			writeFile(t, path, tc.content, 0o644)
			got := runTag(t, append(isolatedEnv(t), identityEnv...), "-C", repo, "patch")
			if got.code != 1 || got.stdout != "" {
				t.Errorf("run = %+v, want exit 1 and no output", got)
			}
			if !strings.Contains(got.stderr, path) {
				t.Errorf("stderr %q does not name %s", got.stderr, path)
			}
			if tc.name != "bump overflows" && !strings.Contains(got.stderr, fmt.Sprintf("%q", tc.content)) {
				t.Errorf("stderr %q does not quote the content %q", got.stderr, tc.content)
			}
			if tags := tags(t, repo); tags != nil {
				t.Errorf("malformed version created tags %q", tags)
			}
			if diff := cmp.Diff(tc.content, readFile(t, path)); diff != "" {
				t.Errorf("version file (-want +got):\n%s", diff)
			}
			assertOnlyFiles(t, repo, ".git", "version")
		})
	}
}

func TestRunGitFailure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		setup     func(t *testing.T) string // returns the directory to run in
		identity  bool
		wantInErr string
	}{
		{
			name:      "not a repository",
			setup:     func(t *testing.T) string { return t.TempDir() },
			identity:  true,
			wantInErr: "tag: git failed: fatal: not a git repository",
		},
		{
			name: "tag exists",
			setup: func(t *testing.T) string {
				repo := newRepo(t)
				git(t, repo, append(isolatedEnv(t), identityEnv...), "tag", "1.2.4")
				return repo
			},
			identity:  true,
			wantInErr: "tag: git failed: fatal: tag '1.2.4' already exists",
		},
		{
			name:      "missing identity",
			setup:     newRepo,
			identity:  false,
			wantInErr: "tag: git failed: *** Please tell me who you are.",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := tc.setup(t)
			path := filepath.Join(dir, "version")
			const content = "1.2.3\r\n"
			writeFile(t, path, content, 0o600)
			before, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			env := isolatedEnv(t)
			if tc.identity {
				env = append(env, identityEnv...)
			}

			got := runTag(t, env, "-C", dir, "patch")
			if got.code != 128 {
				t.Errorf("exit %d, want git's 128", got.code)
			}
			wantOut := "Increasing from 1.2.3 to 1.2.4...\ncommand used: git tag -a -m 'Version 1.2.4' 1.2.4\n"
			if diff := cmp.Diff(wantOut, got.stdout); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if !strings.Contains(got.stderr, tc.wantInErr) {
				t.Errorf("stderr does not contain %q:\n%s", tc.wantInErr, got.stderr)
			}
			for _, line := range strings.Split(strings.TrimSuffix(got.stderr, "\n"), "\n") {
				if !strings.HasPrefix(line, "tag: git failed:") && !strings.HasPrefix(line, "tag: git exited with status 128; ") {
					t.Errorf("stderr line %q lacks the failure prefix", line)
				}
				if strings.HasSuffix(line, " ") {
					t.Errorf("stderr line %q ends in a space", line)
				}
			}
			if diff := cmp.Diff(content, readFile(t, path)); diff != "" {
				t.Errorf("version file (-want +got):\n%s", diff)
			}
			after, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if !os.SameFile(before, after) || after.Mode() != before.Mode() {
				t.Errorf("version file was replaced (%v -> %v)", before.Mode(), after.Mode())
			}
		})
	}
}

func TestRunGitNotStartable(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "missing")
	got := runTag(t, append(isolatedEnv(t), identityEnv...), "-C", missing, "patch")
	if got.code != 1 || !strings.Contains(got.stderr, "tag: run git:") {
		t.Errorf("run in a missing directory = %+v, want exit 1 with a run git error", got)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("missing directory was created: %v", err)
	}
}

// TestRunCurrentDirectory checks that without -C the command works in the
// current directory, as it does when the Makefile runs it at the root.
// t.Chdir makes this test sequential.
func TestRunCurrentDirectory(t *testing.T) {
	repo := newRepo(t)
	t.Chdir(repo)
	writeFile(t, "version", "0.9.9\n", 0o644)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"tag", "minor"}, append(isolatedEnv(t), identityEnv...), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	assertAnnotatedTag(t, repo, "0.10.0")
	if diff := cmp.Diff("0.10.0\n", readFile(t, filepath.Join(repo, "version"))); diff != "" {
		t.Errorf("version file (-want +got):\n%s", diff)
	}
}
