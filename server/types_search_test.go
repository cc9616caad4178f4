package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// TestTypesSearchRegistryChange searches a site of a post and a book,
// then excludes books from search in the registry: the next read of the
// registry (with the options, then the terms) changes what the search
// finds at once, though its ranking, kept for an hour of -search-ttl, was
// read under the old one. It waits for the options' next read, a minute.
func TestTypesSearchRegistryChange(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.New(t, wpdb.DriverMySQL, "wp_")
	ids := wpdbtest.Insert(t, cfg,
		wpsite.Post{Title: "A post", Name: "a-post", Content: "<p>common words</p>", Date: "2024-03-01 10:00:00"},
		wpsite.Post{Type: "book", Title: "A book", Name: "a-book", Content: "<p>common words</p>", Date: "2024-03-02 10:00:00"})
	registry := func(bookExcluded bool) string {
		return strings.Replace(typesRegistry, `"book":{"public":true,"publicly_queryable":true,"exclude_from_search":false`,
			`"book":{"public":true,"publicly_queryable":true,"exclude_from_search":`+map[bool]string{true: "true", false: "false"}[bookExcluded], 1)
	}
	if registry(true) == typesRegistry {
		t.Fatal("typesRegistry no longer spells book as this test replaces it")
	}
	wpdbtest.Options(t, cfg, map[string]string{blog.RegistryOption: registry(false)})
	const ttl = 200 * time.Millisecond
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)}, "-cache-ttl", ttl.String(), "-search-ttl", "1h")
	const search = "/load-more.php?start=0&desiredPosts=10&s=common"
	if got := postIDs(srv.get(t, search).posts(t)); !slices.Equal(got, []uint64{ids[1], ids[0]}) {
		t.Fatalf("s=common finds %v, want the book and the post %v", got, []uint64{ids[1], ids[0]})
	}
	if _, err := wpdbtest.OpenDB(t, cfg).Exec("UPDATE wp_options SET option_value = ? WHERE option_name = ?", registry(true), blog.RegistryOption); err != nil {
		t.Fatal(err)
	}
	wait := listing.OptionsEvery + 20*ttl
	deadline := time.Now().Add(wait)
	for {
		got := postIDs(srv.get(t, search).posts(t))
		if slices.Equal(got, []uint64{ids[0]}) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v after the registry excluded books from search, s=common still finds %v, want the post %d alone", wait, got, ids[0])
		}
		time.Sleep(ttl)
	}
	t.Logf("the search changed %v after the registry", wait-time.Until(deadline))
}
