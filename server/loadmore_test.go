package main

import (
	"database/sql"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// seedBlog fills a test database with published posts (IDs returned newest
// first) and the rows a real site has that must never be listed.
func seedBlog(t testing.TB, cfg wpdb.Config, published int) []uint64 {
	t.Helper()
	var rows []wpsite.Post
	for i := range published {
		rows = append(rows, wpsite.Post{
			Title:   fmt.Sprintf("Post %d", i+1),
			Name:    fmt.Sprintf("post-%d", i+1),
			Content: fmt.Sprintf("<!-- wp:paragraph --><p>Body of post %d &amp; more.</p><!-- /wp:paragraph -->", i+1),
			// Two posts share each date: the ID breaks the tie.
			Date: fmt.Sprintf("2024-01-%02d 10:00:00", i/2+1),
		})
	}
	ids := wpdbtest.Insert(t, cfg, rows...)
	wpdbtest.Insert(t, cfg,
		wpsite.Post{Title: "Draft", Status: "draft", Date: "2030-01-01 00:00:00"},
		wpsite.Post{Title: "Private", Status: "private", Date: "2030-01-01 00:00:00"},
		wpsite.Post{Title: "Page", Type: "page", Date: "2030-01-01 00:00:00"},
		wpsite.Post{Title: "Menu", Type: "nav_menu_item", Date: "2030-01-01 00:00:00"},
		wpsite.Post{Title: "Revision", Type: "revision", Status: "inherit", Date: "2030-01-01 00:00:00"},
	)
	newestFirst := slices.Clone(ids)
	slices.SortFunc(newestFirst, func(a, b uint64) int {
		// Inserted in date order, so a larger ID is never older.
		return -cmpUint(a, b)
	})
	return newestFirst
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestLoadMoreJSON runs the endpoint over each database driver: the shape
// of the answer, its headers, and paging through the whole blog.
func TestLoadMoreJSON(t *testing.T) {
	t.Parallel()
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.New(t, driver, "wp_")
			want := seedBlog(t, cfg, 9)
			srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)})

			first := srv.get(t, jsonPath(0, 2))
			if got := first.Header.Get("Content-Type"); got != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", got)
			}
			if got := first.Header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control %q", got)
			}
			posts := first.posts(t)
			wantFirst := []listing.Post{
				{ID: want[0], Title: "Post 9", Excerpt: "Body of post 9 & more....", Name: "post-9", Date: "2024-01-05 10:00:00",
					TitleText: "Post 9", LocalDate: "January 5, 2024", DateTime: "2024-01-05T10:00:00"},
				{ID: want[1], Title: "Post 8", Excerpt: "Body of post 8 & more....", Name: "post-8", Date: "2024-01-04 10:00:00",
					TitleText: "Post 8", LocalDate: "January 4, 2024", DateTime: "2024-01-04T10:00:00"},
			}
			if diff := cmp.Diff(wantFirst, posts); diff != "" {
				t.Errorf("first page (-want +got)\n%s", diff)
			}
			if !strings.Contains(first.Body, `"post_content":"Body of post 9 & more...."`) {
				t.Errorf("the JSON does not hold plain text: %s", first.Body)
			}
			if !strings.Contains(first.Body, `"ID":`+fmt.Sprint(want[0])) {
				t.Errorf("ID is not a JSON number: %s", first.Body)
			}

			for _, k := range []int{1, 2, 3, 7} {
				var seen []uint64
				for start := 0; ; start += k {
					page := srv.get(t, jsonPath(start, k)).posts(t)
					if len(page) == 0 {
						break
					}
					seen = append(seen, postIDs(page)...)
				}
				if diff := cmp.Diff(want, seen); diff != "" {
					t.Errorf("paging by %d (-want +got)\n%s", k, diff)
				}
			}

			if got := srv.get(t, "/load-more.php?start=0").posts(t); len(got) != 2 {
				t.Errorf("without desiredPosts: %d posts, want the default 2", len(got))
			}
			end := srv.get(t, jsonPath(9, 2))
			if end.Status != http.StatusOK || end.Body != "[]\n" {
				t.Errorf("past the end: %d %q, want 200 \"[]\"", end.Status, end.Body)
			}
		})
	}
}

// TestBadInput sends every kind of bad parameter: each gets a 400 with a
// JSON error naming the parameter, and the table is the same afterwards.
func TestBadInput(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.MySQL(t)
	seedBlog(t, cfg, 3)
	db := wpdbtest.OpenDB(t, cfg)
	before := tableDigest(t, db)
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)})

	startErr := `{"error":"start must be a whole number from 0 to 2147483647"}` + "\n"
	desiredErr := `{"error":"desiredPosts must be a whole number from 1 to 100"}` + "\n"
	lastPostErr := `{"error":"lastPost must be a whole number from 1 to 9223372036854775807"}` + "\n"
	tests := []struct {
		name, query, want string
	}{
		{"negative", "start=-2", startErr},
		{"non-numeric", "start=abc", startErr},
		{"overflowing", "start=9223372036854775808", startErr},
		{"empty", "start=", startErr},
		{"fraction", "start=1.0", startErr},
		{"repeated", "start=0&start=2", `{"error":"start must be given once"}` + "\n"},
		{"injection", "start=1;DROP%20TABLE%20wp_posts", startErr},
		{"quote injection", "start=0%27%20OR%201=1--", startErr},
		{"union injection", "start=0&desiredPosts=1%20UNION%20SELECT%20user_pass%20FROM%20wp_users", desiredErr},
		{"desiredPosts zero", "start=0&desiredPosts=0", desiredErr},
		{"desiredPosts too many", "start=0&desiredPosts=101", desiredErr},
		{"desiredPosts negative", "start=0&desiredPosts=-1", desiredErr},
		{"desiredPosts repeated", "start=0&desiredPosts=1&desiredPosts=1", `{"error":"desiredPosts must be given once"}` + "\n"},
		{"array", "start[]=0", startErr},
		// Signed numbers strconv would read as in range.
		{"minus zero", "start=-0", startErr},
		{"plus", "start=%2B5", startErr},
		{"raw plus", "start=+5", startErr},
		{"desiredPosts minus zero", "start=0&desiredPosts=-0", desiredErr},
		{"desiredPosts plus", "start=0&desiredPosts=%2B5", desiredErr},
		{"desiredPosts raw plus", "start=0&desiredPosts=+5", desiredErr},
		{"lastPost minus zero", "start=0&lastPost=-0", lastPostErr},
		{"lastPost plus", "start=0&lastPost=%2B5", lastPostErr},
		{"lastPost raw plus", "start=0&lastPost=+5", lastPostErr},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := srv.get(t, "/load-more.php?"+tt.query)
			if got.Status != http.StatusBadRequest {
				t.Errorf("status %d, want 400", got.Status)
			}
			if ct := got.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if got.Body != tt.want {
				t.Errorf("body %q, want %q", got.Body, tt.want)
			}
		})
	}
	if after := tableDigest(t, db); after != before {
		t.Errorf("the posts table changed: %s, was %s", after, before)
	}
	if n := len(srv.get(t, jsonPath(0, 10)).posts(t)); n != 3 {
		t.Errorf("after the attempts: %d posts, want 3", n)
	}
}

// tableDigest sums up wp_posts so a test can tell it did not change.
func tableDigest(t testing.TB, db *sql.DB) string {
	t.Helper()
	var n int
	var sum sql.NullString
	err := db.QueryRow("SELECT COUNT(*), SUM(CRC32(CONCAT_WS('|', ID, post_title, post_content, post_status, post_type, post_date))) FROM wp_posts").Scan(&n, &sum)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d rows, checksum %s", n, sum.String)
}

func TestMethods(t *testing.T) {
	t.Parallel()
	srv := startServer(t, nil)
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodOptions} {
		t.Run(method, func(t *testing.T) {
			got := srv.do(t, method, jsonPath(0, 2))
			if got.Status != http.StatusMethodNotAllowed || got.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%d Allow=%q, want 405 Allow=\"GET, HEAD\"", got.Status, got.Header.Get("Allow"))
			}
			if !strings.HasPrefix(got.Body, `{"error":"method `+method+` not allowed`) {
				t.Errorf("body %q", got.Body)
			}
		})
	}
	t.Run("HEAD", func(t *testing.T) {
		got := srv.do(t, http.MethodHead, jsonPath(0, 2))
		if got.Status != http.StatusOK || got.Body != "" || got.Header.Get("Content-Type") != "application/json; charset=utf-8" {
			t.Errorf("HEAD: %d %q %q", got.Status, got.Header.Get("Content-Type"), got.Body)
		}
	})
}

// TestSessionCounter follows one visitor with a cookie jar, over the
// in-memory store and over Redis, where the value must be PHP's own form.
func TestSessionCounter(t *testing.T) {
	t.Parallel()
	for _, store := range []string{"memory", "redis"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.SQLite(t)
			seedBlog(t, cfg, 7)
			env := map[string]string{"LOADMORE_DB": dbURL(t, cfg)}
			var redis *sessiontest.Redis
			if store == "redis" {
				redis = sessiontest.New(t)
				env["LOADMORE_REDIS"] = redis.URL
				env["LOADMORE_SESSION_PREFIX"] = redis.Prefix
			}
			srv := startServer(t, env)

			page := srv.get(t, "/load-more.php")
			if page.Status != http.StatusOK || badgeValue(t, page.Body) != "2" || countArticles(page.Body) != 2 {
				t.Fatalf("first visit: %d, badge %s, %d posts; want 200, 2, 2", page.Status, badgeValue(t, page.Body), countArticles(page.Body))
			}
			for _, h := range []string{"Content-Security-Policy", "X-Content-Type-Options"} {
				if page.Header.Get(h) == "" {
					t.Errorf("page has no %s", h)
				}
			}
			steps := []struct {
				start, desired, wantPosts, wantCounter int
			}{
				{2, 2, 2, 4},
				{4, 2, 2, 6},
				{6, 2, 1, 7},
				{7, 2, 0, 7}, // an empty answer leaves it
				{0, 3, 3, 10},
			}
			for _, step := range steps {
				posts := srv.get(t, jsonPath(step.start, step.desired)).posts(t)
				if len(posts) != step.wantPosts {
					t.Errorf("start=%d: %d posts, want %d", step.start, len(posts), step.wantPosts)
				}
				page := srv.get(t, "/load-more.php")
				if got := badgeValue(t, page.Body); got != fmt.Sprint(step.wantCounter) {
					t.Errorf("after start=%d: badge %s, want %d", step.start, got, step.wantCounter)
				}
				if got, want := countArticles(page.Body), min(step.wantCounter, 7); got != want {
					t.Errorf("after start=%d: page shows %d posts, want %d", step.start, got, want)
				}
			}
			if redis != nil {
				keys := redis.Keys()
				if len(keys) != 1 {
					t.Fatalf("Redis keys %q, want one session", keys)
				}
				value, _ := redis.Get(keys[0])
				if string(value) != "posts_start|i:10;" {
					t.Errorf("Redis holds %q, want PHP's posts_start|i:10;", value)
				}
				if ttl := redis.TTL(keys[0]); ttl <= 1400*time.Second || ttl > 1440*time.Second {
					t.Errorf("TTL %v, want session.gc_maxlifetime 1440s", ttl)
				}
			}
		})
	}
}

// TestConcurrentVisitorRequests fires 50 requests of one visitor at once:
// every post they were sent is counted.
func TestConcurrentVisitorRequests(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.SQLite(t)
	seedBlog(t, cfg, 5)
	redis := sessiontest.New(t)
	srv := startServer(t, map[string]string{
		"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_REDIS": redis.URL, "LOADMORE_SESSION_PREFIX": redis.Prefix,
	})
	srv.get(t, "/load-more.php") // the session, at 2
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if got := srv.get(t, jsonPath(0, 2)); got.Status != http.StatusOK {
				t.Errorf("status %d: %s", got.Status, got.Body)
			}
		})
	}
	wg.Wait()
	if got := badgeValue(t, srv.get(t, "/load-more.php").Body); got != "102" {
		t.Errorf("badge %s after 50 requests of 2 posts, want 102", got)
	}
}

// TestCacheFreshness runs the server with its defaults, over each driver:
// a post published after the listing was read shows within the freshness
// bound of 1 s (plus the query's own time), while posts_start counts every
// request; with -cache-ttl 0 it shows at once. TestPostCacheFreshness checks
// each kind of change against a clock the test moves.
func TestCacheFreshness(t *testing.T) {
	t.Parallel()
	for _, ttl := range []string{"", "0"} {
		t.Run("ttl="+ttl, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.SQLite(t)
			seedBlog(t, cfg, 3)
			env := map[string]string{"LOADMORE_DB": dbURL(t, cfg)}
			if ttl != "" {
				env["LOADMORE_CACHE_TTL"] = ttl
			}
			srv := startServer(t, env)
			srv.get(t, jsonPath(0, 1))
			wpdbtest.Insert(t, cfg, wpsite.Post{Title: "Newest", Date: "2025-01-01 00:00:00"})
			published := time.Now()
			requests := 2
			for ; srv.get(t, jsonPath(0, 1)).posts(t)[0].Title != "Newest"; requests++ {
				if time.Since(published) > testkit.Scale(1200*time.Millisecond) {
					t.Fatalf("the new post was not served within %v", time.Since(published))
				}
				time.Sleep(10 * time.Millisecond)
			}
			if took := time.Since(published); ttl == "0" && took > testkit.Scale(200*time.Millisecond) {
				t.Errorf("without the cache the new post took %v to show", took)
			}
			if got, want := badgeValue(t, srv.get(t, "/load-more.php").Body), strconv.Itoa(2+requests); got != want {
				t.Errorf("badge %s after %d requests of one post, want %s: every request counted", got, requests, want)
			}
		})
	}
}

// TestSiteOptions runs the server on a database with WordPress's options
// table, over each driver: the page is titled with the site's blogname and
// shows dates in its date_format, in the JSON and on the page, and -title
// and -date-format override them.
func TestSiteOptions(t *testing.T) {
	t.Parallel()
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.New(t, driver, "wp_")
			wpdbtest.Insert(t, cfg, wpsite.Post{
				Title: "Fish &amp; Chips &#8211; <em>tonight</em>", Name: "fish", Date: "2024-03-31 02:30:00",
				Content: "<p>Body.</p>",
			})
			wpdbtest.Options(t, cfg, map[string]string{
				"blogname":        "Tom &amp; Jerry&#8217;s blog",
				"date_format":     `l, F jS, Y \a\t g:i a T`,
				"timezone_string": "Europe/Paris",
				"gmt_offset":      "",
			})

			srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)})
			posts := srv.get(t, jsonPath(0, 1)).posts(t)
			// 02:30 on 2024-03-31 does not exist in Paris (clocks go from 2:00
			// to 3:00); Go reads it as 03:30 CEST, as PHP's DateTime does.
			want := []string{"Fish &amp; Chips &#8211; <em>tonight</em>", "Fish & Chips – tonight",
				"Sunday, March 31st, 2024 at 3:30 am CEST", "2024-03-31T02:30:00"}
			if diff := cmp.Diff(want, []string{posts[0].Title, posts[0].TitleText, posts[0].LocalDate, posts[0].DateTime}); diff != "" {
				t.Errorf("post_title, title, date, datetime (-want +got)\n%s", diff)
			}
			page := srv.get(t, "/load-more.php").Body
			for _, s := range []string{
				"<title>Tom &amp; Jerry’s blog</title>",
				">Fish &amp; Chips – tonight</h2>",
				`<time class="post-date" datetime="2024-03-31T02:30:00">Sunday, March 31st, 2024 at 3:30 am CEST</time>`,
			} {
				if !strings.Contains(page, s) {
					t.Errorf("the page lacks %s:\n%s", s, page)
				}
			}

			flagged := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_DATE_FORMAT": "Y-m-d"}, "-title", "Our news")
			if got := flagged.get(t, jsonPath(0, 1)).posts(t)[0].LocalDate; got != "2024-03-31" {
				t.Errorf("with LOADMORE_DATE_FORMAT: date %q, want 2024-03-31", got)
			}
			if page := flagged.get(t, "/load-more.php").Body; !strings.Contains(page, "<title>Our news</title>") {
				t.Errorf("with -title: the page lacks its title:\n%s", page)
			}
		})
	}
}
