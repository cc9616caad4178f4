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
