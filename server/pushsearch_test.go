package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestPushKeptSearch: with the real plugin sending events, a kept search
// (-search-ttl 5 minutes) lists a post wp_insert_post() publishes, then
// drops it once wp_update_post() retitles it and once wp_trash_post()
// trashes it, each far within a second of PHP's return; a kept search
// the post never matched lists what it listed.
func TestPushKeptSearch(t *testing.T) {
	t.Parallel()
	wp, rds, channel := pushedWordPress(t)
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, wp.Config), "LOADMORE_TABLE_PREFIX": "wp_",
		"LOADMORE_REDIS": rds.URL, "LOADMORE_SESSION_PREFIX": rds.Prefix, "LOADMORE_PUSH_CHANNEL": channel,
		"LOADMORE_CACHE_TTL": "20s", "LOADMORE_SEARCH_TTL": "5m"})
	search := func(s string) []uint64 {
		return postIDs(srv.get(t, "/load-more.php?desiredPosts=5&start=0&s="+s).posts(t))
	}
	if got := search("zanzibar"); len(got) != 0 {
		t.Fatalf("zanzibar before the publish: %v", got)
	}
	hello := search("hello") // WordPress's first post, kept too
	php := func(code string) (id uint64, returned time.Time) {
		t.Helper()
		var got struct {
			ID       uint64
			Returned float64
		}
		out := wp.PHP(t, code+` echo json_encode(array('id' => $id, 'returned' => microtime(true)));`)
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("php: %s: %v", out, err)
		}
		return got.ID, time.Unix(0, int64(got.Returned*1e9))
	}
	wait := func(what string, since time.Time, cond func() bool) time.Duration {
		t.Helper()
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
			if cond() {
				return time.Since(since)
			}
		}
		t.Fatalf("%s: not within 5 s", what)
		return 0
	}
	waitReady(t, srv, `"push":"pushed"`)

	id, at := php(`$id = wp_insert_post(array('post_title' => 'Zanzibar spice', 'post_content' => 'x', 'post_status' => 'publish'));`)
	published := wait("published", at, func() bool { return slices.Contains(search("zanzibar"), id) })
	_, at = php(fmt.Sprintf(`$id = wp_update_post(array('ID' => %d, 'post_title' => 'Pemba spice'));`, id))
	retitled := wait("retitled", at, func() bool { return len(search("zanzibar")) == 0 && slices.Contains(search("pemba"), id) })
	_, at = php(fmt.Sprintf(`$id = %d; wp_trash_post($id);`, id))
	trashed := wait("trashed", at, func() bool { return !slices.Contains(search("pemba"), id) })
	t.Logf("kept search shows: publish %v, retitle %v, trash %v (each includes php's own exit)",
		published.Round(time.Millisecond), retitled.Round(time.Millisecond), trashed.Round(time.Millisecond))
	for what, d := range map[string]time.Duration{"publish": published, "retitle": retitled, "trash": trashed} {
		if d >= time.Second {
			t.Errorf("%s → kept search: %v, want far under -search-ttl and within a second", what, d)
		}
	}
	if got := search("hello"); !slices.Equal(got, hello) {
		t.Errorf("hello after the changes: %v, want %v as before", got, hello)
	}
}
