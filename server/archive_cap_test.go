package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/blog"
)

// TestArchiveTermCapHTTP: an archive naming blog.MaxArchiveTerms terms in
// all, across vars, lists what WP_Query lists; one more is a 400 naming
// the var that went past the cap, on the endpoint and the page, before
// any query.
func TestArchiveTermCapHTTP(t *testing.T) {
	t.Parallel()
	wp, _, srv := archiveSite(t)
	// repeat is n clauses of one slug, "a+a+…": each counts as a term.
	repeat := func(slug string, n int) string {
		return strings.TrimSuffix(strings.Repeat(slug+"+", n), "+")
	}
	for _, tt := range []struct {
		name string
		vars func(n int) map[string]string // n terms in all
		last string                        // the var read last
	}{
		{"category_name and tag", func(n int) map[string]string {
			return map[string]string{"category_name": repeat("news", 10), "tag": repeat("alpha", n-10)}
		}, "tag"},
		{"tag and author_name", func(n int) map[string]string {
			return map[string]string{"tag": repeat("alpha", n-1), "author_name": "bob-smith"}
		}, "author_name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fine := tt.vars(blog.MaxArchiveTerms)
			want := wordpressArchives(t, wp, []map[string]string{fine})[0]
			if len(want) == 0 {
				t.Fatalf("WP_Query lists nothing for %v: the test needs posts", fine)
			}
			got, _ := walk(t, srv, "/load-more.php?start=0&desiredPosts=2&"+encodeVars(fine))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%d terms, %v (-WP_Query +walk):\n%s", blog.MaxArchiveTerms, fine, diff)
			}

			over := encodeVars(tt.vars(blog.MaxArchiveTerms + 1))
			message := fmt.Sprintf("%s: more than %d categories, tags and authors in all", tt.last, blog.MaxArchiveTerms)
			resp := srv.get(t, "/load-more.php?start=0&"+over)
			body, err := json.Marshal(map[string]string{"error": message})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != http.StatusBadRequest || strings.TrimSpace(resp.Body) != string(body) {
				t.Errorf("JSON, %d terms: %d %s, want 400 %s", blog.MaxArchiveTerms+1, resp.Status, resp.Body, body)
			}
			page := srv.get(t, "/load-more.php?"+over)
			if page.Status != http.StatusBadRequest || !strings.Contains(page.Body, htmlEscape(message)) {
				t.Errorf("page, %d terms: %d, want 400 with %q:\n%.2000s", blog.MaxArchiveTerms+1, page.Status, message, page.Body)
			}
		})
	}
}

// encodeVars writes vars as a query string, a "+" in a value as %2B, as
// WordPress writes its links' "a+b".
func encodeVars(vars map[string]string) string {
	var parts []string
	for name, value := range vars {
		parts = append(parts, name+"="+strings.ReplaceAll(value, "+", "%2B"))
	}
	return strings.Join(parts, "&")
}
