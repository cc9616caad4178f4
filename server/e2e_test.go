package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// testServer is the real server, started by run as main starts it.
type testServer struct {
	URL    string // http://127.0.0.1:port, without the base path
	Logs   *testkit.SyncBuffer
	stop   context.CancelFunc
	done   chan error
	client *http.Client
}

var listeningLine = regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)

// startServer runs the server on a free loopback port with env as its
// environment (LOADMORE_ADDR, LOADMORE_DATA_DIR and LOADMORE_LOG_FORMAT get
// test defaults) and waits until /healthz answers. It stops the server when
// the test ends and fails the test if run returned an error.
func startServer(t testing.TB, env map[string]string, args ...string) *testServer {
	t.Helper()
	full := map[string]string{
		"LOADMORE_ADDR":       "127.0.0.1:0",
		"LOADMORE_DATA_DIR":   t.TempDir(),
		"LOADMORE_LOG_FORMAT": "json",
	}
	for k, v := range env {
		full[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &testServer{Logs: &testkit.SyncBuffer{}, stop: cancel, done: make(chan error, 1)}
	go func() {
		s.done <- run(ctx, append([]string{"wploadmore"}, args...), envFunc(full), s.Logs)
	}()

	deadline := time.Now().Add(30 * time.Second)
	for s.URL == "" {
		if m := listeningLine.FindStringSubmatch(s.Logs.String()); m != nil {
			s.URL = "http://" + m[1]
			break
		}
		select {
		case err := <-s.done:
			cancel()
			t.Fatalf("server did not start: %v\n%s", err, s.Logs)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("server did not log its address in 30s:\n%s", s.Logs)
		}
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	s.client = &http.Client{Jar: jar, Timeout: 30 * time.Second}
	for {
		resp, err := http.Get(s.URL + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("healthz did not answer: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("run: %v\n%s", err, s.Logs)
		}
	})
	return s
}

// Stop cancels run, as SIGTERM does, and returns what run returned. It can
// be called more than once.
func (s *testServer) Stop() error {
	s.stop()
	select {
	case err, ok := <-s.done:
		if ok {
			close(s.done)
		}
		return err
	case <-time.After(30 * time.Second):
		return errors.New("run did not return 30s after cancel")
	}
}

// response is what a test looks at of an answer.
type response struct {
	Status int
	Header http.Header
	Body   string
}

// get fetches path with the server's cookie jar, as one browser would.
func (s *testServer) get(t testing.TB, path string) response {
	t.Helper()
	return s.do(t, http.MethodGet, path)
}

func (s *testServer) do(t testing.TB, method, path string) response {
	t.Helper()
	return fetch(t, s.client, method, s.URL+path)
}

// fetch asks url with client, whose cookie jar may be a visitor's that
// goes from server to server.
func fetch(t testing.TB, client *http.Client, method, url string) response {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return response{Status: resp.StatusCode, Header: resp.Header, Body: string(body)}
}

// posts decodes a JSON answer, failing the test unless it is a 200 array.
func (r response) posts(t testing.TB) []listing.Post {
	t.Helper()
	if r.Status != http.StatusOK {
		t.Fatalf("status %d, want 200; body %s", r.Status, r.Body)
	}
	var posts []listing.Post
	if err := json.Unmarshal([]byte(r.Body), &posts); err != nil {
		t.Fatalf("body is not a JSON array of posts: %v\n%s", err, r.Body)
	}
	return posts
}

// dbURL turns a test database's Config into the -db URL an operator types.
func dbURL(t testing.TB, cfg wpdb.Config) string { return wpdbtest.URL(t, cfg) }

func postIDs(posts []listing.Post) []uint64 {
	ids := make([]uint64, len(posts))
	for i, p := range posts {
		ids[i] = p.ID
	}
	return ids
}

func jsonPath(start, desired int) string {
	return fmt.Sprintf("/load-more.php?start=%d&desiredPosts=%d", start, desired)
}

// badgeValue reads the posts_start badge off the page.
func badgeValue(t testing.TB, page string) string {
	t.Helper()
	m := regexp.MustCompile(`id="posts-start"[^>]*>\s*([^<\s]*)\s*<`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no badge in the page:\n%s", page)
	}
	return m[1]
}

func countArticles(page string) int {
	return strings.Count(page, "<article")
}
