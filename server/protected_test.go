package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestProtectedPosts lists a password-protected post among others, as
// WordPress lists it: its title as "Protected: …", no word of its content
// or manual excerpt, on any path that reads it (offset and lastPost pages
// of every size, the page, the template rendered on the server), with the
// cache on and off, and nothing of it in the log at debug level either.
func TestProtectedPosts(t *testing.T) {
	t.Parallel()
	const token = "TOPSECRET"
	for _, driver := range wpdbtest.Drivers() {
		for _, ttl := range []string{"1s", "0"} {
			t.Run(driver+"/cache-ttl="+ttl, func(t *testing.T) {
				t.Parallel()
				cfg := wpdbtest.New(t, driver, "wp_")
				ids := wpdbtest.Insert(t, cfg,
					wpdb.SeedRow{Title: "Open one", Name: "open-one", Content: "<p>Plain words.</p>", Date: "2024-03-01 10:00:00"},
					wpdb.SeedRow{Title: "Members &amp; friends only", Name: "members", Password: "hunter2",
						Content: "<p>" + token + " the launch code is 1234</p>" + strings.Repeat("<p>"+token+" more</p>", 800),
						Excerpt: token + " in the manual excerpt", Date: "2024-03-02 10:00:00"},
					wpdb.SeedRow{Title: "Open two", Name: "open-two", Content: "<p>More plain words.</p>", Date: "2024-03-03 10:00:00"},
				)
				protectedID := ids[1]
				srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)},
					"-cache-ttl", ttl, "-log-level", "debug")

				var bodies []string
				found := false
				for _, k := range []int{1, 2, 3} {
					for start := range 4 {
						r := srv.get(t, jsonPath(start, k))
						bodies = append(bodies, r.Body)
						for _, p := range r.posts(t) {
							if p.ID != protectedID {
								if p.Protected {
									t.Errorf("post %d (%q) reads as protected", p.ID, p.Title)
								}
								continue
							}
							found = true
							if !p.Protected || p.TitleText != "Protected: Members & friends only" || p.Excerpt != "..." {
								t.Errorf("protected post: protected=%v title %q post_content %q; want true, %q, %q",
									p.Protected, p.TitleText, p.Excerpt, "Protected: Members & friends only", "...")
							}
						}
					}
					for _, last := range ids {
						bodies = append(bodies, srv.get(t, fmt.Sprintf("/load-more.php?start=1&desiredPosts=%d&lastPost=%d", k, last)).Body)
					}
				}
				if !found {
					t.Fatal("no answer listed the protected post")
				}
				for _, n := range []int{1, 2, 3, 4} {
					page := srv.get(t, fmt.Sprintf("/load-more.php?posts=%d", n))
					bodies = append(bodies, page.Body)
					if n >= 2 && !strings.Contains(page.Body, "There is no excerpt because this is a protected post.") {
						t.Errorf("the page of %d posts does not show WordPress's message:\n%s", n, page.Body)
					}
				}
				bodies = append(bodies, srv.Logs.String())
				for _, b := range bodies {
					if strings.Contains(b, token) || strings.Contains(b, "hunter2") {
						t.Fatalf("an answer or the log holds the protected post's content or password:\n%.3000s", b)
					}
				}
			})
		}
	}
}
