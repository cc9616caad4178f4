package wpdb_test

import (
	"context"
	"testing"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// TestOpenStripsConfiguredShortcodes: the Store's excerpts strip the
// shortcodes of its Config, and only those, on both drivers.
func TestOpenStripsConfiguredShortcodes(t *testing.T) {
	t.Parallel()
	content := `<!-- wp:shortcode -->[gallery ids="3,4"]<!-- /wp:shortcode --><p>Intro [caption id="a"]<img src="x.jpg"> A caption[/caption]text [contact-form-7 id="12"]</p>`
	tests := []struct {
		name       string
		shortcodes []string
		want       string
	}{
		{"core's", []string{"wp_caption", "caption", "gallery", "playlist", "audio", "video", "embed"}, `Intro text [contact-form-7 id="12"]...`},
		{"a plugin's only", []string{"contact-form-7"}, `[gallery ids="3,4"] Intro [caption id="a"] A caption[/caption]text...`},
		{"none", nil, `[gallery ids="3,4"] Intro [caption id="a"] A caption[/caption]text [contact-form-7 id="12"]...`},
	}
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.New(t, driver, "wp_")
			wpdbtest.Insert(t, cfg, wpsite.Post{Title: "Shortcodes", Name: "shortcodes", Content: content})
			for _, tt := range tests {
				cfg := cfg
				cfg.StripShortcodes = tt.shortcodes
				posts, err := wpdbtest.Store(t, cfg).Posts(context.Background(), blog.Page{Offset: 0, Limit: 1})
				if err != nil {
					t.Fatal(err)
				}
				if len(posts) != 1 || posts[0].Excerpt != tt.want {
					t.Errorf("%s: posts %+v, want one with the excerpt %q", tt.name, posts, tt.want)
				}
			}
		})
	}
}
