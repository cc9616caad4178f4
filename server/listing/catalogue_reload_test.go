package listing

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/pomo"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestCataloguesRewrittenSameSize: a site's catalogue, and its locale's
// .php file, rewritten in place with the same size but a new modification
// time, as a language pack's update can be, are read again at the next
// Load: a second later, a millisecond later, and with a time older than
// the last (a pack unpacked with its archive's times, or restored from a
// backup). An unchanged file is not read again.
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
		// A file system that kept a coarser time could not tell a
		// rewrite a millisecond later from the last one.
		if fi, err := os.Stat(path); err != nil {
			t.Fatal(err)
		} else if !fi.ModTime().Equal(mod) {
			t.Fatalf("%s: modification time %v, want %v", name, fi.ModTime(), mod)
		}
	}
	var last *pomo.Catalogue
	check := func(step, wantProtected, wantDirection string) {
		t.Helper()
		lang := c.Load(dir, locale)
		if got := lang.Catalogue.Translate("", "Protected: %s"); got != wantProtected {
			t.Errorf("%s: Protected: %%s reads %q, want %q", step, got, wantProtected)
		}
		if lang.TextDirection != wantDirection {
			t.Errorf("%s: text direction %q, want %q", step, lang.TextDirection, wantDirection)
		}
		if lang.Catalogue == last {
			t.Errorf("%s: the catalogue was not read again", step)
		}
		last = lang.Catalogue
	}
	rewrite := func(step string, mo []byte, protected, direction string, mod time.Time) {
		t.Helper()
		write(locale+".mo", mo, mod)
		write(locale+".php", []byte("<?php\n$text_direction = '"+direction+"';\n"), mod)
		check(step, protected, direction)
	}

	rewrite("first read", before, "Geschützt: %s", "ltr", start)
	if lang := c.Load(dir, locale); lang.Catalogue != last || lang.TextDirection != "ltr" {
		t.Errorf("unchanged: the catalogue was read again (%p, was %p), or its direction %q changed", lang.Catalogue, last, lang.TextDirection)
	}
	rewrite("rewritten, same size, a second later", after, "Beschützt: %s", "rtl", start.Add(time.Second))
	rewrite("rewritten, same size, a millisecond later", before, "Geschützt: %s", "ltr", start.Add(time.Second+time.Millisecond))
	rewrite("rewritten, same size, an older time", after, "Beschützt: %s", "rtl", start.Add(-24*time.Hour))
}
