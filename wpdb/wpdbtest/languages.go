package wpdbtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// DebianLanguages is where Debian's wordpress-l10n package installs
// WordPress's catalogues ({locale}.mo, admin-{locale}.mo, ...).
const DebianLanguages = WordPressRoot + "wp-content/languages/"

// NeedGettext skips t under -short, and fails it otherwise, unless Debian's
// gettext tools (msgfmt, msgunfmt, msgcat) and wordpress-l10n catalogues
// are installed (see testkit.NeedPackage).
func NeedGettext(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"msgfmt", "msgunfmt", "msgcat"} {
		testkit.NeedPackage(t, "gettext", tool)
	}
	NeedL10n(t)
}

// NeedL10n is NeedGettext for Debian's wordpress-l10n catalogues alone.
func NeedL10n(t testing.TB) {
	t.Helper()
	testkit.NeedPackage(t, "wordpress-l10n", DebianLanguages+"de_DE.mo")
}

// MO builds a current-style catalogue for locale, as a language pack of
// today would hold it: Debian's {locale}.mo (from the WordPress 3.2–4.1
// years, when there is one) merged with po, .po text written by the test
// for the strings Debian lacks. The test's entries win. When po has no
// header entry it gets Debian's header (so Debian's Plural-Forms), or a
// bare UTF-8 one. It fails t when a tool fails or is missing (see
// [NeedGettext]).
func MO(t testing.TB, locale, po string) []byte {
	t.Helper()
	NeedGettext(t)
	dir := t.TempDir()
	var debian []byte
	if _, err := os.Stat(DebianLanguages + locale + ".mo"); err == nil {
		debian = gettext(t, "msgunfmt", DebianLanguages+locale+".mo")
	}
	if !hasHeader(po) {
		header := "msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=UTF-8\\n\"\n"
		if h, _, ok := bytes.Cut(debian, []byte("\n\n")); ok {
			header = string(h) + "\n"
		}
		po = header + "\n" + po
	}
	files := []string{writeFile(t, dir, "test.po", []byte(po))}
	if debian != nil {
		files = append(files, writeFile(t, dir, "debian.po", debian))
	}
	merged := filepath.Join(dir, "merged.po")
	gettext(t, "msgcat", append([]string{"--use-first", "-o", merged}, files...)...)
	mo := filepath.Join(dir, locale+".mo")
	gettext(t, "msgfmt", "-o", mo, merged)
	data, err := os.ReadFile(mo)
	if err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	return data
}

// hasHeader reports whether po text has a header entry: msgid "" with no
// context.
func hasHeader(po string) bool {
	prev := ""
	for _, line := range strings.Split(po, "\n") {
		line = strings.TrimSpace(line)
		if line == `msgid ""` && !strings.HasPrefix(prev, "msgctxt") {
			return true
		}
		if line != "" && !strings.HasPrefix(line, "#") {
			prev = line
		}
	}
	return false
}

// gettext runs one of gettext's tools and returns its output.
func gettext(t testing.TB, tool string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tool, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("wpdbtest: %s %s: %v\n%s", tool, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
	return path
}

// LanguagesDir is the site's WP_CONTENT_DIR/languages. WordPress takes it
// as WP_LANG_DIR once it exists, as it does a language pack's folder.
func (wp *WordPress) LanguagesDir() string {
	return filepath.Join(wp.dir, "wp-content", "languages")
}

// WriteLanguageFile writes data as name in the site's languages folder:
// "de_DE.mo", "plugins/wploadmore-de_DE.mo", or a locale's "ar.php".
func (wp *WordPress) WriteLanguageFile(t testing.TB, name string, data []byte) {
	t.Helper()
	writeFile(t, wp.LanguagesDir(), name, data)
}

// SetLanguage installs mo (see [MO]) as the site's {locale}.mo and sets
// the WPLANG option to locale, as choosing the site language in Settings
// after its language pack is installed does. Later PHP calls run in
// locale. A nil mo installs no file: SetLanguage(t, "", nil) is English.
func (wp *WordPress) SetLanguage(t testing.TB, locale string, mo []byte) {
	t.Helper()
	if mo != nil {
		wp.WriteLanguageFile(t, locale+".mo", mo)
	}
	wp.PHP(t, fmt.Sprintf("update_option('WPLANG', %s);", phpString(locale)))
}
