package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// termGroup finds the term_taxonomy_id lists an archive's query filters
// on (see wpdb's sparseScan and archiveConditions).
var termGroup = regexp.MustCompile(`term_taxonomy_id IN \(([0-9, ]+)\)`)

// readsOf sorts the statements the server sent into what they read:
// "blog" (the blog's page, the prepared posts statement), "A" and "B" (an
// archive's page, naming that category's term_taxonomy_id), "search page"
// (a kept search's page, its posts by ID), "rematch" (kept searches
// matched on the posts an event names), and "other" (options, terms,
// images).
func readsOf(statements []string, ttA, ttB uint64) map[string]int {
	reads := map[string]int{}
	for _, q := range statements {
		page := strings.HasPrefix(q, "SELECT p.ID, p.post_title,")
		switch groups := termIDs(q); {
		case page && slices.Contains(groups, ttB):
			reads["B"]++
		case page && slices.Contains(groups, ttA):
			reads["A"]++
		case page && strings.Contains(q, "WHERE ID IN ("):
			reads["search page"]++
		case page && len(groups) == 0 && strings.Contains(q, "WHERE post_type = ? AND post_status = 'publish' ORDER BY"):
			reads["blog"]++
		case page:
			reads["other page"]++
		case strings.Contains(q, " LIKE "):
			reads["rematch"]++
		default:
			reads["other"]++
		}
	}
	return reads
}

// termIDs are the term_taxonomy_ids q filters on.
func termIDs(q string) (ids []uint64) {
	for _, m := range termGroup.FindAllStringSubmatch(q, -1) {
		for _, s := range strings.Split(m[1], ",") {
			if id, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64); err == nil {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// TestPushRefreshesOnly: with the real plugin on Debian's WordPress, the
// blog's, category A's and B's listings and a kept search are read and
// kept (bound 5 minutes: no head is refreshed ahead while the scheduled
// post waits its minute); each change is then made by WordPress's own
// function, and the server's statements afterwards (the proxy's count)
// sorted by the listing they read. A change to a post of A (publish,
// update, a tag, its featured image, its image's alt text, trash,
// untrash, a scheduled post published by WP-Cron) reads the blog's head
// and A's again, never B's; the blog's name and the language name no
// listing and read every one, once. The alt shows within a second.
func TestPushRefreshesOnly(t *testing.T) {
	wp, rds, channel := pushedWordPress(t)
	wp.WriteLanguageFile(t, "de_DE.mo", wpdbtest.MO(t, "de_DE", ""))
	cfg, proxy := wpdbtest.ThroughProxy(t, wp.Config)
	c, setup := startChanger(t, wp)
	// Started once the categories exist, so that it knows them.
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg), "LOADMORE_TABLE_PREFIX": "wp_",
		"LOADMORE_REDIS": rds.URL, "LOADMORE_SESSION_PREFIX": rds.Prefix, "LOADMORE_PUSH_CHANNEL": channel,
		"LOADMORE_CACHE_TTL": "5m", "LOADMORE_SEARCH_TTL": "5m", "LOADMORE_WP_LANGUAGES": wp.LanguagesDir(),
		"LOADMORE_METRICS_ADDR": "127.0.0.1:0"})
	waitReady(t, srv, `"push":"pushed"`)
	metrics := metricsURL(t, srv)
	events := func() float64 {
		return scrape(t, metrics)["wploadmore_push_events_total"].GetMetric()[0].GetCounter().GetValue()
	}
	listings := []string{jsonPath(0, 3), fmt.Sprintf("%s&cat=%d", jsonPath(0, 3), setup.CatA),
		fmt.Sprintf("%s&cat=%d", jsonPath(0, 3), setup.CatB), jsonPath(0, 3) + "&s=post"}
	readAll := func() {
		for _, path := range listings {
			srv.get(t, path).posts(t)
		}
	}

	const (
		scoped = iota // a post of A: the blog and A, never B
		all           // no listing named: each listing once
	)
	// Scheduled a minute ahead (WordPress publishes at once what is due
	// sooner), published by its cron event once due, as the last step.
	scheduled, at := c.do(map[string]any{"op": "schedule", "title": "A scheduled post", "term": setup.CatA})
	if scheduled.Status != "future" {
		t.Fatalf("the scheduled post is %q, want future", scheduled.Status)
	}
	var id uint64
	steps := []struct {
		kind  string
		op    map[string]any
		scope int
	}{
		{"publish", map[string]any{"op": "publish", "title": "A new post", "term": setup.CatA}, scoped},
		{"update", map[string]any{"op": "update", "title": "A post retitled"}, scoped},
		{"terms", map[string]any{"op": "tag", "title": "fresh"}, scoped},
		{"image", map[string]any{"op": "image", "image": "a"}, scoped},
		{"alt", map[string]any{"op": "alt", "image": "a", "title": "A new alt"}, scoped},
		{"trash", map[string]any{"op": "trash"}, scoped},
		{"untrash", map[string]any{"op": "untrash"}, scoped},
		{"blogname", map[string]any{"op": "blogname", "title": "Renamed"}, all},
		{"language", map[string]any{"op": "language", "title": "de_DE"}, all},
		{"schedule", map[string]any{"op": "cron", "id": scheduled.ID}, scoped},
	}
	for _, step := range steps {
		if step.kind == "schedule" {
			time.Sleep(time.Until(at.Add(63 * time.Second)))
		}
		readAll() // kept
		time.Sleep(freshGap)
		quiet := len(proxy.Statements())
		readAll()
		// Kept: read again, no listing costs a statement (the options'
		// timer may).
		if reads := readsOf(proxy.Statements()[quiet:], setup.TTA, setup.TTB); len(reads) > reads["other"] {
			t.Fatalf("before the %s, kept listings read again: %v", step.kind, reads)
		}
		before, from, seen := proxy.Queries(), len(proxy.Statements()), events()
		if _, ok := step.op["id"]; !ok {
			step.op["id"] = id
		}
		got, returned := c.do(step.op)
		if step.kind == "schedule" && (!got.Ran || got.Status != "publish") {
			t.Fatalf("the scheduled post's cron event: ran %v, status %q", got.Ran, got.Status)
		}
		if step.kind == "publish" {
			id = got.ID
		}
		if step.kind == "alt" {
			altShown(t, srv, step.op["title"].(string), returned)
		}
		for end := time.Now().Add(5 * time.Second); events() == seen; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("%s: no event within 5 s", step.kind)
			}
		}
		time.Sleep(50 * time.Millisecond) // the refresh's pass and its reads of options or terms
		readAll()
		readAll()
		statements := proxy.Statements()[from:]
		reads := readsOf(statements, setup.TTA, setup.TTB)
		t.Logf("%-8s %2d statements: %v", step.kind, proxy.Queries()-before, reads)
		switch {
		case reads["blog"] == 0 || reads["A"] == 0:
			t.Errorf("%s: the blog's head read %d times, A's %d: want each again", step.kind, reads["blog"], reads["A"])
		case step.scope == scoped && reads["B"] != 0:
			t.Errorf("%s of a post in A: B's head read %d times, want never", step.kind, reads["B"])
		case step.scope == all && reads["B"] == 0:
			t.Errorf("%s: B's head not read again: the change names no listing", step.kind)
		}
		if reads["blog"] > 1 || reads["A"] > 1 || reads["B"] > 1 || reads["search page"] > 1 || reads["rematch"] > 1 ||
			reads["other page"] > 0 {
			t.Errorf("%s: reads %v, want each listing's head read at most once, and no other listing", step.kind, reads)
		}
		if t.Failed() {
			t.Logf("%s: statements:\n%s", step.kind, strings.Join(statements, "\n"))
		}
	}
}

// altShown waits until the blog's JSON shows alt as its first post's
// image's alt, and fails unless it did within a second of returned: the
// bound is five minutes, so only the event explains it.
func altShown(t *testing.T, srv *testServer, alt string, returned time.Time) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		ps := srv.get(t, jsonPath(0, 3)).posts(t)
		if len(ps) > 0 && ps[0].Image != nil && ps[0].Image.Alt == alt {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("alt %q not in the blog's JSON within 5 s: %+v", alt, ps)
		}
	}
	took := time.Since(returned)
	t.Logf("alt text shown in the blog's JSON %.1f ms after update_post_meta returned", ms(took))
	if took >= time.Second {
		t.Errorf("alt text shown after %v, want within a second", took)
	}
}
