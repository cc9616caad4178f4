package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/public"
	"github.com/wploadmore/wploadmore/templates"
)

// pluginMO compiles po, a site's own catalogue of the widget's words, with
// GNU msgfmt, as a translator's tool would.
func pluginMO(t *testing.T, po string) []byte {
	t.Helper()
	testkit.NeedPackage(t, "gettext", "msgfmt") // builds the site's catalogue
	dir := t.TempDir()
	src, mo := filepath.Join(dir, "site.po"), filepath.Join(dir, "site.mo")
	if err := os.WriteFile(src, []byte(po), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("msgfmt", "-o", mo, src).CombinedOutput(); err != nil {
		t.Fatalf("msgfmt: %v\n%s", err, out)
	}
	data, err := os.ReadFile(mo)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestSiteWords follows a site's language through reads of its options:
// the shipped words of its locale, then the site's own
// plugins/wploadmore-{locale}.mo in their place, a broken one passed over
// with one warning, and a change of language.
func TestSiteWords(t *testing.T) {
	t.Parallel()
	langDir := t.TempDir()
	plugins := filepath.Join(langDir, "plugins")
	if err := os.Mkdir(plugins, 0o755); err != nil {
		t.Fatal(err)
	}
	siteFile := filepath.Join(plugins, "wploadmore-de_DE.mo")
	cfg, err := parseConfig([]string{"wploadmore", "-cache-ttl", "0", "-wp-languages", langDir}, envFunc(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var logs testkit.SyncBuffer
	german := blog.Options{WPLang: "de_DE", HasWPLang: true}
	h, err := newServer(serverDeps{
		Config:    cfg,
		Logger:    slog.New(slog.NewJSONHandler(&logs, nil)),
		Posts:     fakePosts{posts: threePosts()},
		Sessions:  &fakeSessions{postsStart: 2},
		Templates: templates.FS,
		Public:    public.FS,
		Options:   german,
	})
	if err != nil {
		t.Fatal(err)
	}
	page := func() string {
		t.Helper()
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/load-more.php", nil))
		if w.Code != http.StatusOK {
			t.Fatalf("page: %d %s", w.Code, w.Body)
		}
		return w.Body.String()
	}
	says := func(step string, want, not []string) {
		t.Helper()
		body := page()
		for _, s := range want {
			if !strings.Contains(body, s) {
				t.Errorf("%s: the page lacks %q", step, s)
			}
		}
		for _, s := range not {
			if strings.Contains(body, s) {
				t.Errorf("%s: the page says %q", step, s)
			}
		}
	}
	warnings := func() int { return strings.Count(logs.String(), "the widget's words") }

	says("shipped", []string{">Weitere Beiträge<", ">Angezeigte Beiträge<", `"noMore":"Keine weiteren Beiträge"`}, []string{"More posts"})

	// The site's own file replaces the shipped one whole, as
	// load_plugin_textdomain() loads it and returns.
	const site0PO = `msgid ""
msgstr "Content-Type: text/plain; charset=UTF-8\n"

msgid "More posts"
msgstr "Mehr lesen"
`
	site := pluginMO(t, site0PO)
	if err := os.WriteFile(siteFile, site, 0o644); err != nil {
		t.Fatal(err)
	}
	h.useOptions(german)
	says("the site's file", []string{">Mehr lesen<", ">Posts shown<", `"noMore":"No more data"`}, []string{"Weitere Beiträge"})

	// Rewritten in place with the same size, a millisecond later, then
	// under an older time (unpacked with its archive's times): read again
	// each time.
	start := time.Now().Add(-time.Hour)
	for _, step := range []struct {
		name, more string
		mod        time.Time
	}{
		{"the file as it was, an hour ago", "Mehr lesen", start},
		{"rewritten, same size, a millisecond later", "Mehr sehen", start.Add(time.Millisecond)},
		{"rewritten, same size, an older time", "Mehr laden", start.Add(-24 * time.Hour)},
	} {
		mo := pluginMO(t, strings.Replace(site0PO, "Mehr lesen", step.more, 1))
		if len(mo) != len(site) {
			t.Fatalf("%s: %d bytes, want %d, the size of the last", step.name, len(mo), len(site))
		}
		if err := os.WriteFile(siteFile, mo, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(siteFile, step.mod, step.mod); err != nil {
			t.Fatal(err)
		}
		h.useOptions(german)
		says(step.name, []string{">" + step.more + "<"}, []string{"Weitere Beiträge"})
	}

	// Broken on disk: the shipped words, and one warning naming the file
	// for as long as it stays so.
	if err := os.WriteFile(siteFile, site[:len(site)-7], 0o644); err != nil {
		t.Fatal(err)
	}
	h.useOptions(german)
	h.useOptions(german)
	says("a truncated file", []string{">Weitere Beiträge<"}, []string{"Mehr lesen"})
	if n := warnings(); n != 1 || !strings.Contains(logs.String(), siteFile) {
		t.Errorf("%d warnings about the words after two reads of a truncated file, want 1 naming %s:\n%s", n, siteFile, logs.String())
	}

	h.useOptions(blog.Options{WPLang: "ja", HasWPLang: true})
	says("Japanese", []string{">さらに投稿を表示<", `"loaded":["さらに%s件の投稿を読み込みました。"],"loadedForm":[0,0]`}, []string{"Weitere Beiträge"})
	// An empty WPLANG option is en_US, whatever wp-config.php says.
	h.useOptions(blog.Options{WPLang: "", HasWPLang: true, Language: blog.Language{WPLang: "de_DE"}})
	says("English", []string{">More posts<", ">Posts shown<"}, []string{"さらに"})
	if n := warnings(); n != 1 {
		t.Errorf("%d warnings about the words, want the one:\n%s", n, logs.String())
	}
}

// BenchmarkPageLanguage renders the page of BenchmarkLoadMorePage at
// posts_start 2 with the site in English, German and Arabic: the words
// of a language cost a request nothing beyond English's.
func BenchmarkPageLanguage(b *testing.B) {
	for _, locale := range []string{"en_US", "de_DE", "ar"} {
		b.Run(locale, func(b *testing.B) {
			h, id := benchHandler(b, time.Second, 2)
			h.(*server).useOptions(blog.Options{WPLang: locale, HasWPLang: true})
			serveLoop(b, h, id, "/load-more.php")
		})
	}
}
