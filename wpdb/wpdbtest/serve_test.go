package wpdbtest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/internal/wpserve"
)

// TestServe serves a site in Twenty Twenty-One over HTTP, with a stand-in
// for the wploadmore server: WordPress renders its home page in the theme
// with links to its own address; the theme's and WordPress's static files
// are served as files; the shipped snippet sends /load-more.php, and only
// it, to the upstream; PHP logs nothing.
func TestServe(t *testing.T) {
	t.Parallel()
	for pkg, names := range map[string][]string{"php-fpm": {"php-fpm", "php-fpm8.2"}, "nginx": {"nginx"}} {
		if _, err := wpserve.FindTool(names...); err != nil {
			testkit.MissingPackage(t, pkg, err.Error())
		}
	}
	wp := NewWordPress(t)
	wp.UseTheme(t, "twentytwentyone")
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "upstream "+r.URL.RequestURI())
	}))
	t.Cleanup(upstream.Close)
	url := wp.HTTPAddress(t)
	srv := wp.Serve(t, strings.TrimPrefix(upstream.URL, "http://"))
	tests := []struct {
		path, want string
	}{
		{"/", `<link rel='stylesheet' id='twenty-twenty-one-style-css' href='` + url + `/wp-content/themes/twentytwentyone/style.css`},
		{"/?p=1", "Hello world!"},
		{"/wp-content/themes/twentytwentyone/style.css", "Theme Name: Twenty Twenty-One"},
		{"/wp-includes/js/wp-embed.min.js", "window"},
		{"/load-more.php?start=0", "upstream /load-more.php?start=0"},
		{"/load-more.mustache", "upstream /load-more.mustache"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp, err := http.Get(url + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), tt.want) {
				t.Errorf("%s: %.500s\nwant it to hold %q", resp.Status, body, tt.want)
			}
		})
	}
	if errs := srv.PHPErrors(); errs != "" {
		t.Errorf("PHP logged:\n%s", errs)
	}
}
