package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readmeURL finds the server's URLs in README.md: the page, the endpoint
// and the template, with their query strings, and the health checks.
var readmeURL = regexp.MustCompile("load-more\\.(?:php|mustache)(?:\\?[^\\s`'<>)]*)?|/healthz|/readyz")

// TestReadmeExamples runs every URL of README.md against the embedded demo
// site, as `make run` serves it on a fresh machine, and checks the answers
// the README shows: every URL a 200 (those with placeholders, N, K or ID,
// left out), the JSON example's records, the archive example's status,
// headers and first record, and the archive page's heading and link back
// to the main list.
func TestReadmeExamples(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	srv := startServer(t, nil)

	t.Run("URLs", func(t *testing.T) {
		seen := map[string]bool{}
		for _, u := range readmeURL.FindAllString(readme, -1) {
			if seen[u] || strings.ContainsAny(u, "…{") || regexp.MustCompile(`=(N|K|ID)\b`).MatchString(u) {
				continue
			}
			seen[u] = true
			if got := srv.get(t, "/"+strings.TrimPrefix(u, "/")); got.Status != http.StatusOK {
				t.Errorf("README's %s: %d, want 200\n%.300s", u, got.Status, got.Body)
			}
		}
		if len(seen) < 10 {
			t.Errorf("found %d URLs in README.md, want its dozen or so: %v", len(seen), seen)
		}
	})

	t.Run("JSON endpoint", func(t *testing.T) {
		curl := "curl -c jar -b jar 'localhost:8080"
		path, _, _ := strings.Cut(after(t, readme, curl), "'")
		var want, got any
		if err := json.Unmarshal([]byte(block(t, readme, curl, "```json\n")), &want); err != nil {
			t.Fatalf("README's JSON example: %v", err)
		}
		answer := srv.get(t, path)
		if err := json.Unmarshal([]byte(answer.Body), &got); err != nil {
			t.Fatalf("%s: %d %v\n%s", path, answer.Status, err, answer.Body)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: README.md's records differ from the demo's (-README +server):\n%s", path, diff)
		}
	})

	t.Run("archive", func(t *testing.T) {
		curl := "curl -i 'localhost:8080"
		path, _, _ := strings.Cut(after(t, readme, curl), "'")
		head, body, _ := strings.Cut(block(t, readme, curl, "```http\n"), "\n\n")
		lines := strings.Split(head, "\n")
		answer := srv.get(t, path)
		if got := fmt.Sprintf("HTTP/1.1 %d %s", answer.Status, http.StatusText(answer.Status)); got != lines[0] {
			t.Errorf("%s: %s, README says %s", path, got, lines[0])
		}
		for _, line := range lines[1:] {
			name, value, _ := strings.Cut(line, ": ")
			if got := answer.Header.Get(name); got != value {
				t.Errorf("%s: %s: %s, README says %s", path, name, got, value)
			}
		}
		start, _, _ := strings.Cut(strings.TrimSpace(body), "…")
		if !strings.HasPrefix(answer.Body, start) {
			t.Errorf("%s: answer does not start as the README's:\n%s\n%s", path, answer.Body, start)
		}
	})

	t.Run("archive page", func(t *testing.T) {
		page := srv.get(t, "/load-more.php?category_name=news")
		for _, want := range []string{`>Category: News</h1>`, `<a href="load-more.php" rel="home">`} {
			if !strings.Contains(page.Body, want) {
				t.Errorf("the news archive's page lacks %s", want)
			}
		}
	})
}

// after returns what follows the first marker in s, failing t without one.
func after(t *testing.T, s, marker string) string {
	t.Helper()
	_, rest, ok := strings.Cut(s, marker)
	if !ok {
		t.Fatalf("README.md has no %q", marker)
	}
	return rest
}

// block returns the fenced block that opens with fence after marker.
func block(t *testing.T, s, marker, fence string) string {
	t.Helper()
	text, _, ok := strings.Cut(after(t, after(t, s, marker), fence), "```")
	if !ok {
		t.Fatalf("README.md's %s block after %q is not closed", fence, marker)
	}
	return strings.TrimSuffix(text, "\n")
}
