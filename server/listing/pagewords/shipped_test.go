package pagewords

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/internal/pomo"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/templates"
)

// languagesDir is the catalogues' source folder, from this package.
var languagesDir = filepath.Join("..", "..", "..", "templates", ShippedDir)

// pluralForms are the locales the server ships words for, with the
// Plural-Forms that translate.wordpress.org's GlotPress gives each.
var pluralForms = map[string]string{
	"ja":    "nplurals=1; plural=0;",
	"zh_CN": "nplurals=1; plural=0;",
	"de_DE": "nplurals=2; plural=n != 1;",
	"es_ES": "nplurals=2; plural=n != 1;",
	"it_IT": "nplurals=2; plural=n != 1;",
	"nl_NL": "nplurals=2; plural=n != 1;",
	"he_IL": "nplurals=2; plural=n != 1;",
	"fr_FR": "nplurals=2; plural=n > 1;",
	"pt_BR": "nplurals=2; plural=n > 1;",
	"tr_TR": "nplurals=2; plural=n > 1;",
	"ru_RU": "nplurals=3; plural=(n % 10 == 1 && n % 100 != 11) ? 0 : ((n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14)) ? 1 : 2);",
	"pl_PL": "nplurals=3; plural=(n == 1) ? 0 : ((n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14)) ? 1 : 2);",
	"ar":    "nplurals=6; plural=(n == 0) ? 0 : ((n == 1) ? 1 : ((n == 2) ? 2 : ((n % 100 >= 3 && n % 100 <= 10) ? 3 : ((n % 100 >= 11 && n % 100 <= 99) ? 4 : 5))));",
}

// tool is the path of a gettext or PHP command; without it the test is
// skipped under -short and fails otherwise (see testkit.NeedPackage).
func tool(t *testing.T, name string) string {
	t.Helper()
	pkg := "gettext"
	if name == "php" {
		pkg = "php-cli"
	}
	testkit.NeedPackage(t, pkg, name)
	path, err := exec.LookPath(name)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func run(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(tool(t, name), args...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr)
	}
	return out
}

func TestPOTIsCurrent(t *testing.T) {
	var want bytes.Buffer
	if err := WritePOT(&want, Messages()); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(languagesDir, "wploadmore.pot"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.String(), string(got)); diff != "" {
		t.Errorf("templates/languages/wploadmore.pot is stale: run `make pot` (-want +got)\n%s", diff)
	}
}

// TestShippedCatalogues checks every .po against the .pot and its .mo: the
// same messages, each translated in every plural form with the locale's
// Plural-Forms, and the embedded .mo compiled from the .po as it is.
func TestShippedCatalogues(t *testing.T) {
	pos, err := filepath.Glob(filepath.Join(languagesDir, "*.po"))
	if err != nil {
		t.Fatal(err)
	}
	var locales []string
	for _, po := range pos {
		locales = append(locales, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(po), Domain+"-"), ".po"))
	}
	want := slices.Sorted(func(yield func(string) bool) {
		for l := range pluralForms {
			if !yield(l) {
				return
			}
		}
	})
	if diff := cmp.Diff(want, locales); diff != "" {
		t.Errorf("locales shipped (-want +got)\n%s", diff)
	}
	pot := filepath.Join(languagesDir, "wploadmore.pot")
	for _, locale := range locales {
		t.Run(locale, func(t *testing.T) {
			po := filepath.Join(languagesDir, Domain+"-"+locale+".po")
			// The same messages as the .pot, none missing, none left over.
			run(t, "msgcmp", po, pot)
			run(t, "msgcmp", "--use-untranslated", pot, po)
			// Compiled from the .po as it is: msgunfmt writes both alike
			// whatever msgfmt's version laid the tables out.
			fresh := filepath.Join(t.TempDir(), "fresh.mo")
			run(t, "msgfmt", "--check-format", "-o", fresh, po)
			data, err := fs.ReadFile(templates.FS, ShippedDir+"/"+Domain+"-"+locale+".mo")
			if err != nil {
				t.Fatalf("embedded catalogue: %v", err)
			}
			embedded := filepath.Join(t.TempDir(), "embedded.mo")
			if err := os.WriteFile(embedded, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(run(t, "msgunfmt", fresh)), string(run(t, "msgunfmt", embedded))); diff != "" {
				t.Fatalf("%s-%s.mo is stale: run `make pot` (-from the .po +embedded)\n%s", Domain, locale, diff)
			}
			c, err := pomo.ParseMO(data)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Header("Plural-Forms"); got != pluralForms[locale] {
				t.Errorf("Plural-Forms %q, want GlotPress's %q", got, pluralForms[locale])
			}
			if got := c.Header("Language"); got != locale {
				t.Errorf("Language %q, want %q", got, locale)
			}
			// Every message translated; every plural form, as WordPress
			// picks it for n from 0 to 1000, differs from the English.
			for _, m := range Messages() {
				if !c.Has(m.Context, m.ID) {
					t.Errorf("%q is not translated", m.ID)
					continue
				}
				for n := range int64(1001) {
					if m.Plural == "" {
						break
					}
					if got := c.TranslatePlural(m.Context, m.ID, m.Plural, n); got == m.ID || got == m.Plural || got == "" {
						t.Errorf("%q for n=%d: %q, the English", m.ID, n, got)
						break
					}
				}
			}
		})
	}
}
