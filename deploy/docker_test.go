package deploy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// pinned is an image reference whose tag names at least a minor version
// (golang:1.26.8-bookworm, mariadb:11.4, redis:7.4-alpine), or a distroless
// image, which has no version tags but names its Debian release
// (gcr.io/distroless/static-debian12:nonroot). A floating tag (mariadb:11,
// redis:7-alpine, latest) or none changes what a rebuild gets.
var pinned = regexp.MustCompile(`^(?:[^:@\s]+:\d+\.\d+[\w.-]*|gcr\.io/distroless/[a-z]+-debian\d+:[\w.-]+)(?:@sha256:[0-9a-f]{64})?$`)

func TestPinnedPattern(t *testing.T) {
	for _, tt := range []struct {
		image string
		want  bool
	}{
		{"golang:1.26.8-bookworm", true},
		{"node:20.20-bookworm-slim", true},
		{"mariadb:11.4", true},
		{"redis:7.4-alpine", true},
		{"gcr.io/distroless/static-debian12:nonroot", true},
		{"golang:1.26.8-bookworm@sha256:" + strings.Repeat("ab", 32), true},
		{"golang:1.26-bookworm", true},
		{"mariadb:11", false},
		{"redis:7-alpine", false},
		{"redis", false},
		{"redis:latest", false},
		{"node:lts-bookworm-slim", false},
		{"gcr.io/distroless/static:nonroot", false},
	} {
		if got := pinned.MatchString(tt.image); got != tt.want {
			t.Errorf("pinned(%q) = %v, want %v", tt.image, got, tt.want)
		}
	}
}

// TestDockerfile checks what a docker build would show, as no Docker
// engine runs here: the base images are pinned, and /data, the embedded
// database's folder, is made for the user the server runs as.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var froms []string
	var env []string
	var user, dataCopy string
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		switch strings.ToUpper(fields[0]) {
		case "FROM":
			froms = append(froms, fields[1])
		case "ENV":
			env = fields[1:]
		case "USER":
			user = fields[1]
		case "COPY":
			if fields[len(fields)-1] == "/data" {
				dataCopy = line
			}
		}
	}
	if len(froms) == 0 {
		t.Fatal("no FROM line")
	}
	for _, image := range froms {
		if !pinned.MatchString(image) {
			t.Errorf("FROM %s: not pinned to a minor version", image)
		}
	}
	// distroless's nonroot user is 65532:65532.
	if user != "nonroot:nonroot" && user != "65532:65532" {
		t.Errorf("USER %s, want nonroot:nonroot (65532)", user)
	}
	if !strings.Contains(dataCopy, "--chown=65532:65532") {
		t.Errorf("no COPY --chown=65532:65532 … /data: the image's /data would be root's (got %q)", dataCopy)
	}
	if !strings.Contains(string(b), "LOADMORE_DATA_DIR=/data") {
		t.Error("LOADMORE_DATA_DIR is not /data")
	}
	checkSettings(t, "Dockerfile ENV", env)
}

// composeFile is the part of a compose file the tests read.
type composeFile struct {
	Services map[string]struct {
		Image       string
		Environment map[string]string
	}
}

func readCompose(t *testing.T, name string) composeFile {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c
}

// TestCompose checks both compose files: pinned images, and LOADMORE_
// variables the server knows, with values it accepts; for the override,
// merged over docker-compose.yml as docker compose merges them, and its
// commented alternatives one by one. No compose runs here.
func TestCompose(t *testing.T) {
	base := readCompose(t, "../docker-compose.yml")
	override := readCompose(t, "docker-compose.existing-wordpress.yml")
	for name, file := range map[string]composeFile{"docker-compose.yml": base, "override": override} {
		for service, s := range file.Services {
			if s.Image != "" && !pinned.MatchString(s.Image) {
				t.Errorf("%s: service %s: image %s is not pinned to a minor version", name, service, s.Image)
			}
		}
	}

	merged := map[string]string{}
	for k, v := range base.Services["wploadmore"].Environment {
		merged[k] = v
	}
	if len(override.Services["wploadmore"].Environment) == 0 {
		t.Fatal("the override sets no variable of the wploadmore service")
	}
	for k, v := range override.Services["wploadmore"].Environment {
		merged[k] = v
	}
	var env []string
	for k, v := range merged {
		env = append(env, k+"="+v)
	}
	checkSettings(t, "docker-compose.yml with the override", env)

	b, err := os.ReadFile("docker-compose.existing-wordpress.yml")
	if err != nil {
		t.Fatal(err)
	}
	commented := regexp.MustCompile(`(?m)^\s*#\s*(LOADMORE_\w+):\s*"?([^"\n]*)"?\s*$`)
	for _, m := range commented.FindAllStringSubmatch(string(b), -1) {
		if m[2] == "" {
			continue // an unset, as "" is
		}
		checkSettings(t, "override comment", []string{m[1] + "=" + m[2]})
	}
}

// TestDataDirAsNonroot runs the server as the image does, as distroless's
// nonroot (65532) with nothing configured, so it creates the demo database
// in LOADMORE_DATA_DIR: in a /data made as the Dockerfile makes it (owned
// by 65532) it serves; in one owned by root, as /data was before, it stops
// with "permission denied".
func TestDataDirAsNonroot(t *testing.T) {
	if os.Geteuid() != 0 {
		msg := "running the server as uid 65532 needs root"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	bin := serverBinary(t)
	// The test's folders are root's alone; nonroot must reach the binary.
	for _, d := range []string{binDir, filepath.Dir(bin)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	parent, err := os.MkdirTemp("", "wploadmore-nonroot-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		name     string
		owner    int
		wantFail string // "" when the server must serve
	}{
		{"owned by nonroot, as the Dockerfile makes it", 65532, ""},
		{"owned by root", 0, "permission denied"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := filepath.Join(parent, strings.ReplaceAll(tt.name, " ", "-"))
			if err := os.Mkdir(data, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(data, tt.owner, tt.owner); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin)
			cmd.Env = []string{"LOADMORE_ADDR=127.0.0.1:0", "LOADMORE_DATA_DIR=" + data, "LOADMORE_LOG_FORMAT=json"}
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65532, Gid: 65532}}
			p := startProcess(t, "wploadmore as 65532", cmd)
			addr, err := p.listening(60 * time.Second)
			switch {
			case tt.wantFail == "" && err != nil:
				t.Fatal(err)
			case tt.wantFail == "":
				waitOK(t, "http://"+addr+"/readyz")
			case err == nil:
				t.Fatalf("the server started in a folder it cannot write; want it to stop with %q", tt.wantFail)
			case !strings.Contains(p.output.String(), tt.wantFail):
				t.Fatalf("want the server to stop with %q; it said:\n%s", tt.wantFail, p.output.String())
			}
		})
	}
}
