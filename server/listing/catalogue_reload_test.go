package listing

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestCataloguesRewrittenSameSize: a site's catalogue, and its locale's
// .php file, rewritten in place with the same size but a new modification
// time, as a language pack's update can be, are read again at the next
// Load.
func TestCataloguesRewrittenSameSize(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const locale = "eo_XX" // no Debian catalogue to merge: the test's words alone
	before := wpdbtest.MO(t, locale, "msgid \"Protected: %s\"\nmsgstr \"Geschützt: %s\"\n")
	after := wpdbtest.MO(t, locale, "msgid \"Protected: %s\"\nmsgstr \"Beschützt: %s\"\n")
	if len(before) != len(after) {
		t.Fatalf("the two catalogues are %d and %d bytes, want the same size", len(before), len(after))
	}
	c := NewCatalogues(slog.New(slog.DiscardHandler))
	start := time.Now().Add(-time.Hour)
	write := func(name string, data []byte, mod time.Time) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step, wantProtected, wantDirection string) {
		t.Helper()
		lang := c.Load(dir, locale)
		if got := lang.Catalogue.Translate("", "Protected: %s"); got != wantProtected {
			t.Errorf("%s: Protected: %%s reads %q, want %q", step, got, wantProtected)
		}
		if lang.TextDirection != wantDirection {
			t.Errorf("%s: text direction %q, want %q", step, lang.TextDirection, wantDirection)
		}
	}

	write(locale+".mo", before, start)
	write(locale+".php", []byte("<?php\n$text_direction = 'ltr';\n"), start)
	check("first read", "Geschützt: %s", "ltr")
	check("unchanged", "Geschützt: %s", "ltr")

	write(locale+".mo", after, start.Add(time.Second))
	write(locale+".php", []byte("<?php\n$text_direction = 'rtl';\n"), start.Add(time.Second))
	check("rewritten, same size, a second later", "Beschützt: %s", "rtl")
}
