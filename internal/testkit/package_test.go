package testkit_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// missingLine is what NeedPackage says about the package the helper test
// below lacks.
const missingLine = "needs Debian's no-such-package package (/nonexistent/no-such-file is missing): apt-get install no-such-package"

// TestNeedPackageMissing is run by TestNeedPackage in a child process of
// this test binary, with TESTKIT_MISSING=1; alone it does nothing.
func TestNeedPackageMissing(t *testing.T) {
	if os.Getenv("TESTKIT_MISSING") != "1" {
		return
	}
	testkit.NeedPackage(t, "no-such-package", "/nonexistent/no-such-file")
	t.Log("NeedPackage returned")
}

// TestNeedPackage: a package that is there lets the test run; one that is
// missing skips it under -short and fails it without, with one line that
// names it, and CI=true fails it even under -short.
func TestNeedPackage(t *testing.T) {
	t.Parallel()
	testkit.NeedPackage(t, "coreutils", "/bin/sh") // returns
	testkit.NeedPackage(t, "coreutils", "sh")      // looked up in PATH
	tests := []struct {
		name   string
		args   []string
		ci     bool
		failed bool
		want   string
	}{
		{"-short skips", []string{"-test.short"}, false, false, "--- SKIP: TestNeedPackageMissing"},
		{"make test fails", nil, false, true, "--- FAIL: TestNeedPackageMissing"},
		{"CI=true fails under -short", []string{"-test.short"}, true, true, "--- FAIL: TestNeedPackageMissing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-test.run", "^TestNeedPackageMissing$", "-test.v", "-test.count=1"}, tt.args...)
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "CI=") })
			cmd.Env = append(cmd.Env, "TESTKIT_MISSING=1")
			if tt.ci {
				cmd.Env = append(cmd.Env, "CI=true")
			}
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != tt.failed {
				t.Errorf("child failed: %v, want %v: %v\n%s", failed, tt.failed, err, out)
			}
			for _, want := range []string{tt.want, missingLine} {
				if !strings.Contains(string(out), want) {
					t.Errorf("child's output lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(string(out), "NeedPackage returned") {
				t.Errorf("the test went on past NeedPackage:\n%s", out)
			}
		})
	}
}
