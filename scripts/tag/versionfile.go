package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// defaultVersion is where a project without a version file starts.
var defaultVersion = version{Major: 1}

// versionFile is the parsed content of the version file, with what is needed
// to write it back the same way.
type versionFile struct {
	path    string
	version version
	exists  bool
	eol     string      // line ending after the version: "\n", "\r\n" or ""
	mode    fs.FileMode // permissions to keep on rewrite
}

// readVersionFile reads path. A missing file counts as 1.0.0, to be written
// with "\n". It returns an error naming the file and quoting its content when
// the content is not one MAJOR.MINOR.PATCH line, or the read error.
func readVersionFile(path string) (versionFile, error) {
	vf := versionFile{path: path, version: defaultVersion, eol: "\n", mode: 0o644}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return vf, nil
	}
	if err != nil {
		return versionFile{}, fmt.Errorf("read version file: %w", err)
	}
	if fi, err := os.Stat(path); err == nil {
		vf.mode = fi.Mode().Perm()
	}
	vf.exists = true
	text := string(data)
	switch {
	case strings.HasSuffix(text, "\r\n"):
		vf.eol = "\r\n"
	case strings.HasSuffix(text, "\n"):
		vf.eol = "\n"
	default:
		vf.eol = ""
	}
	v, err := parseVersion(strings.TrimSuffix(text, vf.eol))
	if err != nil {
		return versionFile{}, fmt.Errorf("version file %s holds %q: %w", path, text, err)
	}
	vf.version = v
	return vf, nil
}

// write replaces the file with v and the original line ending. It writes a
// temporary file in the same directory and renames it over the old one, so a
// crash leaves either the old or the new version, never half a line.
// It returns the first error of create, write, sync, close or rename; on error
// the original file is untouched and the temporary file removed.
func (vf versionFile) write(v version) (err error) {
	dir, base := filepath.Split(vf.path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write version file: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.WriteString(v.String() + vf.eol); err != nil {
		return fmt.Errorf("write version file: %w", err)
	}
	if err := tmp.Chmod(vf.mode); err != nil {
		return fmt.Errorf("write version file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write version file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write version file: %w", err)
	}
	if err := os.Rename(tmp.Name(), vf.path); err != nil {
		return fmt.Errorf("write version file: %w", err)
	}
	return nil
}
