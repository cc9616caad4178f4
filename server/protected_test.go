package main

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// TestProtectedPosts lists a password-protected post among others, as
// WordPress lists it: its title as "Protected: …", no word of its content
// or manual excerpt, on any path that reads it (offset and lastPost pages
// of every size, the page, the template rendered on the server, and the
// same of a category's, a tag's and a date's archive), with the cache on
// and off, and nothing of it in the log at debug level either.
func TestProtectedPosts(t *testing.T) {
	t.Parallel()
	const token = "TOPSECRET"
	for _, driver := range wpdbtest.Drivers() {
		for _, ttl := range []string{"1s", "0"} {
			t.Run(driver+"/cache-ttl="+ttl, func(t *testing.T) {
				t.Parallel()
				cfg := wpdbtest.New(t, driver, "wp_")
				ids := wpdbtest.Insert(t, cfg,
					wpsite.Post{Title: "Open one", Name: "open-one", Content: "<p>Plain words.</p>", Date: "2024-03-01 10:00:00"},
					wpsite.Post{Title: "Members &amp; friends only", Name: "members", Password: "hunter2",
						Content: "<p>" + token + " the launch code is 1234</p>" + strings.Repeat("<p>"+token+" more</p>", 800),
						Excerpt: token + " in the manual excerpt", Date: "2024-03-02 10:00:00"},
					wpsite.Post{Title: "Open two", Name: "open-two", Content: "<p>More plain words.</p>", Date: "2024-03-03 10:00:00"},
				)
				protectedID := ids[1]
				seedArchives(t, cfg, ids)
				srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)},
					"-cache-ttl", ttl, "-log-level", "debug")

				var bodies []string
				// The listing, then each archive holding all three posts.
				for _, archive := range []string{"", "&category_name=members-cat", "&tag=members-tag", "&year=2024&monthnum=3"} {
					found := false
					for _, k := range []int{1, 2, 3} {
						for start := range 4 {
							r := srv.get(t, jsonPath(start, k)+archive)
							bodies = append(bodies, r.Body)
							for _, p := range r.posts(t) {
								if p.ID != protectedID {
									if p.Protected {
										t.Errorf("%q: post %d (%q) reads as protected", archive, p.ID, p.Title)
									}
									continue
								}
								found = true
								if !p.Protected || p.TitleText != "Protected: Members & friends only" || p.Excerpt != "..." {
									t.Errorf("%q: protected post: protected=%v title %q post_content %q; want true, %q, %q",
										archive, p.Protected, p.TitleText, p.Excerpt, "Protected: Members & friends only", "...")
								}
							}
						}
						for _, last := range ids {
							bodies = append(bodies, srv.get(t, fmt.Sprintf("/load-more.php?start=1&desiredPosts=%d&lastPost=%d%s", k, last, archive)).Body)
						}
					}
					if !found {
						t.Fatalf("%q: no answer listed the protected post", archive)
					}
					for _, n := range []int{1, 2, 3, 4} {
						page := srv.get(t, fmt.Sprintf("/load-more.php?posts=%d%s", n, archive))
						bodies = append(bodies, page.Body)
						if page.Status != 200 {
							t.Errorf("%q: the page of %d posts: status %d", archive, n, page.Status)
						}
						if n >= 2 && !strings.Contains(page.Body, "There is no excerpt because this is a protected post.") {
							t.Errorf("%q: the page of %d posts does not show WordPress's message:\n%s", archive, n, page.Body)
						}
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

// seedArchives files every post of ids under the category members-cat and
// the tag members-tag.
func seedArchives(t *testing.T, cfg wpdb.Config, ids []uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := wpsite.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	terms := []wpsite.Term{
		{ID: 10, Name: "Members", Slug: "members-cat", Taxonomy: "category", Count: int64(len(ids))},
		{ID: 11, Name: "Members", Slug: "members-tag", Taxonomy: "post_tag", Count: int64(len(ids))},
	}
	var rels []wpsite.TermRelationship
	for _, id := range ids {
		for _, term := range terms {
			rels = append(rels, wpsite.TermRelationship{ObjectID: id, TermTaxonomyID: term.ID})
		}
	}
	if err := s.InsertTerms(ctx, terms); err != nil {
		t.Fatal(err)
	}
	if err := s.InsertTermRelationships(ctx, rels); err != nil {
		t.Fatal(err)
	}
}

// TestSearchProtectedPost searches for the words of a password-protected
// post's title, content and excerpt, alone, with other posts' words and
// excluded, with the cache off: every answer, JSON at several sizes and
// through its Link walk, and the page, is the same, byte for byte and in
// its ETag and Link, whether or not the post holds the words, so a search
// never tells what a protected post holds.
func TestSearchProtectedPost(t *testing.T) {
	t.Parallel()
	searches := []string{"TOPSECRET", "launch code", "plain", "plain TOPSECRET", "plain -TOPSECRET", `"plain TOPSECRET"`, "Members", "hunter2"}
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.New(t, driver, "wp_")
			ids := wpdbtest.Insert(t, cfg,
				wpsite.Post{Title: "Open one", Content: "<p>Plain words.</p>", Date: "2024-03-01 10:00:00"},
				wpsite.Post{Title: "Members only", Password: "hunter2", Content: "<p>plain TOPSECRET words, the launch code</p>",
					Excerpt: "TOPSECRET plain", Date: "2024-03-02 10:00:00"},
				wpsite.Post{Title: "Open two", Content: "<p>More plain words.</p>", Date: "2024-03-03 10:00:00"},
			)
			srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)}, "-cache-ttl", "0")
			answers := func() []string {
				var out []string
				for _, s := range searches {
					q := "s=" + url.QueryEscape(s)
					for _, k := range []int{1, 2, 3} {
						_, walked := walk(t, srv, fmt.Sprintf("/load-more.php?start=0&desiredPosts=%d&%s", k, q))
						walked = append(walked, srv.get(t, "/load-more.php?"+q))
						for _, a := range walked {
							out = append(out, fmt.Sprintf("%s %d ETag %s Link %s\n%s", q, a.Status, a.Header.Get("ETag"), a.Header.Get("Link"), a.Body))
						}
					}
				}
				return out
			}
			holding := answers()
			for _, a := range holding {
				if strings.Contains(a, "Members only") || strings.Contains(a, "Protected: ") {
					t.Fatalf("a search lists the protected post:\n%.1000s", a)
				}
			}
			if _, err := wpdbtest.OpenDB(t, cfg).Exec("UPDATE wp_posts SET post_content = '<p>nothing</p>', post_excerpt = '' WHERE ID = ?", ids[1]); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(holding, answers()); diff != "" {
				t.Errorf("searches answer otherwise once the protected post no longer holds their words (-holding +not):\n%s", diff)
			}
		})
	}
}
