package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestResolveBuild(t *testing.T) {
	t.Parallel()
	stamped := func(settings ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Path: "github.com/wploadmore/wploadmore", Version: "(devel)"}}
		for i := 0; i+1 < len(settings); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return info
	}
	const rev = "6c3f6b8d2a1e4f5b6c7d8e9f0a1b2c3d4e5f6a7b"
	tagged := stamped("vcs.revision", rev)
	tagged.Main.Version = "v1.0.1"
	tests := []struct {
		name    string
		ldflags string
		info    *debug.BuildInfo
		want    buildInfo
	}{
		{"make build in a checkout", "1.0.0\n", stamped("vcs", "git", "vcs.revision", rev, "vcs.modified", "false"),
			buildInfo{"1.0.0", rev, "go1.99.1"}},
		{"a changed tree", "1.0.0", stamped("vcs.revision", rev, "vcs.modified", "true"),
			buildInfo{"1.0.0", rev + "+dirty", "go1.99.1"}},
		{"go build of a tagged module, no -X", "", tagged, buildInfo{"v1.0.1", rev, "go1.99.1"}},
		{"go run: nothing stamped", "", stamped(), buildInfo{"devel", "unknown", "go1.99.1"}},
		{"modified without a revision", "", stamped("vcs.modified", "true"), buildInfo{"devel", "unknown", "go1.99.1"}},
		{"no build info", "2.0.0", nil, buildInfo{"2.0.0", "unknown", runtime.Version()}},
		{"nothing at all", "", nil, buildInfo{"devel", "unknown", runtime.Version()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resolveBuild(tt.ldflags, tt.info); got != tt.want {
				t.Errorf("resolveBuild = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestVersionFlag checks that -version prints the build and starts nothing:
// no listener, no database.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	err := run(context.Background(), []string{"wploadmore", "-version", "-addr", "256.0.0.1:1"}, envFunc(map[string]string{"LOADMORE_DB": "mysql://root@127.0.0.1:1/none"}), &out)
	if err != nil {
		t.Fatalf("run -version: %v", err)
	}
	b := buildVersion()
	want := "wploadmore " + b.Version + " revision " + b.Revision + " " + b.GoVersion + "\n"
	if out.String() != want {
		t.Errorf("-version printed %q, want %q", out.String(), want)
	}
}

// TestVersionLdflags builds the binary as the Makefile does, with the
// version file's content through -ldflags -X, and runs -version: it is
// what proves main.version is the variable -X sets.
func TestVersionLdflags(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary")
	}
	t.Parallel()
	raw, err := os.ReadFile("../version")
	if err != nil {
		t.Fatal(err)
	}
	release := strings.TrimSpace(string(raw))
	bin := filepath.Join(t.TempDir(), "wploadmore")
	build := exec.Command("go", "build", "-ldflags", "-X main.version="+release, "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "-version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s -version: %v\n%s", bin, err, out)
	}
	if !strings.HasPrefix(string(out), "wploadmore "+release+" revision ") {
		t.Errorf("-version printed %q, want wploadmore %s revision …", out, release)
	}
}
