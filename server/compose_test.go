package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestComposeFile checks docker-compose.yml against the code it deploys,
// since no compose client runs here: every LOADMORE_ variable it sets is a
// setting the server takes, every file it mounts exists, and the health
// check calls a flag the binary has.
func TestComposeFile(t *testing.T) {
	raw, err := os.ReadFile("../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var compose struct {
		Services map[string]struct {
			Build       string            `yaml:"build"`
			Image       string            `yaml:"image"`
			Environment map[string]string `yaml:"environment"`
			Volumes     []string          `yaml:"volumes"`
			DependsOn   map[string]any    `yaml:"depends_on"`
			Healthcheck struct {
				Test []string `yaml:"test"`
			} `yaml:"healthcheck"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(raw, &compose); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	server, ok := compose.Services["wploadmore"]
	if !ok || server.Build != "." {
		t.Fatalf("no wploadmore service built from the Dockerfile: %+v", compose.Services)
	}
	for dep := range server.DependsOn {
		if _, ok := compose.Services[dep]; !ok {
			t.Errorf("depends on a service %q that is not defined", dep)
		}
	}
	args := []string{"wploadmore"}
	for _, word := range server.Healthcheck.Test[2:] {
		if strings.HasPrefix(word, "-") {
			args = append(args, word+"=x")
		}
	}
	env := envFunc(server.Environment)
	cfg, err := parseConfig(args, env, io.Discard)
	if err != nil {
		t.Fatalf("the server refuses the compose file's settings: %v", err)
	}
	if cfg.DB == "" || cfg.Redis == "" {
		t.Errorf("compose runs without MariaDB or Redis: db %q, redis %q", cfg.DB, cfg.Redis)
	}
	known := map[string]bool{}
	fs := flagNames(t)
	for _, name := range fs {
		known[envName(name)] = true
	}
	for k := range server.Environment {
		if !known[k] {
			t.Errorf("compose sets %s, which is no setting of the server", k)
		}
	}
	for name, svc := range compose.Services {
		for _, volume := range svc.Volumes {
			src, _, _ := strings.Cut(volume, ":")
			if strings.HasPrefix(src, ".") {
				if _, err := os.Stat(filepath.Join("..", src)); err != nil {
					t.Errorf("service %s mounts %s: %v", name, src, err)
				}
			}
		}
	}
}

// flagNames lists the server's flags, by asking parseConfig for its usage.
func flagNames(t *testing.T) []string {
	t.Helper()
	var usage strings.Builder
	parseConfig([]string{"wploadmore", "-h"}, nil, &usage)
	var names []string
	for line := range strings.Lines(usage.String()) {
		if f, ok := strings.CutPrefix(strings.TrimSpace(line), "-"); ok {
			name, _, _ := strings.Cut(f, " ")
			names = append(names, name)
		}
	}
	if len(names) < 10 {
		t.Fatalf("could not read the flags from the usage:\n%s", usage.String())
	}
	return names
}
