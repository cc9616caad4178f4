package main

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestAgeOnlyWhenStale: answers served fresh, from the database or from
// memory, the blog's and an archive's, JSON and page, carry no Age; once
// the database is gone and an archive's head is served stale, its
// answers carry an Age of how old it is. Under -short only the fresh
// answers are checked.
func TestAgeOnlyWhenStale(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.MySQL(t)
	seedBlog(t, cfg, 6)
	cfg, proxy := wpdbtest.ThroughProxy(t, cfg)
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_QUERY_TIMEOUT": "2s"})
	const archiveJSON, archivePage = "/load-more.php?start=0&desiredPosts=2&year=2024&monthnum=1", "/load-more.php?year=2024&monthnum=1"

	for _, round := range []string{"queried", "from memory"} {
		for _, path := range []string{archiveJSON, archivePage, jsonPath(0, 2), "/load-more.php"} {
			got := srv.get(t, path)
			if got.Status != http.StatusOK {
				t.Fatalf("%s, %s: %d %s", path, round, got.Status, got.Body)
			}
			if age, ok := got.Header["Age"]; ok {
				t.Errorf("%s, fresh (%s): Age %q, want none", path, round, age)
			}
		}
	}

	if testing.Short() {
		t.Skip("-short: the stale answers wait out the freshness bound")
	}
	proxy.Refuse()
	const old = 2 * time.Second // past -cache-ttl's default of 1 s, under 4 times it
	time.Sleep(old + 100*time.Millisecond)
	for _, path := range []string{archiveJSON, archivePage} {
		got := srv.get(t, path)
		if got.Status != http.StatusOK {
			t.Errorf("%s, the database gone: %d %s, want the archive's head served stale", path, got.Status, got.Body)
			continue
		}
		age, err := strconv.Atoi(got.Header.Get("Age"))
		if err != nil || age < int(old/time.Second) || age > 3 {
			t.Errorf("%s, served stale: Age %q, want the head's age, %d s", path, got.Header.Get("Age"), int(old/time.Second))
		}
	}
}
