package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// The figures TestSearchFloodRSS holds the server to.
const (
	// searchFloodCount is how many distinct searches it sends.
	searchFloodCount = 100_000
	// searchFloodConns is how many connections send them.
	searchFloodConns = 8
	// searchFloodPosts is how many posts the site has, each holding
	// searchFloodPostWords of the 16 searchFloodWords: a word is in about a
	// third of them.
	searchFloodPosts     = 5000
	searchFloodPostWords = 6
	// searchFloodBytes and searchFloodCacheBytes are the server's
	// -search-bytes and -cache-bytes: small, so that the searches scanned
	// within the scans' share of time fill them many times over.
	searchFloodBytes      = 1 << 20
	searchFloodCacheBytes = 1 << 20
	// searchFloodScanned is how many bytes of rankings the searches sent
	// at the scans' pace are answered with, counted as the cache counts
	// them: what the server would keep without -search-bytes. They are
	// sent for at most searchFloodPacing, and must be answered with at
	// least searchFloodScannedLeast, when the scans are slow on a busy
	// machine.
	searchFloodScanned      = 12 * searchFloodBytes
	searchFloodScannedLeast = 4 * searchFloodBytes
	searchFloodPacing       = 30 * time.Second
	// searchFloodSlack is what the server may take beyond its size once
	// warm and twice what it keeps: the garbage collector lets the heap
	// grow to twice what is live, the warm server's own heap too, beside
	// the flood's requests and scans in flight (docs/search.md has the
	// figures).
	searchFloodSlack = 16 << 20
)

// searchFloodWords are the words of TestSearchFloodRSS's posts.
func searchFloodWords() []string {
	words := make([]string, 16)
	for i := range words {
		words[i] = "k" + strings.Repeat(string(rune('a'+i)), 2)
	}
	return words
}

// TestSearchFloodRSS sends searchFloodCount distinct searches to the
// server, a process of its own, each finding a thousand posts or more of
// 5 000, a different set for each pair of words: first at the pace the
// scans' share of time admits, each scanned and kept (200) or refused
// (503), until the rankings answered take searchFloodScanned; then the
// rest as fast as loopback allows from searchFloodConns connections, most
// refused. Its peak RSS
// (VmHWM) stays within its size once warm, plus twice -search-bytes and
// -cache-bytes, plus searchFloodSlack; keeping every ranking would pass
// it.
func TestSearchFloodRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server process and 100 000 searches")
	}
	t.Parallel()
	cfg := wpdbtest.MySQL(t)
	words := searchFloodWords()
	rng := rand.New(rand.NewPCG(1, 2))
	rows := wpdbtest.Posts(searchFloodPosts)
	held := make([][]string, len(rows)) // each post's words
	for i := range rows {
		for range searchFloodPostWords {
			held[i] = append(held[i], words[rng.IntN(len(words))])
		}
		rows[i].Content = "<p>" + strings.Join(held[i], " ") + "</p>"
	}
	wpdbtest.Insert(t, cfg, rows...)
	srv := startChildServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_ACCESS_LOG": "off",
		"LOADMORE_SEARCH_BYTES": strconv.Itoa(searchFloodBytes), "LOADMORE_CACHE_BYTES": strconv.Itoa(searchFloodCacheBytes)})
	// found[a][b] is how many posts hold the word a and not b (all that
	// hold a when a is b).
	found := make([][]int, len(words))
	for a := range words {
		found[a] = make([]int, len(words))
		for b := range words {
			for _, h := range held {
				if slices.Contains(h, words[a]) && (a == b || !slices.Contains(h, words[b])) {
					found[a][b]++
				}
			}
		}
	}
	// search is the i-th distinct search, a word, or a word without
	// another, and an exclusion no post holds, which makes it distinct;
	// and what its ranking takes in the cache.
	search := func(i int) (path string, ranking int) {
		a, b := i%len(words), i%len(words)
		if i%2 == 1 {
			b = (i / len(words)) % len(words)
		}
		s := words[a] + fmt.Sprintf("+-q%d", i)
		if a != b {
			s = words[a] + "+-" + words[b] + fmt.Sprintf("+-q%d", i)
		}
		return jsonPath(0, 2) + "&s=" + s, 24*found[a][b] + 2*len(s) + 160
	}

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: searchFloodConns}, Timeout: 10 * time.Second}
	// Warm: the blog, the page and a few searches, so the server's size
	// takes in what serving allocates once.
	srv.get(t, client, jsonPath(0, 2))
	srv.get(t, client, "/load-more.php")
	for i := range 20 {
		path, _ := search(searchFloodCount + i)
		srv.getServed(t, client, path)
	}
	time.Sleep(time.Second) // the scans' burst back
	_, warm := srv.memory(t)
	peak := srv.watch(t)

	var next, kept, refused, scanned atomic.Int64
	send := func(i int) (status int) {
		path, ranking := search(i)
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			t.Error(err)
			return 0
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case err != nil:
			t.Errorf("search %d: %v", i, err)
		case resp.StatusCode == http.StatusOK:
			kept.Add(1)
			scanned.Add(int64(ranking))
		case resp.StatusCode == http.StatusServiceUnavailable:
			refused.Add(1)
		default:
			t.Errorf("search %d: %s: %.200s", i, resp.Status, body)
		}
		return resp.StatusCode
	}
	// At the scans' pace: a refused search is followed by a pause.
	began := time.Now()
	for scanned.Load() < searchFloodScanned && time.Since(began) < searchFloodPacing && !t.Failed() {
		if send(int(next.Add(1))-1) == http.StatusServiceUnavailable {
			time.Sleep(10 * time.Millisecond)
		}
	}
	paced := time.Since(began)
	pacedKept, pacedSent := kept.Load(), next.Load()
	// As fast as loopback allows.
	began = time.Now()
	var wg sync.WaitGroup
	for range searchFloodConns {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < searchFloodCount && !t.Failed(); i = int(next.Add(1)) - 1 {
				send(i)
			}
		})
	}
	wg.Wait()
	flood := time.Since(began)
	hwm := peak()
	bound := uint64(warm) + 2*(searchFloodBytes+searchFloodCacheBytes) + searchFloodSlack
	t.Logf("%d searches at the scans' pace in %v: %d scanned and kept; %d as fast as loopback allows in %v: %d kept",
		pacedSent, paced.Round(time.Second), pacedKept, int64(searchFloodCount)-pacedSent, flood.Round(time.Second), kept.Load()-pacedKept)
	t.Logf("in all %d searches: %d kept, %.1f MB of rankings (%.0f times -search-bytes), %d refused",
		searchFloodCount, kept.Load(), mb(uint64(scanned.Load())), float64(scanned.Load())/searchFloodBytes, refused.Load())
	t.Logf("VmHWM %.1f MB, from %.1f MB warm; bound %.1f MB", mb(hwm), mb(warm), mb(bound))
	if scanned.Load() < searchFloodScannedLeast {
		t.Errorf("the searches answered take %.1f MB of rankings, want at least %.0f MB", mb(uint64(scanned.Load())), mb(uint64(searchFloodScannedLeast)))
	}
	if hwm > bound {
		t.Errorf("VmHWM %.1f MB after %d distinct searches, want at most %.1f MB", mb(hwm), searchFloodCount, mb(bound))
	}
}
