package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunSeedsThenSkips(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "blog.sqlite")
	args := []string{"seed", "-quiet", "-db", db, "-n", "30", "-batch", "7"}
	noEnv := func(string) string { return "" }
	var out bytes.Buffer
	if err := run(context.Background(), args, noEnv, &out, io.Discard); err != nil {
		t.Fatalf("first run: %v", err)
	}
	if !strings.Contains(out.String(), "wrote 30 posts") {
		t.Errorf("first run said %q, want it to have written 30 posts", out.String())
	}
	out.Reset()
	if err := run(context.Background(), args, noEnv, &out, io.Discard); err != nil {
		t.Fatalf("second run: %v", err)
	}
	if !strings.Contains(out.String(), "already holds the 30 posts") {
		t.Errorf("second run said %q, want it to find the data set complete", out.String())
	}
	out.Reset()
	// Asking for more continues after what is there.
	args[len(args)-3] = "45"
	if err := run(context.Background(), args, noEnv, &out, io.Discard); err != nil {
		t.Fatalf("third run: %v", err)
	}
	if !strings.Contains(out.String(), "resuming at post 29") || !strings.Contains(out.String(), "wrote 16 posts") {
		t.Errorf("third run said %q, want it to resume at the last post", out.String())
	}
	// Asking for fewer than the table holds is refused.
	args[len(args)-3] = "10"
	if err := run(context.Background(), args, noEnv, io.Discard, io.Discard); err == nil {
		t.Error("seeding 10 posts over 45 succeeded, want an error")
	}
}

func TestParseOptionsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no database", nil, nil, "no database"},
		{"both", []string{"-db", "sqlite:x", "-wp-config", "wp-config.php"}, nil, "one or the other"},
		{"bad URL", []string{"-db", "postgres://x"}, nil, "-db"},
		{"missing wp-config", []string{"-wp-config", "/nonexistent/wp-config.php"}, nil, "-wp-config"},
		{"negative n", []string{"-db", "sqlite:x", "-n", "-1"}, nil, "-n"},
		{"zero batch", []string{"-db", "sqlite:x", "-batch", "0"}, nil, "-batch"},
		{"argument", []string{"-db", "sqlite:x", "extra"}, nil, "unexpected argument"},
		{"env both", nil, map[string]string{"LOADMORE_DB": "sqlite:x", "LOADMORE_WP_CONFIG": "w"}, "one or the other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseOptions(append([]string{"seed"}, tt.args...), func(k string) string { return tt.env[k] }, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("parseOptions(%q) = %v, want an error containing %q", tt.args, err, tt.want)
			}
		})
	}
}
