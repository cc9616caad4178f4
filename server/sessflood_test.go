package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/wploadmore/wploadmore/session/sessiontest"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// floodBound is the test's -new-session-bytes: small enough that 200 000
// stored sessions would pass it many times over.
const floodBound = 2 << 20

// TestSessionFlood sends 200 000 cookieless requests, JSON answers and
// pages with and without ?posts=N, to a server whose sessions live in a Redis of the test's own, and
// checks that the sessions they leave in Redis stay under
// -new-session-bytes, while a visitor from before the flood and one who
// came during it count every post they were shown.
func TestSessionFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a flood of 200 000 requests")
	}
	cfg := wpdbtest.SQLite(t)
	seedBlog(t, cfg, 40)
	rs := sessiontest.StartServer(t)
	srv := startServer(t, map[string]string{
		"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_REDIS": rs.URL,
		"LOADMORE_NEW_SESSION_BYTES": strconv.Itoa(floodBound),
		"LOADMORE_ACCESS_LOG":        "off",
	})
	before := redisUsedMemory(t, rs.URL)

	early := newFloodVisitor(t, srv.URL)
	early.click(t) // stored at once: the budget is full
	const total = 200_000
	var sent atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		floodCookieless(t, srv.URL, total, &sent)
	}()
	for sent.Load() < total/4 {
		time.Sleep(10 * time.Millisecond)
	}
	// A visitor who arrives during the flood, and both clicking during it.
	late := newFloodVisitor(t, srv.URL)
	if !late.carried(t) {
		t.Error("the visitor who came during the flood got no companion cookie: the budget did not bite")
	}
	for range 5 {
		early.click(t)
		late.click(t)
	}
	<-done
	early.click(t)
	late.click(t)
	if late.carried(t) {
		t.Error("after the flood the visitor still carries its count: its session was never stored")
	}
	early.checkPage(t)
	late.checkPage(t)

	after := redisUsedMemory(t, rs.URL)
	keys := redisDBSize(t, rs.URL)
	t.Logf("Redis used_memory %d bytes before, %d after %d cookieless requests (%d keys): grown %d, bound %d",
		before, after, total, keys, after-before, floodBound)
	if after-before > floodBound {
		t.Errorf("Redis grew %d bytes under the flood, over the %d of -new-session-bytes", after-before, floodBound)
	}
}

// floodCookieless sends n cookieless requests from eight clients, half of
// them pages (one with ?posts=4, one without) and half JSON answers,
// counting them in sent.
func floodCookieless(t *testing.T, url string, n int64, sent *atomic.Int64) {
	const clients = 8
	transport := &http.Transport{MaxIdleConnsPerHost: clients}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 10 * time.Second}
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range clients {
		wg.Go(func() {
			for {
				i := sent.Add(1)
				if i > n {
					return
				}
				path := jsonPath(0, 2)
				switch i % 4 {
				case 0:
					path = "/load-more.php"
				case 1:
					path = "/load-more.php?posts=4" // the link that works without JavaScript
				}
				resp, err := client.Get(url + path)
				if err != nil {
					failed.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		t.Errorf("%d of the flood's requests failed", f)
	}
}

// floodVisitor is a browser that clicks "More posts" and checks that
// posts_start counts every post it was shown.
type floodVisitor struct {
	url    string
	client *http.Client
	shown  int // posts_start as the visitor has seen it grow
}

// newFloodVisitor loads the page, with a cookie jar of its own.
func newFloodVisitor(t *testing.T, url string) *floodVisitor {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	v := &floodVisitor{url: url, client: &http.Client{Jar: jar, Timeout: 30 * time.Second}, shown: 2}
	v.checkPage(t)
	return v
}

// click loads the next two posts.
func (v *floodVisitor) click(t *testing.T) {
	t.Helper()
	got := fetch(t, v.client, http.MethodGet, v.url+jsonPath(v.shown, 2))
	if n := len(got.posts(t)); n != 2 {
		t.Fatalf("click at %d: %d posts, want 2", v.shown, n)
	}
	v.shown += 2
}

// checkPage loads the page, which shows posts_start posts.
func (v *floodVisitor) checkPage(t *testing.T) {
	t.Helper()
	got := fetch(t, v.client, http.MethodGet, v.url+"/load-more.php")
	if got.Status != http.StatusOK {
		t.Fatalf("page: %d %s", got.Status, got.Body)
	}
	if badge := badgeValue(t, got.Body); badge != strconv.Itoa(v.shown) {
		cookies := []string{}
		for _, c := range v.client.Jar.Cookies(mustParseURL(t, v.url)) {
			cookies = append(cookies, c.Name+"="+c.Value)
		}
		t.Errorf("page shows posts_start %s, want %d (cookies: %s)", badge, v.shown, strings.Join(cookies, "; "))
	}
}

// carried reports whether the visitor holds a companion cookie.
func (v *floodVisitor) carried(t *testing.T) bool {
	for _, c := range v.client.Jar.Cookies(mustParseURL(t, v.url)) {
		if c.Name == "PHPSESSID_posts_start" {
			return true
		}
	}
	return false
}

// redisUsedMemory is INFO memory's used_memory of the Redis at url.
func redisUsedMemory(t *testing.T, url string) int64 {
	t.Helper()
	info, err := redis.String(redisDo(t, url, "INFO", "memory"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no used_memory in INFO memory:\n%s", info)
	return 0
}

func redisDBSize(t *testing.T, url string) int64 {
	t.Helper()
	n, err := redis.Int64(redisDo(t, url, "DBSIZE"))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// redisDo runs one command on a connection of its own.
func redisDo(t *testing.T, url, cmd string, args ...any) (any, error) {
	t.Helper()
	c, err := redis.DialURL(url)
	if err != nil {
		t.Fatalf("redis %s: %v", url, err)
	}
	defer c.Close()
	reply, err := c.Do(cmd, args...)
	if err != nil {
		return nil, fmt.Errorf("redis %s: %w", cmd, err)
	}
	return reply, nil
}

func mustParseURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestForgedCompanion sends the page companions the server never sealed
// for the id they come with: each is ignored (the page shows a new
// visitor's posts_start under a new id, and the forged cookie is replaced),
// and only the genuine one brings its count back.
func TestForgedCompanion(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.SQLite(t)
	seedBlog(t, cfg, 9)
	// Room for 16 sessions: the first is stored, the next newcomer is
	// carried (the rest is the returning visitors' reserve).
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_NEW_SESSION_BYTES": "4000"})
	answer := func(id, carried string, path string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if id != "" {
			req.AddCookie(&http.Cookie{Name: "PHPSESSID", Value: id})
			req.AddCookie(&http.Cookie{Name: "PHPSESSID_posts_start", Value: carried})
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	cookie := func(resp *http.Response, name string) *http.Cookie {
		for _, c := range resp.Cookies() {
			if c.Name == name {
				return c
			}
		}
		return nil
	}
	answer("", "", jsonPath(0, 2)) // stored: the budget's one newcomer
	resp, _ := answer("", "", jsonPath(0, 2))
	id, carried := cookie(resp, "PHPSESSID"), cookie(resp, "PHPSESSID_posts_start")
	if id == nil || carried == nil {
		t.Fatalf("the second newcomer got cookies %v; want a session id and its companion", resp.Cookies())
	}
	count, rest, _ := strings.Cut(carried.Value, ".")
	if count != "4" {
		t.Fatalf("companion %q does not carry 4", carried.Value)
	}
	mac := rest[strings.LastIndex(rest, ".")+1:]
	forgeries := []struct{ name, id, carried string }{
		{"another id", "0123456789abcdef0123456789abcdef", carried.Value},
		{"another count", id.Value, "40." + rest},
		{"a bad MAC", id.Value, count + "." + strings.TrimSuffix(rest, mac) + strings.Repeat("A", len(mac))},
	}
	for _, f := range forgeries {
		resp, page := answer(f.id, f.carried, "/load-more.php")
		if badge := badgeValue(t, page); badge != "2" {
			t.Errorf("%s: the page shows posts_start %s, want a new visitor's 2", f.name, badge)
		}
		if c := cookie(resp, "PHPSESSID"); c == nil || c.Value == f.id {
			t.Errorf("%s: session cookie %v, want a new id", f.name, c)
		}
		if c := cookie(resp, "PHPSESSID_posts_start"); c == nil || c.Value == f.carried {
			t.Errorf("%s: companion %v, want the forged one replaced", f.name, c)
		}
	}
	resp, page := answer(id.Value, carried.Value, "/load-more.php")
	if badge := badgeValue(t, page); badge != "4" {
		t.Errorf("the genuine companion: the page shows %s, want its 4", badge)
	}
	if c := cookie(resp, "PHPSESSID_posts_start"); c == nil || c.MaxAge >= 0 {
		t.Errorf("the genuine companion, its session now stored: %v, want it removed", c)
	}
	if c := cookie(resp, "PHPSESSID"); c != nil {
		t.Errorf("the genuine companion: a new session cookie %v, want the visitor's kept", c)
	}
}
