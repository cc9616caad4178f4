package wpdbtest_test

import (
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestWordPress installs a site and asks WordPress for its first post's
// permalink and the home option, as the compatibility tests do.
func TestWordPress(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	wp.Defines["WP_HOME"] = "https://example.com/blog"
	got := string(wp.PHP(t, `echo get_permalink(1), "\n", home_url(), "\n", get_option('siteurl');`))
	want := "https://example.com/blog/?p=1\nhttps://example.com/blog\nhttp://example.org"
	if got != want {
		t.Errorf("WordPress printed\n%s\nwant\n%s", got, want)
	}
	if out := wp.PHP(t, `echo get_the_title(1);`); !strings.Contains(string(out), "Hello world") {
		t.Errorf("title of post 1 = %q", out)
	}
}

// TestSetLanguage installs a German catalogue built from Debian's and the
// test's own strings, and asks WordPress what it now says: the test's
// strings win, Debian's fill the rest, and WP_CONTENT_DIR/languages is
// where WordPress found them.
func TestSetLanguage(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	mo := wpdbtest.MO(t, "de_DE", `
msgctxt "date archive title prefix"
msgid "Month:"
msgstr "Monat:"

msgid "January"
msgstr "Jänner"
`)
	wp.SetLanguage(t, "de_DE", mo)
	got := string(wp.PHP(t, `echo implode("|", [get_locale(), _x('Month:', 'date archive title prefix'), __('January'), __('Sunday'), WP_LANG_DIR === WP_CONTENT_DIR . '/languages' ? 'content' : WP_LANG_DIR]);`))
	if want := "de_DE|Monat:|Jänner|Sonntag|content"; got != want {
		t.Errorf("WordPress in de_DE printed %q, want %q", got, want)
	}
}
