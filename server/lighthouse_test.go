package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/public"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// lighthouseFlags are Chromium's flags for Lighthouse: headless Debian
// Chromium as root, with nothing fetched in the background.
var lighthouseFlags = []string{
	"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
}

// lighthousePage is a page to audit and the state it must be audited in.
type lighthousePage struct {
	Name   string `json:"name"`
	URL    string `json:"url"`
	Clicks int    `json:"clicks"` // on "more" before the audit; 0 audits the page as loaded
	Dark   bool   `json:"dark"`   // in the dark colour scheme
	Posts  int    `json:"-"`      // the posts shown when audited
	Lang   string `json:"-"`      // <html lang>
	Dir    string `json:"-"`      // <html dir>, "" where none
}

// lighthouseResult is what testdata/lighthouse.mjs reports of one page.
type lighthouseResult struct {
	Name         string
	URL          string
	Mode         string // navigation or snapshot
	Score        *float64
	RuntimeError string
	Warnings     []string
	Passed       int
	Failing      []struct {
		ID, Title string
		Weight    float64
		Items     []string
	}
	Seconds float64
	State   struct {
		Lang, Dir string
		Posts     int
		Dark      bool
	}
}

// needLighthouse skips t under -short, and fails it without Chromium or
// Node, or when make assets has not installed Lighthouse.
func needLighthouse(t *testing.T) {
	t.Helper()
	testkit.NeedPackage(t, "chromium", chromiumPath)
	testkit.NeedPackage(t, "nodejs", "node")
	if testing.Short() {
		t.Skip("-short: Lighthouse in Chromium takes a minute")
	}
	if _, err := os.Stat(filepath.Join("..", "node_modules", "lighthouse", "package.json")); err != nil {
		t.Fatalf("Lighthouse is missing: run `make assets` (npm ci) before the browser tests: %v", err)
	}
	// The widget imports mustache.js from the embedded vendor folder.
	if _, err := fs.Stat(public.FS, vendoredMustache); err != nil {
		t.Fatalf("public/%s is missing: run `make assets` before the browser tests (%v)", vendoredMustache, err)
	}
}

// lighthouseAudit is what one Lighthouse run audits, and where it saves
// its report.
type lighthouseAudit struct {
	Report    string            // the HTML report's name under testoutput/
	Category  string            // "" is accessibility
	Selectors map[string]string // "posts" and "more" when the pages are not the server's
}

// runLighthouse audits pages in turn with one Lighthouse run in Debian's
// Chromium and returns its results, in order. The HTML report is saved
// under testoutput/ for a person to read.
func runLighthouse(t *testing.T, audit lighthouseAudit, pages []lighthousePage) []lighthouseResult {
	t.Helper()
	report, err := filepath.Abs(filepath.Join("..", "testoutput", audit.Report))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(report), 0o755); err != nil {
		t.Fatal(err)
	}
	input, err := json.Marshal(map[string]any{"chromium": chromiumPath, "flags": lighthouseFlags, "report": report, "pages": pages,
		"category": audit.Category, "selectors": audit.Selectors})
	if err != nil {
		t.Fatal(err)
	}
	limit := time.Duration(len(pages)) * time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", "lighthouse.mjs"))
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// On time-out, SIGTERM lets puppeteer close Chromium, which a SIGKILL
	// of node would leave running.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	// Chromium's profile and Lighthouse's temporary files go in a folder
	// removed when the test ends; a short name, not t.TempDir()'s: the
	// path of Chromium's singleton socket in it must fit a Unix socket's
	// 108 bytes, which a subtest's long name overruns.
	tmp, err := os.MkdirTemp("", "lighthouse")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	start := time.Now()
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("stopped after %v: %w", limit, err)
		}
		t.Fatalf("lighthouse: %v\n%s", err, stderr.String())
	}
	t.Logf("Lighthouse audited %d pages in %v; report: %s", len(pages), time.Since(start).Round(time.Second), report)
	var results []lighthouseResult
	if err := json.Unmarshal(stdout.Bytes(), &results); err != nil {
		t.Fatalf("lighthouse's output: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if len(results) != len(pages) {
		t.Fatalf("lighthouse reported %d pages, want %d", len(results), len(pages))
	}
	return results
}

// checkLighthouse fails t unless each page was audited in the state it
// names and scored 100 in category, listing the audits that failed.
func checkLighthouse(t *testing.T, category string, pages []lighthousePage, results []lighthouseResult) {
	t.Helper()
	for i, p := range pages {
		r := results[i]
		t.Run(p.Name, func(t *testing.T) {
			if r.RuntimeError != "" || len(r.Warnings) > 0 {
				t.Errorf("%s: runtime error %q, warnings %q", r.URL, r.RuntimeError, r.Warnings)
			}
			want := r.State
			want.Posts, want.Lang, want.Dir, want.Dark = p.Posts, p.Lang, p.Dir, p.Dark
			if r.State != want {
				t.Errorf("%s audited in state %+v, want %+v", r.URL, r.State, want)
			}
			// A page Lighthouse could not read passes no audit: 19 (no
			// posts) to 25 of the 40-odd apply to these pages. Of best
			// practices, a snapshot runs only the 7 that read the page as it
			// stands, a navigation 17.
			least := 12
			if category == "best-practices" && r.Mode == "snapshot" {
				least = 5
			}
			if r.Passed < least {
				t.Errorf("%s: %d audits passed, want the %d or more that apply to the page", r.URL, r.Passed, least)
			}
			score := "none"
			if r.Score != nil {
				score = fmt.Sprintf("%.0f", *r.Score*100)
			}
			t.Logf("%s (%s, %.1f s): %s %s, %d audits passed", r.URL, r.Mode, r.Seconds, category, score, r.Passed)
			if r.Score == nil || *r.Score != 1 {
				var b strings.Builder
				for _, a := range r.Failing {
					fmt.Fprintf(&b, "\n  %s (%s, weight %v)", a.ID, a.Title, a.Weight)
					for _, item := range a.Items {
						fmt.Fprintf(&b, "\n    %s", strings.ReplaceAll(item, "\n", "\n      "))
					}
				}
				t.Errorf("%s (%s): %s score %s, want 100; failing audits:%s", r.URL, r.Mode, category, score, b.String())
			}
		})
	}
}

// TestLighthouse runs Lighthouse's accessibility audit, in Chromium, on
// the page of a real WordPress site's posts with their images: as loaded,
// after two clicks on "more" (the batches the widget rendered), without
// JavaScript three batches in, an archive's page, an empty archive's, a
// search's with and without results, and in the dark colour scheme; and in Arabic (right to left) and German,
// with WordPress's catalogues. Each scores 100.
func TestLighthouse(t *testing.T) {
	needLighthouse(t)
	wpdbtest.NeedGettext(t)
	uploads := uploadsServer(t)
	wp, wpConfig, _ := cardSite(t, "/%category%/%postname%/", "http://example.com")
	wp.PHP(t, fmt.Sprintf("update_option('siteurl', %q);", uploads.URL))
	for _, locale := range []string{"ar", "de_DE"} {
		wp.WriteLanguageFile(t, locale+".mo", wpdbtest.MO(t, locale, ""))
	}
	env := map[string]string{"LOADMORE_WP_CONFIG": wpConfig}
	page := startServer(t, env).URL + "/load-more.php"
	inLanguage := func(locale string) string {
		return startServer(t, env, "-locale", locale, "-wp-languages", wp.LanguagesDir()).URL + "/load-more.php"
	}
	arabic, german := inLanguage("ar"), inLanguage("de_DE")

	pages := []lighthousePage{
		{Name: "page", URL: page, Posts: 2, Lang: "en-US"},
		{Name: "two clicks", URL: page, Clicks: 2, Posts: 6, Lang: "en-US"},
		{Name: "no JavaScript", URL: page + "?posts=6", Posts: 6, Lang: "en-US"},
		{Name: "archive", URL: page + "?category_name=news", Posts: 2, Lang: "en-US"},
		{Name: "empty archive", URL: page + "?category_name=news&year=1999", Posts: 0, Lang: "en-US"},
		{Name: "search", URL: page + "?s=categories", Posts: 1, Lang: "en-US"},
		{Name: "search, no results", URL: page + "?s=nowhere", Posts: 0, Lang: "en-US"},
		{Name: "dark two clicks", URL: page, Clicks: 2, Dark: true, Posts: 6, Lang: "en-US"},
		{Name: "Arabic", URL: arabic, Posts: 2, Lang: "ar", Dir: "rtl"},
		{Name: "Arabic two clicks", URL: arabic, Clicks: 2, Posts: 6, Lang: "ar", Dir: "rtl"},
		{Name: "German", URL: german, Posts: 2, Lang: "de-DE"},
	}
	checkLighthouse(t, "accessibility", pages, runLighthouse(t, lighthouseAudit{Report: "lighthouse.html"}, pages))
}
