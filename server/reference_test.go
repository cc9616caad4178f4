package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/internal/setting"
)

var update = flag.Bool("update", false, "rewrite ../docs/configuration.md from the settings' tables (make docs)")

const referencePath = "../docs/configuration.md"

// TestConfigurationReference: docs/configuration.md is what the settings'
// tables make of it, and each flag there has its variable and default,
// and nothing else is there. With -update it writes the file instead.
func TestConfigurationReference(t *testing.T) {
	var cfg Config
	groups := cfg.settingGroups()
	var want bytes.Buffer
	writeReference(&want, groups)
	if *update {
		if err := os.WriteFile(referencePath, want.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatalf("%v: run make docs", err)
	}
	if diff := cmp.Diff(want.String(), string(got)); diff != "" {
		t.Errorf("%s is not what the settings make of it; run make docs (-want +got)\n%s", referencePath, diff)
	}

	// Read the file as a reader does, apart from the generator: the same
	// flags, each with its own variable and default.
	documented := readReference(t, got)
	fs := newFlagSet("wploadmore", groups)
	var flags []string
	fs.VisitAll(func(f *flag.Flag) {
		flags = append(flags, f.Name)
		entry, ok := documented[f.Name]
		if !ok {
			t.Errorf("-%s is not in %s", f.Name, referencePath)
			return
		}
		if !strings.Contains(entry, "`"+envName(f.Name)+"`") {
			t.Errorf("-%s: no %s in its entry:\n%s", f.Name, envName(f.Name), entry)
		}
		def := f.DefValue
		if s := lookupSetting(groups, f.Name); s.Default != "" {
			def = s.Default
		}
		if wantDefault := "Default: " + defaultText(def); !strings.Contains(entry, wantDefault) {
			t.Errorf("-%s: no %q in its entry:\n%s", f.Name, wantDefault, entry)
		}
	})
	for name := range documented {
		if fs.Lookup(name) == nil {
			t.Errorf("%s documents -%s, which is no flag of the server", referencePath, name)
		}
	}
	if len(documented) != len(flags) {
		t.Errorf("%s documents %d flags; the server has %d", referencePath, len(documented), len(flags))
	}
}

// readReference returns each flag's entry in the reference, by name.
func readReference(t *testing.T, doc []byte) map[string]string {
	t.Helper()
	heading := regexp.MustCompile("^### `-([a-z0-9-]+)`$")
	entries := map[string]string{}
	var name string
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for sc.Scan() {
		line := sc.Text()
		if m := heading.FindStringSubmatch(line); m != nil {
			name = m[1]
			if _, twice := entries[name]; twice {
				t.Errorf("-%s is documented twice", name)
			}
			entries[name] = ""
			continue
		}
		if strings.HasPrefix(line, "#") {
			name = ""
		}
		if name != "" {
			entries[name] += line + "\n"
		}
	}
	return entries
}

func lookupSetting(groups []setting.Group, name string) setting.Setting {
	for _, g := range groups {
		for _, s := range g.Settings {
			if s.Name == name {
				return s
			}
		}
	}
	return setting.Setting{}
}

// writeReference writes the configuration reference: every setting of
// groups, by component, with its variable, default and help.
func writeReference(w io.Writer, groups []setting.Group) {
	fmt.Fprintf(w, `# Configuration reference

<!-- Generated from the settings' tables by make docs: edit those, not this file. -->

Every setting is a flag and an environment variable: %[1]s and the flag's name in capitals, with _ for - (-max-batch is %[2]s). A flag given on the command line wins over its variable, and an empty variable counts as unset. A %[1]s variable that names no setting stops the start, so that a typo never leaves the server on a default.

A setting whose value may hold a password can also be read from a file named by its variable and _FILE, as Docker and Kubernetes mount secrets: %[3]s_FILE=/run/secrets/db. Its entry names that variable too. The file's trailing newline is dropped, and giving both the variable and its _FILE form is refused.
`, envPrefix, envName("max-batch"), envName("db"))
	for _, g := range groups {
		fmt.Fprintf(w, "\n## %s\n", g.Component)
		for _, s := range g.Settings {
			fmt.Fprintf(w, "\n### `-%s`\n\n", s.Name)
			fmt.Fprintf(w, "Variable: `%s`", envName(s.Name))
			if s.Secret {
				fmt.Fprintf(w, " or `%s_FILE`", envName(s.Name))
			}
			fmt.Fprintf(w, " · Default: %s\n\n", defaultText(s.DefaultText()))
			fmt.Fprintf(w, "%s.\n", sentence(s.Help()))
		}
	}
}

// sentence is help as a sentence: a capital first, a full stop last, and
// the back-quoted name of the value, which -h shows after the flag, as a
// word.
func sentence(help string) string {
	help = strings.ReplaceAll(help, "`", "")
	r, size := utf8.DecodeRuneInString(help)
	return string(unicode.ToUpper(r)) + strings.TrimSuffix(help[size:], ".")
}

// defaultText shows a default as the reference does: as code, or "none".
func defaultText(def string) string {
	if def == "" {
		return "none"
	}
	return "`" + def + "`"
}
