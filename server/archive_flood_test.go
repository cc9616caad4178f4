package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"
)

// archiveReader reads an archive's first batch (JSON) and its page,
// noting each answer's status and Age.
type archiveReader struct {
	mu       sync.Mutex
	statuses map[int]int
	maxAge   int
	answers  int
}

func (a *archiveReader) run(client *http.Client, base string, stop <-chan struct{}) {
	paths := []string{"/load-more.php?start=0&desiredPosts=2&year=2024&monthnum=1", "/load-more.php?year=2024&monthnum=1"}
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		status, age := 0, 0
		if resp, err := client.Get(base + paths[i%len(paths)]); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			status = resp.StatusCode
			age, _ = strconv.Atoi(resp.Header.Get("Age"))
		}
		a.mu.Lock()
		if a.statuses == nil {
			a.statuses = map[int]int{}
		}
		a.statuses[status]++
		a.maxAge = max(a.maxAge, age)
		a.answers++
		a.mu.Unlock()
		// An archive's readers come now and then, not in a tight loop.
		time.Sleep(20 * time.Millisecond)
	}
}

// dateWalk is an attacker's path: the first batch of a day archive, a
// distinct one each time, most of them with no posts.
func dateWalk() string {
	return fmt.Sprintf("/load-more.php?start=0&year=%d&monthnum=%d&day=%d", 2000+rand.IntN(26), 1+rand.IntN(12), 1+rand.IntN(28))
}

// TestArchiveReadersDuringFloods reads a month's archive, JSON and page,
// while attackers flood the server with distinct deep ranges, then with a
// walk over distinct dates: every query past the head's is refused at the
// bound on misses. The archive's readers must get only 200s, its head
// refreshed from the slot kept for heads readers come back to, or else
// served a little stale, its Age within staleFactor times the bound.
func TestArchiveReadersDuringFloods(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: two floods of a server process for about 20 s")
	}
	t.Parallel()
	srv, _ := startFloodServer(t)
	const staleBound = 4 * floodTTL

	for _, flood := range []struct {
		name string
		path func() string
	}{{"deep ranges", deepRange}, {"date walk", dateWalk}} {
		readers := &archiveReader{}
		attackers := &floodStats{}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		readerClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2}, Timeout: 10 * time.Second}
		attackClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: floodAttackers}, Timeout: 10 * time.Second}
		for range 2 {
			wg.Go(func() { readers.run(readerClient, srv.URL, stop) })
		}
		time.Sleep(2 * time.Second) // the archive's head loaded, as on a live site
		readers.mu.Lock()
		readers.statuses, readers.maxAge, readers.answers = nil, 0, 0
		readers.mu.Unlock()
		for range floodAttackers {
			wg.Go(func() { attackers.run(attackClient, stop, func() string { return srv.URL + flood.path() }) })
		}
		time.Sleep(floodFor)
		close(stop)
		wg.Wait()

		t.Logf("%s: readers %d answers %v, largest Age %d s; attackers %d requests %v",
			flood.name, readers.answers, readers.statuses, readers.maxAge, len(attackers.took), attackers.statuses)
		if readers.answers < 50 {
			t.Errorf("%s: readers got only %d answers", flood.name, readers.answers)
		}
		for status, n := range readers.statuses {
			if status != http.StatusOK {
				t.Errorf("%s: the archive's readers got %d answers %d, want only 200", flood.name, n, status)
			}
		}
		if time.Duration(readers.maxAge)*time.Second > staleBound {
			t.Errorf("%s: an answer %d s old, over the stale bound %v", flood.name, readers.maxAge, staleBound)
		}
		if attackers.statuses[http.StatusServiceUnavailable] == 0 {
			t.Errorf("%s: no attacker was refused: the flood did not reach the bound on queries", flood.name)
		}
	}
}
