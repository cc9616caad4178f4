package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestArchiveAnswersGiveBackRoom: an archive's JSON answer gives back the
// -unsent-bytes room it took once written. Forty answers of about 50 KB in
// a row, nearly twice the room of 1 MiB in all, each find room.
func TestArchiveAnswersGiveBackRoom(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.New(t, wpdb.DriverMySQL, "wp_")
	rows := make([]wpdb.SeedRow, 10)
	for i := range rows {
		// The excerpt is cut to 200 characters; a title is not.
		rows[i] = wpdb.SeedRow{Title: fmt.Sprintf("Post %d ", i) + strings.Repeat("title ", 400), Name: fmt.Sprintf("post-%d", i),
			Content: "<p>Words.</p>",
			Date:    time.Date(2024, 3, 1+i, 10, 0, 0, 0, time.UTC).Format(time.DateTime)}
	}
	wpdbtest.Insert(t, cfg, rows...)
	const room = 1 << 20
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)}, "-unsent-bytes", fmt.Sprint(room))

	const path = "/load-more.php?start=0&desiredPosts=10&year=2024"
	sent := 0
	for i := range 40 {
		resp := srv.get(t, path)
		if resp.Status != http.StatusOK {
			t.Fatalf("answer %d, after %d KB sent: %d %s", i+1, sent>>10, resp.Status, resp.Body)
		}
		if n := len(resp.posts(t)); n != 10 {
			t.Fatalf("answer %d lists %d posts, want 10", i+1, n)
		}
		if len(resp.Body) < 48<<10 {
			t.Fatalf("answer %d is %d bytes, want about 50 KB", i+1, len(resp.Body))
		}
		sent += len(resp.Body)
	}
	if sent < room*3/2 {
		t.Errorf("%d KB sent in all, want well over the room of %d KB", sent>>10, room>>10)
	}
}
