package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// TestArchiveAnswersGiveBackRoom: an archive's JSON answer gives back the
// -unsent-bytes room it took once written. Forty answers of about 50 KB in
// a row, nearly twice the room of 1 MiB in all, each find room.
func TestArchiveAnswersGiveBackRoom(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.New(t, wpdb.DriverMySQL, "wp_")
	rows := make([]wpsite.Post, 10)
	for i := range rows {
		// The excerpt is cut to 200 characters; a title is not.
		rows[i] = wpsite.Post{Title: fmt.Sprintf("Post %d ", i) + strings.Repeat("title ", 400), Name: fmt.Sprintf("post-%d", i),
			Content: "<p>Words.</p>",
			Date:    time.Date(2024, 3, 1+i, 10, 0, 0, 0, time.UTC).Format(time.DateTime)}
	}
	wpdbtest.Insert(t, cfg, rows...)
	const room = 1 << 20
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)}, "-unsent-bytes", fmt.Sprint(room))

	const path = "/load-more.php?start=0&desiredPosts=10&year=2024"
	sent := 0
	for i := range 40 {
		// Plain, as a client that asks for no coding: compressed, these
		// answers would keep only a few KB of room each.
		req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept-Encoding", "identity")
		resp, err := srv.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("answer %d, after %d KB sent: %d %s", i+1, sent>>10, resp.StatusCode, body)
		}
		if n := len((response{Status: resp.StatusCode, Body: string(body)}).posts(t)); n != 10 {
			t.Fatalf("answer %d lists %d posts, want 10", i+1, n)
		}
		if coding := resp.Header.Get("Content-Encoding"); coding != "" || len(body) < 48<<10 {
			t.Fatalf("answer %d is %d bytes in %q, want about 50 KB plain", i+1, len(body), coding)
		}
		sent += len(body)
	}
	if sent < room*3/2 {
		t.Errorf("%d KB sent in all, want well over the room of %d KB", sent>>10, room>>10)
	}
}
