package main

import (
	"bufio"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/server/accesslog"
)

// TestRequestLogBound floods the real server with 4xx requests carrying
// 8 KB of junk for a fixed time, and checks the log grew by no more than
// the stated bound: the burst and the rate's lines, each at most
// accesslog.MaxRequestLine, and one summary line per interval.
func TestRequestLogBound(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a flood of logged requests")
	}
	t.Parallel()
	srv := startServer(t, nil)
	junk := strings.Repeat("%22junk%ff", 8<<10/10)

	before := len(srv.Logs.String())
	sent, elapsed := flood(t, func(i int) (string, string, int) {
		// 404s with long paths and queries, and 405s on the PHP URL.
		if i%2 == 1 {
			return http.MethodPost, srv.URL + "/load-more.php?" + junk, http.StatusMethodNotAllowed
		}
		return http.MethodGet, srv.URL + "/" + junk[:1024] + "?" + junk, http.StatusNotFound
	})
	// A line is written before its answer is sent, so every line is in.
	grown := srv.Logs.String()[before:]

	maxLines := accesslog.ClientErrorBurst + int(elapsed.Seconds()*accesslog.ClientErrorLines) + 1
	maxSummaries := int(elapsed/accesslog.SuppressedInterval) + 1
	bound := maxLines*accesslog.MaxRequestLine + maxSummaries*accesslog.MaxRequestLine
	t.Logf("%d requests in %v: log grew %d bytes, %d lines; bound %d bytes", sent, elapsed.Round(time.Millisecond), len(grown), strings.Count(grown, "\n"), bound)
	if sent < 2*maxLines {
		t.Fatalf("only %d requests in %v: too few to test a bound of %d lines", sent, elapsed, maxLines)
	}
	if len(grown) > bound {
		t.Errorf("log grew %d bytes under the flood; bound %d", len(grown), bound)
	}
	sc := bufio.NewScanner(strings.NewReader(grown))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if len(sc.Text()) > accesslog.MaxRequestLine {
			t.Errorf("a line of %d bytes: %.200s…", len(sc.Text()), sc.Text())
			break
		}
	}

	// The limiter drops 4xx lines only: the site's own answers still show.
	if got := srv.get(t, "/healthz"); got.Status != http.StatusOK {
		t.Fatalf("healthz %d", got.Status)
	}
	if !strings.Contains(srv.Logs.String()[before+len(grown):], `"path":"/healthz"`) {
		t.Error("the 200 after the flood was not logged")
	}
}

// TestRequestLogByteBound floods the real server, started with a small
// -access-log-bytes, with 200s carrying 8 KB of junk, and checks that the
// log grew by no more than the burst and the rate's bytes.
func TestRequestLogByteBound(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a flood of logged requests")
	}
	t.Parallel()
	const budget = 64 << 10
	srv := startServer(t, map[string]string{"LOADMORE_ACCESS_LOG_BYTES": strconv.Itoa(budget)})
	junk := strings.Repeat("%22junk%ff", 8<<10/10)

	before := len(srv.Logs.String())
	sent, elapsed := flood(t, func(i int) (string, string, int) {
		if i%2 == 1 {
			// As much junk as a query the endpoint reads takes.
			const read = "start=0&desiredPosts=1&"
			return http.MethodGet, srv.URL + "/load-more.php?" + read + junk[:(maxQueryBytes-len(read))/10*10], http.StatusOK
		}
		return http.MethodGet, srv.URL + "/healthz?" + junk, http.StatusOK
	})
	grown := srv.Logs.String()[before:]
	bound := budget + int(elapsed.Seconds()*budget)
	t.Logf("%d requests in %v: log grew %d bytes, %d lines; bound %d bytes", sent, elapsed.Round(time.Millisecond), len(grown), strings.Count(grown, "\n"), bound)
	if sent*accesslog.MaxRequestLine/2 < 2*bound {
		t.Fatalf("only %d requests in %v: too few to test a bound of %d bytes", sent, elapsed, bound)
	}
	if len(grown) > bound {
		t.Errorf("log grew %d bytes under the flood; bound %d", len(grown), bound)
	}
}

// flood sends requests from 4 clients for 2 s, the i-th of each client
// being request(i), a method, URL and the status it must get, and returns
// how many were answered and how long it took.
func flood(t *testing.T, request func(i int) (method, url string, status int)) (sent int, elapsed time.Duration) {
	t.Helper()
	const clients, duration = 4, 2 * time.Second
	start := time.Now()
	var answered atomic.Int64
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			client := &http.Client{Timeout: 10 * time.Second}
			for i := c; time.Since(start) < duration; i++ {
				method, url, want := request(i)
				req, _ := http.NewRequest(method, url, nil)
				resp, err := client.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != want {
					t.Errorf("%s %.60s: %d, want %d", method, url, resp.StatusCode, want)
					return
				}
				answered.Add(1)
			}
		})
	}
	wg.Wait()
	return int(answered.Load()), time.Since(start)
}
