package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// typesRegistry is a registry as the plugin writes it, cut to what the
// server reads: books public, private notes not (neither queried nor
// searched), attachments queryable, a genre on books and a private
// taxonomy on the notes.
const typesRegistry = `{"schema":1,"post_types":{
 "post":{"public":true,"publicly_queryable":true,"exclude_from_search":false,"query_var":false},
 "page":{"public":true,"publicly_queryable":false,"exclude_from_search":false,"query_var":false},
 "attachment":{"public":true,"publicly_queryable":true,"exclude_from_search":false,"query_var":"attachment"},
 "book":{"public":true,"publicly_queryable":true,"exclude_from_search":false,"has_archive":true,"archive_slug":"books","query_var":"book"},
 "private_note":{"public":false,"publicly_queryable":false,"exclude_from_search":true,"query_var":false}},
 "taxonomies":{
 "genre":{"public":true,"publicly_queryable":true,"hierarchical":true,"query_var":"genre","object_types":["book"]},
 "secret_tax":{"public":false,"publicly_queryable":false,"query_var":false,"object_types":["private_note"]}},
 "public_query_vars":[],"hidden_terms":[]}`

// The private notes' words, title and slug: no answer may hold them.
const (
	noteWord  = "ZEBRASECRET"
	noteTitle = "QUAGGA"
	noteSlug  = "quagga-note"
)

// typesServer starts a server on a site of two posts, three books and
// three private notes, all in the genre jazz, the notes in secret_tax's
// hush too, with typesRegistry; it returns the server and the IDs by type.
func typesServer(t *testing.T, driver string) (*testServer, map[string][]uint64) {
	t.Helper()
	cfg := wpdbtest.New(t, driver, "wp_")
	var rows []wpsite.Post
	types := []string{"post", "book", "private_note", "book", "private_note", "post", "book", "private_note"}
	for i, pt := range types {
		p := wpsite.Post{Type: pt, Title: fmt.Sprintf("%s %d", pt, i), Name: fmt.Sprintf("%s-%d", strings.ReplaceAll(pt, "_", "-"), i),
			Content: fmt.Sprintf("<p>common words of %s %d</p>", pt, i), Date: fmt.Sprintf("2024-03-%02d 10:00:00", i+1)}
		if pt == "private_note" {
			p.Title, p.Name = fmt.Sprintf("%s %d", noteTitle, i), fmt.Sprintf("%s-%d", noteSlug, i)
			p.Content = fmt.Sprintf("<p>common %s words %d</p>", noteWord, i)
		}
		rows = append(rows, p)
	}
	ids := wpdbtest.Insert(t, cfg, rows...)
	byType := map[string][]uint64{}
	var jazz, hush []wpsite.TermRelationship
	for i, id := range ids {
		byType[types[i]] = append(byType[types[i]], id)
		if types[i] != "post" {
			jazz = append(jazz, wpsite.TermRelationship{ObjectID: id, TermTaxonomyID: 20})
		}
		if types[i] == "private_note" {
			hush = append(hush, wpsite.TermRelationship{ObjectID: id, TermTaxonomyID: 21})
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := wpsite.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.InsertTerms(ctx, []wpsite.Term{
		{ID: 20, Name: "Jazz", Slug: "jazz", Taxonomy: "genre", Count: 6},
		{ID: 21, Name: "Hush", Slug: "hush", Taxonomy: "secret_tax", Count: 3},
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.InsertTermRelationships(ctx, append(jazz, hush...)); err != nil {
		t.Fatal(err)
	}
	if err := w.InsertOptions(ctx, map[string]string{blog.RegistryOption: typesRegistry}); err != nil {
		t.Fatal(err)
	}
	return startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)}, "-cache-ttl", "1s"), byType
}

// TestTypesListed lists books by post_type and by genre through the JSON
// endpoint's Link walk: only books, newest first, public, cached and
// linked as archives are.
func TestTypesListed(t *testing.T) {
	t.Parallel()
	srv, byType := typesServer(t, wpdb.DriverMySQL)
	books := slices.Clone(byType["book"])
	slices.Reverse(books)
	for _, archive := range []string{"post_type=book", "post_type%5B%5D=book", "genre=jazz", "taxonomy=genre&term=jazz", "genre=jazz&post_type=book"} {
		got, answers := walk(t, srv, "/load-more.php?start=0&desiredPosts=1&"+archive)
		if !slices.Equal(got, books) {
			t.Errorf("%s: lists %v, want the books %v", archive, got, books)
		}
		first := answers[0]
		if cc := first.Header.Get("Cache-Control"); cc != "public, max-age=1" || first.Header.Get("ETag") == "" {
			t.Errorf("%s: Cache-Control %q, ETag %q: want public, with an ETag", archive, cc, first.Header.Get("ETag"))
		}
		if link := first.Header.Get("Link"); !strings.Contains(link, "lastPost=") {
			t.Errorf("%s: Link %q", archive, link)
		}
		if page := srv.get(t, "/load-more.php?"+archive); page.Status != http.StatusOK {
			t.Errorf("%s: the page: status %d", archive, page.Status)
		}
	}
	found := postIDs(srv.get(t, "/load-more.php?start=0&desiredPosts=50&s=common").posts(t))
	want := append(slices.Clone(byType["post"]), byType["book"]...)
	slices.Sort(found)
	slices.Sort(want)
	if !slices.Equal(found, want) {
		t.Errorf("s=common finds %v, want the posts and books %v", found, want)
	}
}

// TestTypesNeverShown asks for the private notes every way a client can,
// on the JSON endpoint and the page, with both drivers: post_type and
// post_type[] answer exactly as a type the site does not have (the blog),
// the private taxonomy exactly as one it does not have (a 404, but for
// the name), searches for the notes' words find nothing, and no answer
// holds a note's ID, words, title or slug.
func TestTypesNeverShown(t *testing.T) {
	t.Parallel()
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			srv, byType := typesServer(t, driver)
			var bodies [][2]string // query, body
			ask := func(query string) response {
				t.Helper()
				r := srv.get(t, "/load-more.php?"+query)
				if r.Status >= 500 {
					t.Fatalf("%s: status %d", query, r.Status)
				}
				bodies = append(bodies, [2]string{query, r.Body})
				if strings.HasPrefix(query, "start=") && r.Status == http.StatusOK {
					for _, id := range postIDs(r.posts(t)) {
						if slices.Contains(byType["private_note"], id) {
							t.Errorf("%s: lists private note %d", query, id)
						}
					}
				}
				return r
			}
			for _, pair := range [][2]string{
				{"post_type=private_note", "post_type=no_such_type"},
				{"post_type%5B%5D=private_note", "post_type%5B%5D=no_such_type"},
				{"post_type%5B%5D=private_note&post_type%5B%5D=post", "post_type%5B%5D=no_such_type&post_type%5B%5D=post"},
				{"taxonomy=secret_tax&term=hush", "taxonomy=no_such_tax&term=hush"},
				{"secret_tax=hush", "no_such_tax=hush"},
				{"s=" + noteWord, "s=NOSUCHWORD"},
				{"s=" + noteTitle + "&genre=jazz", "s=NOSUCHWORD&genre=jazz"},
			} {
				for _, prefix := range []string{"start=0&desiredPosts=5&", "start=1&desiredPosts=2&", "posts=20&"} {
					private, missing := ask(prefix+pair[0]), ask(prefix+pair[1])
					same := func(s string) string {
						for _, w := range []string{"secret_tax", "private_note", noteWord, noteTitle} {
							s = strings.ReplaceAll(s, w, "NAME")
						}
						for _, w := range []string{"no_such_tax", "no_such_type", "NOSUCHWORD"} {
							s = strings.ReplaceAll(s, w, "NAME")
						}
						return s
					}
					if private.Status != missing.Status || same(private.Body) != same(missing.Body) {
						t.Errorf("%s answers %d, %s answers %d; bodies (but for the names):\n%s\n%s",
							pair[0], private.Status, pair[1], missing.Status, private.Body, missing.Body)
					}
				}
			}
			for _, query := range []string{"start=0&desiredPosts=50&genre=jazz", "start=0&desiredPosts=50&s=common", "start=0&desiredPosts=50"} {
				ask(query)
			}
			for _, b := range bodies {
				for _, w := range []string{noteTitle, noteSlug, noteWord} {
					// A search repeats the words it was asked for.
					if !strings.Contains(b[0], w) && strings.Contains(strings.ToUpper(b[1]), strings.ToUpper(w)) {
						t.Fatalf("%s: the answer holds a private note's %q:\n%.2000s", b[0], w, b[1])
					}
				}
			}
		})
	}
}

// TestTypesBadInput: each malformed or unknown type or taxonomy var is a
// 4xx naming what was wrong, on the JSON endpoint and the page, never a
// 5xx.
func TestTypesBadInput(t *testing.T) {
	t.Parallel()
	srv, _ := typesServer(t, wpdb.DriverMySQL)
	many := func(name string, n int, sep string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf("%s%d", strings.TrimSuffix(name, "="), i)
			if sep == "&" {
				parts[i] = name + parts[i]
			}
		}
		if sep == "&" {
			return strings.Join(parts, "&")
		}
		return name + strings.Join(parts, sep)
	}
	for _, tc := range []struct {
		query  string
		status int
		says   string
	}{
		{"genre%5B%5D=jazz", http.StatusBadRequest, "genre"},
		{"taxonomy%5B%5D=genre&term=jazz", http.StatusBadRequest, "taxonomy"},
		{"taxonomy=genre&term%5B%5D=jazz", http.StatusBadRequest, "term"},
		{many("post_type%5B%5D=", 21, "&"), http.StatusBadRequest, "more than 20 post types"},
		{many("genre=", 21, ","), http.StatusBadRequest, "more than 20"},
		{"post_type=attachment", http.StatusBadRequest, "media"},
		{"genre=no-such-genre", http.StatusNotFound, `no genre \"no-such-genre\"`},
		{"taxonomy=no_such_tax&term=jazz", http.StatusNotFound, `no taxonomy \"no_such_tax\"`},
		{"taxonomy=genre&term=no-such-genre", http.StatusNotFound, `no genre \"no-such-genre\"`},
		{"taxonomy=genre&term=%3Cscript%3E", http.StatusBadRequest, "term"},
		{"genre=%zz", http.StatusBadRequest, "genre: not URL-encoded"},
		{"genre=jazz&tag=no-such-tag", http.StatusNotFound, `no tag \"no-such-tag\"`},
	} {
		for _, prefix := range []string{"start=0&", ""} {
			r := srv.get(t, "/load-more.php?"+prefix+tc.query)
			if r.Status != tc.status {
				t.Errorf("%s%s: status %d, want %d:\n%.500s", prefix, tc.query, r.Status, tc.status, r.Body)
				continue
			}
			if prefix != "" && !strings.Contains(r.Body, tc.says) {
				t.Errorf("%s%s: %s does not say %q", prefix, tc.query, r.Body, tc.says)
			}
		}
	}
}

// TestTypesBadRegistry starts on a site whose registry option is
// truncated, or of a newer schema: the server says so once and works as
// without one, listing posts only, never a 5xx.
func TestTypesBadRegistry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, value, says string }{
		{"truncated", typesRegistry[:len(typesRegistry)/2], "is not a registry"},
		{"newer", `{"schema":2,"post_types":{"book":{"publicly_queryable":true}}}`, "newer schema"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.New(t, wpdb.DriverMySQL, "wp_")
			ids := wpdbtest.Insert(t, cfg,
				wpsite.Post{Title: "A post", Name: "a-post", Content: "<p>common</p>", Date: "2024-03-01 10:00:00"},
				wpsite.Post{Type: "book", Title: "A book", Name: "a-book", Content: "<p>common</p>", Date: "2024-03-02 10:00:00"})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			w, err := wpsite.Open(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if err := w.InsertOptions(ctx, map[string]string{blog.RegistryOption: tc.value}); err != nil {
				t.Fatal(err)
			}
			srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)})
			for _, q := range []string{"post_type=book", "genre=jazz", "s=common", "post_type%5B%5D=book", ""} {
				r := srv.get(t, "/load-more.php?start=0&desiredPosts=5&"+q)
				if got := postIDs(r.posts(t)); r.Status != http.StatusOK || !slices.Equal(got, ids[:1]) {
					t.Errorf("%s: %d, %v; want 200 and the post %d alone", q, r.Status, got, ids[0])
				}
			}
			if n := strings.Count(srv.Logs.String(), tc.says); n != 1 {
				t.Errorf("%d log lines say %q, want 1:\n%s", n, tc.says, srv.Logs.String())
			}
		})
	}
}
