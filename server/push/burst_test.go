package push_test

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/server/push"
	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// listingCounting is a Store that counts the pages it reads by listing,
// and the rematches of kept searches.
type listingCounting struct {
	*wpdb.Store
	mu        sync.Mutex
	pages     map[string]int
	rematches atomic.Int64
}

func (s *listingCounting) Posts(ctx context.Context, p blog.Page) ([]blog.Post, error) {
	s.mu.Lock()
	s.pages[p.Key()]++
	s.mu.Unlock()
	return s.Store.Posts(ctx, p)
}

func (s *listingCounting) Rematch(ctx context.Context, ids []uint64, qs []blog.Search) ([][]blog.RankEntry, error) {
	s.rematches.Add(1)
	return s.Store.Rematch(ctx, ids, qs)
}

func (s *listingCounting) counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.pages)
}

// TestBurst: 10 000 events in about a second, each a publish in
// category A (an import, one request a post), published with the
// plugin's script on a real Redis while a reader reads every listing's
// head without pause: each listing the burst touches is read again once
// (its freshness bound, a minute, is longer than the burst), the others
// never; the database sees those reads and nothing more (the proxy's
// count); the listings are marked in far fewer passes than events, and
// the kept search is matched once.
func TestBurst(t *testing.T) {
	t.Parallel()
	const events = 10000
	_, store, proxy := scopeSite(t)
	ctx := context.Background()
	terms, err := store.Terms(ctx)
	if err != nil {
		t.Fatal(err)
	}
	source := &listingCounting{Store: store, pages: map[string]int{}}
	format := listing.NewFormat(listing.NewSite(listing.Choices{ImageSize: listing.DefaultImageSize}, blog.Options{}, listing.Language{Locale: "en_US"}, slog.New(slog.DiscardHandler)))
	cache := listing.NewCache(source, format, listing.CacheLimits{TTL: time.Minute, Depth: 16, MaxEntries: 100, MaxBytes: 1 << 20,
		MaxMisses: 4, SearchBytes: 1 << 20, SearchTTL: 5 * time.Minute}, slog.New(slog.DiscardHandler), nopObserver{})
	pages := &marks{Cache: cache}

	r := sessiontest.New(t)
	conn := dial(t, r.URL)
	channel := r.Prefix + "events"
	t.Cleanup(func() { conn.Do("DEL", channel+push.CounterSuffix) })
	runCtx, cancel := context.WithCancel(ctx)
	var stats atomic.Pointer[interface{ Stats() push.Stats }]
	var f push.Follower
	f.Pages = pages
	stop := f.Start(runCtx, push.Start{URL: r.URL, Channel: channel, Timeout: time.Second, Reader: store,
		UseOptions: func(blog.Options) {}, UseTerms: func(*blog.Terms) {}, Terms: func() *blog.Terms { return terms },
		Bound:    time.Minute,
		Register: func(s interface{ Stats() push.Stats }) error { stats.Store(&s); return nil },
		Logger:   slog.New(slog.NewTextHandler(logWriter{t}, nil))})
	t.Cleanup(func() { cancel(); stop() })
	waitFor(t, "subscribed", func() bool { return subscribers(t, conn, channel) == 1 })

	listings := map[string]blog.Listing{"": blog.Home{}}
	for _, q := range []string{"cat=10", "cat=11", "cat=12", "author=1", "author=2", "year=2024", "year=2025"} {
		a := wpdbtest.ResolveArchive(t, terms, q)
		listings[a.Key()] = a
	}
	search := blog.ParseSearch("post", nil)
	readAll := func() {
		for key, l := range listings {
			if _, err := cache.Posts(ctx, blog.Page{In: l, Limit: 3}); err != nil {
				t.Errorf("%q: %v", key, err)
			}
		}
	}
	// What each listing's read costs in statements, the first time.
	cost := map[string]int{}
	for key, l := range listings {
		before := proxy.Selects()
		if _, err := cache.Posts(ctx, blog.Page{In: l, Limit: 3}); err != nil {
			t.Fatal(err)
		}
		cost[key] = proxy.Selects() - before
	}
	if _, err := cache.Posts(ctx, blog.Page{In: search, Limit: 3}); err != nil {
		t.Fatal(err)
	}
	before, selects, texts := source.counts(), proxy.Selects(), len(proxy.QueryTexts())

	// The reader, without pause, until the burst is served.
	done := make(chan struct{})
	var reads atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			readAll()
			reads.Add(1)
			time.Sleep(time.Millisecond)
		}
	})
	began := time.Now()
	for i := 0; i < events; i += 100 {
		for j := i; j < i+100; j++ {
			body := fmt.Sprintf(`"v":1,"kinds":["post"],"posts":[%d],"post_types":["post"],"terms":[11],"authors":[1],"dates":["2024-01-05"]}`, 1000+j)
			conn.Send("EVAL", script, 1, channel+push.CounterSuffix, channel, body)
		}
		if err := conn.Flush(); err != nil {
			t.Fatal(err)
		}
		for range 100 {
			if _, err := redis.Int64(conn.Receive()); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(time.Until(began.Add(time.Duration(i+100) * time.Second / events)))
	}
	sent := time.Since(began)
	waitFor(t, "every event received", func() bool { return (*stats.Load()).Stats().Received == events })
	time.Sleep(200 * time.Millisecond) // the last ones served
	close(done)
	wg.Wait()

	after := source.counts()
	touched := map[string]bool{"": true, "cat=10": true, "cat=11": true, "author=1": true, "year=2024": true}
	queried, statements := 0, 0
	for key := range listings {
		n := after[key] - before[key]
		queried, statements = queried+n, statements+n*cost[key]
		want := 0
		if touched[key] {
			want = 1
		}
		if n != want {
			t.Errorf("listing %q read %d times in the burst, want %d", key, n, want)
		}
	}
	var longest time.Duration // between two passes
	for i := 1; i < len(pages.times); i++ {
		longest = max(longest, pages.times[i].Sub(pages.times[i-1]))
	}
	st := (*stats.Load()).Stats()
	t.Logf("%d events sent in %v; %d reads of the %d listings; %d passes over the listings, at most %v apart; %d reads of heads, %d statements through the proxy; %d rematches; gaps %d",
		events, sent.Round(time.Millisecond), reads.Load(), len(listings), pages.count(), longest.Round(time.Millisecond),
		queried, proxy.Selects()-selects, source.rematches.Load(), st.Gaps)
	if st.Gaps != 0 {
		t.Errorf("%d gaps: the subscriber fell behind", st.Gaps)
	}
	// A connection the pool opens meanwhile (the reader and the rematch
	// at once) asks its id and version first: not a read of posts.
	opened := 0
	for _, q := range proxy.QueryTexts()[texts:] {
		if strings.HasPrefix(q, "SELECT CONNECTION_ID()") {
			opened++
		}
	}
	if got := proxy.Selects() - selects - opened; got > statements+1 {
		t.Errorf("%d statements through the proxy (besides %d connections' opening), want the %d of the reads of heads and one rematch at most", got, opened, statements)
	}
	if n := pages.count(); n > events/20 {
		t.Errorf("%d passes over the listings for %d events: not coalesced", n, events)
	}
	if n := source.rematches.Load(); n > 1 {
		t.Errorf("%d rematches of the kept search, want at most 1", n)
	}
}
