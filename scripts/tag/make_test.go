package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMakeTag checks the Makefile wiring. It runs `make tag.*` in a
// temporary copy of the project (the Makefile and this command's sources), so
// a broken recipe can never tag or rewrite the real checkout.
func TestMakeTag(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"make", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed to test the Makefile: %v", tool, err)
		}
	}
	env := makeEnv(t)

	t.Run("at the root", func(t *testing.T) {
		t.Parallel()
		project := projectCopy(t)
		writeFile(t, filepath.Join(project, "version"), "1.9.9\n", 0o644)
		out := runMake(t, env, project, "tag.patch")
		if want := "Increasing from 1.9.9 to 1.9.10...\ncommand used: git tag -a -m 'Version 1.9.10' 1.9.10\n"; !strings.Contains(out, want) {
			t.Errorf("make output does not contain %q:\n%s", want, out)
		}
		assertAnnotatedTag(t, project, "1.9.10")
		if diff := cmp.Diff("1.9.10\n", readFile(t, filepath.Join(project, "version"))); diff != "" {
			t.Errorf("version file (-want +got):\n%s", diff)
		}
	})

	t.Run("TAGFLAGS", func(t *testing.T) {
		t.Parallel()
		project := projectCopy(t)
		repo := newRepo(t)
		writeFile(t, filepath.Join(repo, "version"), "0.0.0\n", 0o644)
		for _, target := range []string{"tag.major", "tag.minor", "tag.patch"} {
			runMake(t, env, project, target, "TAGFLAGS=-C "+repo)
		}
		if diff := cmp.Diff([]string{"1.0.0", "1.1.0", "1.1.1"}, tags(t, repo)); diff != "" {
			t.Errorf("tags in the -C repository (-want +got):\n%s", diff)
		}
		assertAnnotatedTag(t, repo, "1.1.1")
		if diff := cmp.Diff("1.1.1\n", readFile(t, filepath.Join(repo, "version"))); diff != "" {
			t.Errorf("version file (-want +got):\n%s", diff)
		}
		if got := tags(t, project); got != nil {
			t.Errorf("TAGFLAGS=-C ignored: the project copy got tags %q", got)
		}
	})
}

// makeEnv is the isolated git environment with an identity, keeping go's
// caches where they are: HOME is a temporary directory, and a fresh cache
// would rebuild the standard library.
func makeEnv(t *testing.T) []string {
	t.Helper()
	env := append(isolatedEnv(t), identityEnv...)
	for _, name := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		env = append(env, name+"="+strings.TrimSpace(string(out)))
	}
	return env
}

// projectCopy makes a git repository holding the project's Makefile and this
// command's non-test sources under scripts/tag, with a go.mod naming the
// project's module (the command needs nothing outside the standard library).
func projectCopy(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	project := newRepo(t)
	copyFile(t, filepath.Join(root, "Makefile"), filepath.Join(project, "Makefile"))
	writeFile(t, filepath.Join(project, "go.mod"), "module github.com/wploadmore/wploadmore\n\ngo 1.26\n", 0o644)
	dst := filepath.Join(project, "scripts", "tag")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	sources, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range sources {
		if !strings.HasSuffix(src, "_test.go") {
			copyFile(t, src, filepath.Join(dst, src))
		}
	}
	return project
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runMake runs make in dir and returns its standard output; it fails the
// test when make fails.
func runMake(t *testing.T, env []string, dir string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(t.Context(), "make", append([]string{"--no-print-directory", "-C", dir}, args...)...)
	cmd.Env = env
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("make %q: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// TestMakeVersionAtTag checks the version the Makefile stamps into the
// binary (-X main.version): the version file's, until make tag.patch tags
// the commit; then, in a checkout of the tag, whose version file still
// names the release before it (the tag comes first, then the file), the
// tag's. A tag that is no version does not count.
func TestMakeVersionAtTag(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"make", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed to test the Makefile: %v", tool, err)
		}
	}
	env := makeEnv(t)
	project := projectCopy(t)
	writeFile(t, filepath.Join(project, "version"), "1.0.0\n", 0o644)
	git(t, project, env, "add", ".")
	git(t, project, env, "commit", "-q", "-m", "1.0.0")
	stamped := func() string {
		t.Helper()
		return strings.TrimSpace(runMake(t, env, project, "--eval=print-version: ; @echo $(VERSION)", "print-version"))
	}
	if got := stamped(); got != "1.0.0" {
		t.Errorf("before the tag: version %q, want the file's 1.0.0", got)
	}
	runMake(t, env, project, "tag.patch")
	git(t, project, env, "checkout", "-q", "--", "version") // as a checkout of the tag has it
	if got := readFile(t, filepath.Join(project, "version")); got != "1.0.0\n" {
		t.Fatalf("version file at the tag %q, want the release before it", got)
	}
	if got := stamped(); got != "1.0.1" {
		t.Errorf("at the tag 1.0.1: version %q, want 1.0.1", got)
	}
	git(t, project, env, "commit", "-q", "--allow-empty", "-m", "after the release")
	git(t, project, env, "tag", "nightly")
	if got := stamped(); got != "1.0.0" {
		t.Errorf("past the tag, at a tag that is no version: version %q, want the file's 1.0.0", got)
	}
}
