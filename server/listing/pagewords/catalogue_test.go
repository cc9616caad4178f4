package pagewords

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/wploadmore/wploadmore/internal/pomo"
	"github.com/wploadmore/wploadmore/templates"
)

// siteLanguages makes a WP_LANG_DIR whose plugins folder holds, for each
// name, that file's bytes.
func siteLanguages(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "plugins"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, "plugins", name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// siteMO is a site's own German catalogue of the words, which says only
// the button differently.
func siteMO(t *testing.T) []byte {
	t.Helper()
	po := filepath.Join(t.TempDir(), "site.po")
	if err := os.WriteFile(po, []byte(`msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=n != 1;\n"

msgid "More posts"
msgstr "Mehr lesen"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	mo := filepath.Join(t.TempDir(), "site.mo")
	run(t, "msgfmt", "-o", mo, po)
	data, err := os.ReadFile(mo)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestCatalogue(t *testing.T) {
	huge := filepath.Join(t.TempDir(), "huge.mo")
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, pomo.MaxMOSize+1); err != nil {
		t.Fatal(err)
	}
	hugeDir := siteLanguages(t, nil)
	if err := os.Symlink(huge, filepath.Join(hugeDir, "plugins", "wploadmore-de_DE.mo")); err != nil {
		t.Fatal(err)
	}
	site := siteMO(t)
	for _, tc := range []struct {
		name, locale, langDir string
		wantMore              string // the button, "" for no catalogue
		wantErr               bool   // an error for the log
	}{
		{name: "shipped", locale: "de_DE", wantMore: "Weitere Beiträge"},
		{name: "no site file", locale: "de_DE", langDir: siteLanguages(t, nil), wantMore: "Weitere Beiträge"},
		// load_plugin_textdomain() returns once the site's file loads:
		// what it lacks is English, not the shipped translation.
		{name: "the site's file replaces the shipped one", locale: "de_DE",
			langDir: siteLanguages(t, map[string][]byte{"wploadmore-de_DE.mo": site}), wantMore: "Mehr lesen"},
		{name: "the site's file for a locale not shipped", locale: "de_AT",
			langDir: siteLanguages(t, map[string][]byte{"wploadmore-de_AT.mo": site}), wantMore: "Mehr lesen"},
		{name: "another locale's file is not read", locale: "fr_FR",
			langDir: siteLanguages(t, map[string][]byte{"wploadmore-de_DE.mo": site}), wantMore: "Plus d’articles"},
		{name: "truncated site file", locale: "de_DE",
			langDir: siteLanguages(t, map[string][]byte{"wploadmore-de_DE.mo": site[:len(site)/2]}), wantMore: "Weitere Beiträge", wantErr: true},
		{name: "corrupt site file", locale: "de_DE",
			langDir: siteLanguages(t, map[string][]byte{"wploadmore-de_DE.mo": []byte("<?php echo 'not a catalogue';")}), wantMore: "Weitere Beiträge", wantErr: true},
		{name: "oversized site file", locale: "de_DE", langDir: hugeDir, wantMore: "Weitere Beiträge", wantErr: true},
		{name: "English", locale: "en_US", langDir: siteLanguages(t, nil)},
		{name: "a locale with none", locale: "xx_XX"},
		{name: "a locale that names a path", locale: "../../de_DE", wantErr: true},
		{name: "no locale", locale: "", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Catalogue(templates.FS, tc.locale, tc.langDir)
			if (err != nil) != tc.wantErr {
				t.Errorf("error %v, want one: %t", err, tc.wantErr)
			}
			if err != nil && tc.langDir != "" && !errors.Is(err, pomo.ErrInvalid) {
				t.Errorf("error %v does not wrap pomo.ErrInvalid", err)
			}
			if tc.wantMore == "" {
				if c != nil {
					t.Errorf("a catalogue of %d entries, want none", c.Len())
				}
				return
			}
			if got := c.Translate("", "More posts"); got != tc.wantMore {
				t.Errorf("More posts: %q, want %q", got, tc.wantMore)
			}
			if tc.wantMore == "Mehr lesen" && c.Translate("", "No posts yet.") != "No posts yet." {
				t.Errorf("the site's file was merged with the shipped one")
			}
		})
	}
}

// TestShippedCataloguesLoad checks every embedded catalogue parses, so a
// bad build cannot leave a locale in English unnoticed.
func TestShippedCataloguesLoad(t *testing.T) {
	mos, err := fs.Glob(templates.FS, ShippedDir+"/*.mo")
	if err != nil || len(mos) < len(pluralForms) {
		t.Fatalf("%d embedded catalogues (%v), want %d", len(mos), err, len(pluralForms))
	}
	for locale := range pluralForms {
		if c, err := Catalogue(templates.FS, locale, ""); err != nil || c == nil || c.Len() != len(Messages()) {
			t.Errorf("%s: %v entries, error %v; want %d", locale, c.Len(), err, len(Messages()))
		}
	}
}

func TestPrepareKey(t *testing.T) {
	de, _ := Catalogue(templates.FS, "de_DE", "")
	sizes := Sizes{Batch: 2, MaxPosts: 200}
	a, b := Prepare(de, Language{Locale: "de_DE", ThousandsSep: "."}, sizes), Prepare(de, Language{Locale: "de_DE", ThousandsSep: "."}, sizes)
	if a.Key() != b.Key() {
		t.Errorf("the same words prepared twice have keys %x and %x", a.Key(), b.Key())
	}
	for name, other := range map[string]*Words{
		"English":         Prepare(nil, Language{Locale: "de_DE", ThousandsSep: "."}, sizes),
		"another batch":   Prepare(de, Language{Locale: "de_DE", ThousandsSep: "."}, Sizes{Batch: 3, MaxPosts: 200}),
		"another cap":     Prepare(de, Language{Locale: "de_DE", ThousandsSep: "."}, Sizes{Batch: 2, MaxPosts: 100}),
		"another grouper": Prepare(de, Language{Locale: "de_DE", ThousandsSep: ","}, sizes),
		"another locale":  Prepare(de, Language{Locale: "de_AT", ThousandsSep: "."}, sizes),
	} {
		if other.Key() == a.Key() {
			t.Errorf("%s: the same key %x", name, a.Key())
		}
	}
}
