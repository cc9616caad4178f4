package main

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// version is the release, set at build: go build -ldflags
// "-X main.version=…", which the Makefile gives the commit's version tag,
// else the root version file, and the Dockerfile the file. It is the one
// package variable the server has, as -X can set nothing else; go:embed
// cannot reach the file from server/. Read it through buildVersion, never
// directly.
var version string

// buildInfo names the build an operator runs: in -version, in the start
// log and in the wploadmore_build_info metric.
type buildInfo struct {
	Version   string // -X main.version's (a tag or the version file), else the main module's version, else "devel"
	Revision  string // the VCS commit, "+dirty" when the tree had changes; "unknown" when not stamped
	GoVersion string
}

// buildVersion reads the build's version and revision: -X main.version,
// then what the go command stamped into the binary.
func buildVersion() buildInfo {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	return resolveBuild(version, info)
}

// resolveBuild is buildVersion with its inputs given, for tests. A binary
// built by go build inside the repository carries vcs.revision; go run and
// go test do not stamp one, nor does a build outside a checkout (a Docker
// build that copies no .git), hence "unknown".
func resolveBuild(stamped string, info *debug.BuildInfo) buildInfo {
	b := buildInfo{Version: strings.TrimSpace(stamped), Revision: "unknown", GoVersion: runtime.Version()}
	if info == nil {
		if b.Version == "" {
			b.Version = "devel"
		}
		return b
	}
	if b.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		b.Version = info.Main.Version
	}
	if b.Version == "" {
		b.Version = "devel"
	}
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && b.Revision != "unknown" {
		b.Revision += "+dirty"
	}
	if info.GoVersion != "" {
		b.GoVersion = info.GoVersion
	}
	return b
}
