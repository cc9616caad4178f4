package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// The search rows: one search, the first page and the next, on this
// server and on WordPress's REST API (Debian's WordPress 6.1 behind
// php-fpm and nginx, on the same database), each pair taking turns (see
// runVersus). A batch is REST's default per_page, so both answer the same
// ten posts a page, and the connections are php-fpm's children, so both
// run as many requests at once.
//
// The word is in most of the seeded posts, as every word of the seeded
// text is: each scan reads and ranks the whole posts table, as a search
// on a site always scans it (LIKE '%word%').
const (
	searchWord  = "garden"
	searchBatch = 10
	searchConns = fpmChildren
	// searchDuration is the next page's run time, 10 s a round, and
	// scanRequests the requests a connection sends a round in the rows of
	// scans, which take seconds each.
	searchDuration = 30 * time.Second
	scanRequests   = 1
)

func searchScanName() string {
	return fmt.Sprintf("search s=%s, first page run as a scan, -cache-ttl 0, %d conns", searchWord, searchConns)
}
func searchNextName() string {
	return fmt.Sprintf("search s=%s, next page from the kept ranking, %d conns", searchWord, searchConns)
}
func restName(page int) string {
	return fmt.Sprintf("WordPress REST search=%s, page %d, php-fpm of %d children", searchWord, page, fpmChildren)
}

// searchScenarios returns the search rows: the first page of the search
// with the cache off, so each answer is a scan, versus REST's first page,
// and its next page, from the ranking the first scan kept, versus REST's
// page 2, which WordPress answers with a scan again.
func searchScenarios(o options) []scenario {
	server := func(start int) string {
		return fmt.Sprintf("/load-more.php?start=%d&desiredPosts=%d&s=%s", start, searchBatch, searchWord)
	}
	rest := func(page int) *scenario {
		return &scenario{name: restName(page), conns: searchConns, wordpress: true, requests: scanRequests,
			path: fmt.Sprintf("/?rest_route=/wp/v2/posts&search=%s&page=%d", searchWord, page)}
	}
	return []scenario{
		{name: searchScanName(), path: server(0), conns: searchConns, flags: []string{"-cache-ttl", "0"},
			versus: rest(1), requests: scanRequests},
		{name: searchNextName(), path: server(searchBatch), conns: searchConns,
			versus: rest(2), duration: max(searchDuration, o.duration), before: keepRanking(server(0))},
	}
}

// keepRanking asks the server for path until it answers 200, waiting out
// its scan, so the row after it is measured with the search's ranking
// kept: a scan refused (503: scans have had their share of time) is
// asked again a second later.
func keepRanking(path string) func(ctx context.Context, b *bench, srv *serverProcess) error {
	return func(ctx context.Context, _ *bench, srv *serverProcess) error {
		ctx, cancel := context.WithTimeout(ctx, setupQueryTimeout)
		defer cancel()
		for {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.baseURL+path, nil)
			if err != nil {
				return err
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return fmt.Errorf("keeping the search's ranking: %w", err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			switch {
			case resp.StatusCode == http.StatusOK:
				return nil
			case resp.StatusCode != http.StatusServiceUnavailable:
				return fmt.Errorf("keeping the search's ranking: %s answered %s", path, resp.Status)
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("keeping the search's ranking: %s still 503: %w", path, ctx.Err())
			case <-time.After(time.Second):
			}
		}
	}
}

// askAll sends sc.requests requests on each of sc.conns connections to
// srv, one after another on each, and returns them as a round that lasts
// until the last is answered: wrk counts only the answers within its run
// time, which requests of seconds each do not fit. An answer that is not
// a 200 with a JSON array of posts is an error.
func askAll(ctx context.Context, srv *serverProcess, sc scenario) (*result, error) {
	want := []byte(`[{"ID":`)
	if sc.wordpress {
		want = []byte(`[{"id":`)
	}
	stop := func() (*result, error) { return &result{}, nil }
	if srv.cmd != nil {
		var err error
		if stop, err = watchProcess(srv.cmd.Process.Pid); err != nil {
			return nil, err
		}
	}
	client := &http.Client{Timeout: setupQueryTimeout}
	var mu sync.Mutex
	var lat []time.Duration
	var answers, failed int
	var sample string
	began := time.Now()
	var wg sync.WaitGroup
	for range sc.conns {
		wg.Go(func() {
			for range sc.requests {
				t0 := time.Now()
				err := ask(ctx, client, srv.baseURL+sc.path, want)
				mu.Lock()
				lat, answers = append(lat, time.Since(t0)), answers+1
				if err != nil {
					failed++
					sample = cmp.Or(sample, err.Error())
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(began)
	m, err := stop()
	if err := cmp.Or(ctx.Err(), err); err != nil {
		return nil, err
	}
	m.lat, m.elapsed, m.Requests, m.Errors, m.ok, m.ErrorSample = lat, elapsed, answers, failed, answers-failed, sample
	return m, nil
}

// ask GETs url and fails unless it answers 200 with a body starting as
// want.
func ask(ctx context.Context, client *http.Client, url string, want []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return err
	case resp.StatusCode != http.StatusOK || !bytes.HasPrefix(body, want):
		return fmt.Errorf("%s: %.80q", resp.Status, body)
	}
	return nil
}

// searchTargets holds the first page, run as a scan, to REST's rate for
// the same search, and the next page to 100 times REST's page 2.
func searchTargets(row func(string) result) []target {
	first, rest1 := row(searchScanName()), row(restName(1))
	next, rest2 := row(searchNextName()), row(restName(2))
	return []target{
		newTarget("search, first page as a scan vs WordPress REST's", first.RPS/rest1.RPS, 1, false, "×",
			fmt.Sprintf("%.2f vs %.2f req/s", first.RPS, rest1.RPS)),
		newTarget("search, next page vs WordPress REST's page 2", next.RPS/rest2.RPS, 100, false, "×",
			fmt.Sprintf("%.0f vs %.2f req/s", next.RPS, rest2.RPS)),
	}
}
