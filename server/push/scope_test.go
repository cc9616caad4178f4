package push_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/server/push"
	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// quiet is more than the time between two events that makes them a
// burst, which the listings follow at most once per freshness bound.
const quiet = 300 * time.Millisecond

// The terms of scopeSite: category A under P, category B, tag T.
const (
	termP, termA, termB, termQ, termT = 10, 11, 12, 13, 20
)

// scopeSite is a real MariaDB database, read through a proxy that counts
// the queries: posts 1-4 in A (post 1 tagged T) by author 1 in January
// 2024, posts 5-8 in B by author 2 in March 2025; Q is empty.
func scopeSite(t *testing.T) (cfg wpdb.Config, store *wpdb.Store, proxy *wpdbtest.Proxy) {
	t.Helper()
	cfg = wpdbtest.MySQL(t)
	ctx := context.Background()
	var posts []wpsite.Post
	var rels []wpsite.TermRelationship
	for id := uint64(1); id <= 8; id++ {
		p := wpsite.Post{ID: id, Author: 1, Title: fmt.Sprintf("Post %d", id), Name: fmt.Sprintf("post-%d", id),
			Content: "text", Date: fmt.Sprintf("2024-01-%02d 10:00:00", id)}
		cat := uint64(termA)
		if id > 4 {
			p.Author, p.Date, cat = 2, fmt.Sprintf("2025-03-%02d 10:00:00", id), termB
		}
		posts = append(posts, p)
		rels = append(rels, wpsite.TermRelationship{ObjectID: id, TermTaxonomyID: cat})
	}
	rels = append(rels, wpsite.TermRelationship{ObjectID: 1, TermTaxonomyID: termT})
	terms := []wpsite.Term{
		{ID: termP, Name: "P", Slug: "p", Taxonomy: "category"},
		{ID: termA, Name: "A", Slug: "a", Taxonomy: "category", Parent: termP, Count: 4},
		{ID: termB, Name: "B", Slug: "b", Taxonomy: "category", Count: 4},
		{ID: termQ, Name: "Q", Slug: "q", Taxonomy: "category"},
		{ID: termT, Name: "T", Slug: "t", Taxonomy: "post_tag", Count: 1},
	}
	users := []wpsite.User{{ID: 1, Login: "one", Nicename: "one", DisplayName: "One"}, {ID: 2, Login: "two", Nicename: "two", DisplayName: "Two"}}
	w, err := wpsite.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	wpdbtest.Insert(t, cfg, posts...)
	for _, err := range []error{w.InsertTerms(ctx, terms), w.InsertTermRelationships(ctx, rels), w.InsertUsers(ctx, users)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	proxied, proxy := wpdbtest.ThroughProxy(t, cfg)
	return cfg, wpdbtest.Store(t, proxied), proxy
}

// marks is the listings a Follower marks, counting its calls.
type marks struct {
	*listing.Cache
	mu      sync.Mutex
	changes []blog.Change
	times   []time.Time
}

func (m *marks) MarkChanged(ctx context.Context, ch blog.Change) {
	m.Cache.MarkChanged(ctx, ch)
	m.mu.Lock()
	m.changes = append(m.changes, ch)
	m.times = append(m.times, time.Now())
	m.mu.Unlock()
}

func (m *marks) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.changes)
}

type nopObserver struct{}

func (nopObserver) CacheHit()     {}
func (nopObserver) CacheMiss()    {}
func (nopObserver) CacheRefresh() {}
func (nopObserver) CacheRefused() {}
func (nopObserver) CacheStale()   {}

// followSite starts a Follower of a channel of t's own over pages, with
// store's terms, and returns the channel and what sends on it.
func followSite(t *testing.T, store *wpdb.Store, pages any) (publish func(body string)) {
	t.Helper()
	r := sessiontest.New(t)
	conn := dial(t, r.URL)
	channel := r.Prefix + "events"
	t.Cleanup(func() { conn.Do("DEL", channel+push.CounterSuffix) })
	ctx, cancel := context.WithCancel(context.Background())
	terms, err := store.Terms(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var f push.Follower
	f.Pages = pages
	stop := f.Start(ctx, push.Start{URL: r.URL, Channel: channel, Timeout: time.Second, Reader: store,
		UseOptions: func(blog.Options) {},
		UseTerms:   func(ts *blog.Terms) { mu.Lock(); terms = ts; mu.Unlock() },
		Terms:      func() *blog.Terms { mu.Lock(); defer mu.Unlock(); return terms },
		Register:   func(interface{ Stats() push.Stats }) error { return nil },
		Logger:     slog.New(slog.NewTextHandler(logWriter{t}, nil))})
	t.Cleanup(func() { cancel(); stop() })
	waitFor(t, "subscribed", func() bool { return subscribers(t, conn, channel) == 1 })
	return func(body string) { send(t, conn, channel, body) }
}

// TestTargetedRefresh: with every listing of a real database kept, an
// event refreshes only the listings it names: counted by the queries each
// listing's next read sends through the proxy, one for a listing
// refreshed (which then shows the change), none for one kept.
func TestTargetedRefresh(t *testing.T) {
	t.Parallel()
	cfg, store, proxy := scopeSite(t)
	ctx := context.Background()
	terms, err := store.Terms(ctx)
	if err != nil {
		t.Fatal(err)
	}
	format := listing.NewFormat(listing.NewSite(listing.Choices{ImageSize: listing.DefaultImageSize}, blog.Options{}, listing.Language{Locale: "en_US"}, slog.New(slog.DiscardHandler)))
	cache := listing.NewCache(store, format, listing.CacheLimits{TTL: time.Minute, Depth: 16, MaxEntries: 100, MaxBytes: 1 << 20, MaxMisses: 4, SearchBytes: 1 << 20},
		slog.New(slog.DiscardHandler), nopObserver{})
	pages := &marks{Cache: cache}
	publish := followSite(t, store, pages)

	listings := map[string]blog.Listing{"blog": blog.Home{}}
	for _, q := range []string{"cat=10", "cat=11", "cat=12", "cat=13", "tag=t", "author=1", "author=2", "year=2024", "year=2025", "year=2024&monthnum=2"} {
		listings[q] = wpdbtest.ResolveArchive(t, terms, q)
	}
	// read reads the head of each listing and returns those that sent a
	// query.
	read := func() (queried []string) {
		t.Helper()
		for name, l := range listings {
			before := proxy.Selects()
			if _, err := cache.Posts(ctx, blog.Page{In: l, Limit: 3}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if proxy.Selects() != before {
				queried = append(queried, name)
			}
		}
		slices.Sort(queried)
		return queried
	}
	read()
	if again := read(); len(again) > 0 {
		t.Fatalf("kept heads queried again with no event: %v", again)
	}

	// Post 9 published in A on 2024-02-01 by author 1: the plugin's event.
	wpdbtest.Insert(t, cfg, wpsite.Post{ID: 9, Author: 1, Title: "Published", Name: "published", Content: "new", Date: "2024-02-01 10:00:00"})
	db := wpdbtest.OpenDB(t, cfg)
	if _, err := db.Exec("INSERT INTO wp_term_relationships (object_id, term_taxonomy_id) VALUES (9, ?)", termA); err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		name, body string
		want       []string // the listings read again
	}{
		{"a publish in A", `"v":1,"kinds":["post"],"posts":[9],"post_types":["post"],"terms":[11],"taxonomies":["category"],"authors":[1],"dates":["2024-02-01"]}`,
			[]string{"author=1", "blog", "cat=10", "cat=11", "year=2024", "year=2024&monthnum=2"}},
		{"an edit in B moved to 2025-03-20 by author 2", `"v":1,"kinds":["post"],"posts":[6],"post_types":["post"],"terms":[12],"authors":[2],"dates":["2025-03-06","2025-03-20"]}`,
			[]string{"author=2", "blog", "cat=12", "year=2025"}},
		{"a tag renamed", `"v":1,"kinds":["term"],"terms":[20],"taxonomies":["post_tag"]}`,
			[]string{"blog", "tag=t"}},
		{"a child category renamed", `"v":1,"kinds":["term"],"terms":[11],"taxonomies":["category"]}`,
			[]string{"blog", "cat=10", "cat=11"}},
		{"author 2 renamed", `"v":1,"kinds":["user"],"authors":[2]}`,
			[]string{"author=2", "blog", "cat=10", "cat=11", "cat=12", "cat=13", "tag=t", "year=2024", "year=2024&monthnum=2", "year=2025"}},
		{"an unknown term", `"v":1,"kinds":["post"],"posts":[3],"post_types":["post"],"terms":[999],"authors":[1],"dates":["2024-01-03"]}`,
			[]string{"author=1", "blog", "cat=10", "cat=11", "cat=12", "cat=13", "tag=t", "year=2024"}},
		{"the featured image of post 3 in A", `"v":1,"kinds":["media"],"posts":[3],"post_types":["post"],"terms":[11],"authors":[1],"dates":["2024-01-03"]}`,
			[]string{"author=1", "blog", "cat=10", "cat=11", "year=2024"}},
		{"an image featured by posts not known", `"v":1,"kinds":["media"],"posts":[99]}`,
			[]string{"author=1", "author=2", "blog", "cat=10", "cat=11", "cat=12", "cat=13", "tag=t", "year=2024", "year=2024&monthnum=2", "year=2025"}},
		{"A moved from P to Q", `"v":1,"kinds":["term"],"terms":[11],"taxonomies":["category"]}`,
			[]string{"blog", "cat=10", "cat=11", "cat=13"}},
		{"an option", `"v":1,"kinds":["option"],"options":["blogname"]}`,
			[]string{"author=1", "author=2", "blog", "cat=10", "cat=11", "cat=12", "cat=13", "tag=t", "year=2024", "year=2024&monthnum=2", "year=2025"}},
	} {
		if tc.name == "A moved from P to Q" {
			if _, err := db.Exec("UPDATE wp_term_taxonomy SET parent = ? WHERE term_id = ?", termQ, termA); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(quiet) // each event its own, not a burst
		publish(tc.body)
		waitFor(t, tc.name+" handled", func() bool { return pages.count() == i+1 })
		if got := read(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: read again %v, want %v", tc.name, got, tc.want)
		}
		if i == 0 {
			posts, err := cache.Posts(ctx, blog.Page{In: listings["cat=11"], Limit: 1})
			if err != nil || len(posts) != 1 || posts[0].ID != 9 {
				t.Errorf("A's head after the publish: %v %v, want post 9 first", ids(posts), err)
			}
		}
	}
}

func ids(posts []listing.Post) []uint64 {
	out := make([]uint64, len(posts))
	for i, p := range posts {
		out[i] = p.ID
	}
	return out
}

// TestScope: what each event says changed. A featured image naming post
// types is its posts' change, as a post's; one naming none (the plugin
// could not tell its posts), an option, the registry, are of unknown
// scope.
func TestScope(t *testing.T) {
	t.Parallel()
	terms := blog.NewTerms([]blog.ArchiveTerm{
		{ID: termA, TaxonomyID: 111, Taxonomy: "category", Slug: "a", Count: 1},
		{ID: termB, TaxonomyID: 112, Taxonomy: "category", Slug: "b", Count: 1},
	}, nil, 2, time.Now())
	for _, tc := range []struct {
		name string
		e    push.Event
		want blog.Change
	}{
		{"a publish", push.Event{Kinds: []string{push.KindPost}, Posts: []uint64{3}, PostTypes: []string{"post"}, Terms: []uint64{termA}, Authors: []uint64{1}, Dates: []string{"2024-01-03"}},
			blog.Change{Posts: []uint64{3}, TermTaxonomyIDs: []uint64{111, 111}, Authors: []uint64{1}, Dates: []string{"2024-01-03"}, PostTypes: []string{"post"}}},
		{"a featured image of two posts", push.Event{Kinds: []string{push.KindMedia}, Posts: []uint64{3, 4}, PostTypes: []string{"page", "post"}, Terms: []uint64{termA, termB}, Authors: []uint64{0, 2}, Dates: []string{"2024-01-03", "2025-03-04"}},
			blog.Change{Posts: []uint64{3, 4}, TermTaxonomyIDs: []uint64{111, 112, 111, 112}, Authors: []uint64{0, 2}, Dates: []string{"2024-01-03", "2025-03-04"}, PostTypes: []string{"page", "post"}}},
		{"a featured image of a post with no terms", push.Event{Kinds: []string{push.KindMedia}, Posts: []uint64{5}, PostTypes: []string{"page"}, Authors: []uint64{1}, Dates: []string{"2024-01-05"}},
			blog.Change{Posts: []uint64{5}, Authors: []uint64{1}, Dates: []string{"2024-01-05"}, PostTypes: []string{"page"}}},
		{"an image whose posts are not known", push.Event{Kinds: []string{push.KindMedia}, Posts: []uint64{99}},
			blog.Change{All: true}},
		{"an image whose posts are not known, beside a publish", push.Event{Kinds: []string{push.KindMedia, push.KindPost}, Posts: []uint64{3, 99}, Terms: []uint64{termA}, Authors: []uint64{1}, Dates: []string{"2024-01-03"}},
			blog.Change{All: true}},
		{"a featured image and an option", push.Event{Kinds: []string{push.KindMedia, push.KindOption}, Posts: []uint64{3}, PostTypes: []string{"post"}, Options: []string{"blogname"}},
			blog.Change{All: true}},
		{"a featured image and the registry", push.Event{Kinds: []string{push.KindMedia, push.KindRegistry}, Posts: []uint64{3}, PostTypes: []string{"post"}},
			blog.Change{All: true, Searches: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, push.Scope(tc.e, terms, terms)); diff != "" {
				t.Errorf("Scope (-want +got):\n%s", diff)
			}
		})
	}
}
