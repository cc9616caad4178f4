package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestVersionFileRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content *string // nil: no file
		want    string  // file content after writing 2.0.0
	}{
		{"missing file", nil, "2.0.0\n"},
		{"newline", ptr("1.2.3\n"), "2.0.0\n"},
		{"crlf", ptr("1.2.3\r\n"), "2.0.0\r\n"},
		{"no newline", ptr("1.2.3"), "2.0.0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "version")
			if tc.content != nil {
				writeFile(t, path, *tc.content, 0o640)
			}
			vf, err := readVersionFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := vf.write(version{Major: 2}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, readFile(t, path)); diff != "" {
				t.Errorf("version file (-want +got):\n%s", diff)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			wantMode := os.FileMode(0o644)
			if tc.content != nil {
				wantMode = 0o640
			}
			if fi.Mode().Perm() != wantMode {
				t.Errorf("mode = %v, want %v", fi.Mode().Perm(), wantMode)
			}
			assertOnlyFiles(t, dir, "version")
		})
	}
}

func TestReadVersionFileErrors(t *testing.T) {
	t.Parallel()
	t.Run("directory", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "version")
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := readVersionFile(path); err == nil {
			t.Error("reading a directory succeeded, want error")
		}
	})
	t.Run("names file and content", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "version")
		writeFile(t, path, "1.2\n", 0o644)
		_, err := readVersionFile(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `"1.2\n"`) {
			t.Errorf("error %v, want it to name %s and quote the content", err, path)
		}
	})
}

func TestWriteFailureKeepsFile(t *testing.T) {
	t.Parallel()
	// A read-only directory makes the temporary file impossible to create;
	// root ignores permissions, so the path goes through a missing directory.
	path := filepath.Join(t.TempDir(), "gone", "version")
	vf := versionFile{path: path, eol: "\n", mode: 0o644}
	if err := vf.write(version{Major: 2}); err == nil {
		t.Error("write into a missing directory succeeded, want error")
	}
}

func ptr(s string) *string { return &s }

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // WriteFile's mode is masked by umask
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertOnlyFiles fails unless dir holds exactly names: no temporary file
// may survive a write.
func assertOnlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if diff := cmp.Diff(names, got); diff != "" {
		t.Errorf("files in %s (-want +got):\n%s", dir, diff)
	}
}
