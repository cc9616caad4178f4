package listing

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/pomo"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// lockedBuffer is a log destination the test reads while Catalogues
// write to it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) warnings() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), "level=WARN")
}

// TestCataloguesLoad loads a site's catalogue as WordPress does, and
// refuses a broken one with one warning naming the file, then English;
// a file changed on disk is read again, an unchanged one is not.
func TestCataloguesLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := wpdbtest.MO(t, "de_DE", "msgid \"Protected: %s\"\nmsgstr \"Geschützt: %s\"\n")
	var logs lockedBuffer
	c := NewCatalogues(slog.New(slog.NewTextHandler(&logs, nil)))
	path := filepath.Join(dir, "de_DE.mo")
	write := func(data []byte) {
		t.Helper()
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		// A later write must show as a change even within the clock's
		// resolution: size or time.
		later := time.Now().Add(time.Duration(len(data)) * time.Second)
		if err := os.Chtimes(path, later, later); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string, lang Language, wantLocale, wantProtected string, wantWarnings int) {
		t.Helper()
		if lang.Locale != wantLocale {
			t.Errorf("%s: locale %q, want %q", step, lang.Locale, wantLocale)
		}
		if got := lang.Catalogue.Translate("", "Protected: %s"); got != wantProtected {
			t.Errorf("%s: Protected: %%s reads %q, want %q", step, got, wantProtected)
		}
		if got := logs.warnings(); got != wantWarnings {
			t.Errorf("%s: %d warnings logged, want %d:\n%s", step, got, wantWarnings, logs.b.String())
		}
	}

	check("en_US, no catalogue", c.Load(dir, "en_US"), "en_US", "Protected: %s", 0)
	check("de_DE missing", c.Load(dir, "de_DE"), "de_DE", "Protected: %s", 1)
	check("de_DE still missing", c.Load(dir, "de_DE"), "de_DE", "Protected: %s", 1)
	write(good)
	check("de_DE installed", c.Load(dir, "de_DE"), "de_DE", "Geschützt: %s", 1)
	first := c.Load(dir, "de_DE").Catalogue
	if again := c.Load(dir, "de_DE").Catalogue; again != first {
		t.Error("an unchanged catalogue was read again")
	}
	write(good[:len(good)/2])
	check("truncated", c.Load(dir, "de_DE"), "de_DE", "Protected: %s", 2)
	check("truncated, read again", c.Load(dir, "de_DE"), "de_DE", "Protected: %s", 2)
	if !strings.Contains(logs.b.String(), path) {
		t.Errorf("the warnings do not name %s:\n%s", path, logs.b.String())
	}
	write(good)
	check("repaired", c.Load(dir, "de_DE"), "de_DE", "Geschützt: %s", 2)
	if err := os.Truncate(path, pomo.MaxMOSize+1); err != nil {
		t.Fatal(err)
	}
	check("oversized", c.Load(dir, "de_DE"), "de_DE", "Protected: %s", 3)
	if got := c.Load(dir, "de_DE").TextDirection; got != "" {
		t.Errorf("text direction %q with no de_DE.php", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "de_DE.php"), []byte("<?php\n$text_direction = 'rtl';\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := c.Load(dir, "de_DE").TextDirection; got != "rtl" {
		t.Errorf("text direction %q, want de_DE.php's rtl", got)
	}
	check("a path for a locale", c.Load(dir, "../de_DE"), "en_US", "Protected: %s", 4)
	check("no folder", c.Load("", "fr_FR"), "fr_FR", "Protected: %s", 5)
}

// TestSiteWords shows a protected post's title and an archive's titles in
// the catalogue's words, its HTML read as text; with no catalogue they
// read as they always have.
func TestSiteWords(t *testing.T) {
	t.Parallel()
	po := `msgid "Protected: %s"
msgstr "Protégé&nbsp;: %s"

msgctxt "category archive title prefix"
msgid "Category:"
msgstr "Catégorie&nbsp;:"

msgctxt "archive title"
msgid "%1$s %2$s"
msgstr "%2$s (%1$s)"

msgctxt "en dash"
msgid "&#8211;"
msgstr "&#8212;"
`
	cat, err := pomo.ParseMO(wpdbtest.MO(t, "fr_FR", po))
	if err != nil {
		t.Fatal(err)
	}
	news := blog.Archive{Terms: []blog.ArchiveTerm{{Taxonomy: "category", Name: "News &amp; views"}}}
	tests := []struct {
		name string
		lang Language
		want []string // protected title, heading, document title
	}{
		{"English", Language{Locale: "en_US"}, []string{"Protected: Fish & Chips", "Category: News & views", "News & views – Site"}},
		{"French", Language{Locale: "fr_FR", Catalogue: cat},
			[]string{"Protégé\u00a0: Fish & Chips", "News & views (Catégorie\u00a0:)", "News & views — Site"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site := NewSite(Choices{Title: "Site", ImageSize: DefaultImageSize}, blog.Options{}, tt.lang, slog.New(slog.DiscardHandler))
			if site.Locale != tt.lang.Locale {
				t.Errorf("Locale = %q, want %q", site.Locale, tt.lang.Locale)
			}
			f := NewFormat(site)
			posts := mustPosts(t, []blog.Post{{ID: 1, Title: "Fish &amp; Chips", Date: "2024-06-30 18:00:00", Protected: true}}, f)
			titles := f.ArchiveTitles(news, nil)
			if diff := cmp.Diff(tt.want, []string{posts[0].TitleText, titles.Heading, titles.Title}); diff != "" {
				t.Errorf("protected title, heading, document title (-want +got):\n%s", diff)
			}
		})
	}
}

// rtlSite is a site in a language written right to left, with a German
// thousands separator and its own protected-excerpt message.
func rtlSite(t *testing.T) *Site {
	t.Helper()
	po := "msgctxt \"text direction\"\nmsgid \"ltr\"\nmsgstr \"rtl\"\n\nmsgid \"number_format_thousands_sep\"\nmsgstr \".\"\n\n" +
		"msgid \"There is no excerpt because this is a protected post.\"\nmsgstr \"אין תקציר &amp; זה מוגן.\"\n"
	cat, err := pomo.ParseMO(wpdbtest.MO(t, "he_IL", po))
	if err != nil {
		t.Fatal(err)
	}
	f := NewFormat(NewSite(Choices{Title: "Site"}, blog.Options{}, Language{Locale: "he_IL", Catalogue: cat}, slog.New(slog.DiscardHandler)))
	return f.Site()
}

// TestPageLanguage renders the page in the site's language: its <html>
// lang and dir, the numbers of the badge and of the separators.
func TestPageLanguage(t *testing.T) {
	t.Parallel()
	format := testFormat(t)
	var stored []blog.Post
	for i := range 5 {
		stored = append(stored, blog.Post{ID: uint64(10 - i), Title: "Post", Excerpt: "Text...", Date: "2024-01-01 00:00:00"})
	}
	stored[4].Protected = true
	posts := mustPosts(t, stored, format)
	tests := []struct {
		name string
		site *Site
		want []string
	}{
		{"no site", nil, []string{`<html lang="en-US">`, `>1,234</span>`, ">Posts 3 to 4<", ">Post 5<", "<title>Title</title>",
			">There is no excerpt because this is a protected post.</p>"}},
		{"right to left", rtlSite(t), []string{`<html lang="he-IL" dir="rtl">`, `>1.234</span>`, "<title>Site</title>",
			">אין תקציר &amp; זה מוגן.</p>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := testRenderer(t).Render(context.Background(), PageView{PostsStart: 1234, Posts: posts, MaxPosts: 1000, Site: tt.site}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tt.want {
				if !strings.Contains(string(page.HTML()), want) {
					t.Errorf("the page has no %q:\n%.600s", want, page.HTML())
				}
			}
		})
	}
}
