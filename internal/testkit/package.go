package testkit

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// NeedPackage returns when file, which Debian's package pkg installs, is
// there: an absolute path, or a command looked up in PATH. Otherwise it
// skips t under -short and fails it without (as `make test` runs, and
// always under CI=true), with one line that names the package; see
// MissingPackage.
func NeedPackage(t testing.TB, pkg, file string) {
	t.Helper()
	if strings.Contains(file, "/") {
		if _, err := os.Stat(file); err == nil {
			return
		}
	} else if _, err := exec.LookPath(file); err == nil {
		return
	}
	MissingPackage(t, pkg, file+" is missing")
}

// MissingPackage skips t under -short and fails it otherwise, with the
// same line NeedPackage writes, for a package found missing by some other
// check than a file (a PHP module php -m does not list). why says what is
// missing.
func MissingPackage(t testing.TB, pkg, why string) {
	t.Helper()
	msg := "needs Debian's " + pkg + " package (" + why + "): apt-get install " + pkg
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip(msg)
	}
	t.Fatal(msg)
}
