package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/public"
	"github.com/wploadmore/wploadmore/session"
	"github.com/wploadmore/wploadmore/templates"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/sitegen"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// benchHandler is the whole server handler over an SQLite blog of 250
// block-editor posts (2 to 20 KB) and in-memory sessions, with one visitor
// session at postsStart whose id it returns. With cacheTTL > 0 the posts go
// through the cache.
func benchHandler(b *testing.B, cacheTTL time.Duration, postsStart int, args ...string) (http.Handler, string) {
	b.Helper()
	cfg, err := parseConfig(append([]string{"wploadmore"}, args...), nil, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	dbCfg := wpdbtest.SQLite(b)
	rows := make([]wpsite.Post, 250)
	for i := range rows {
		rows[i] = wpsite.Post{
			Title: fmt.Sprintf("Post %d", i), Name: fmt.Sprintf("post-%d", i),
			Date:    fmt.Sprintf("2024-02-%02d 10:00:00", 1+i%28),
			Content: sitegen.Post(uint64(i), 2<<10+i%50*400, i%5 == 0),
		}
	}
	wpdbtest.Insert(b, dbCfg, rows...)
	store, err := wpdb.Open(context.Background(), dbCfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	cfg.CacheTTL = cacheTTL
	sessions, err := session.NewMemory(cfg.sessionConfig(), nil)
	if err != nil {
		b.Fatal(err)
	}
	visitor, err := sessions.Visit(context.Background(), session.Visitor{}, postsStart-cfg.sessionConfig().InitialPostsStart)
	if err != nil {
		b.Fatal(err)
	}
	h, err := newServer(serverDeps{
		Config: cfg, Logger: slog.New(slog.DiscardHandler), Posts: store, Sessions: sessions,
		Templates: templates.FS, Public: public.FS,
	})
	if err != nil {
		b.Fatal(err)
	}
	return h, visitor.ID
}

// BenchmarkLoadMoreJSON is one JSON request through every middleware,
// the query, shaping, the session update and the encoding: allocations of
// the hot path (go test -bench LoadMore -benchmem ./server).
func BenchmarkLoadMoreJSON(b *testing.B) {
	for _, bc := range []struct {
		name string
		ttl  time.Duration
	}{{"sqlite", 0}, {"sqlite+cache", time.Minute}} {
		b.Run(bc.name, func(b *testing.B) {
			h, id := benchHandler(b, bc.ttl, 2)
			serveLoop(b, h, id, "/load-more.php?start=10&desiredPosts=2")
		})
	}
}

// BenchmarkLoadMorePage renders the page for a session at posts_start 2
// and 200, with the cache's defaults.
func BenchmarkLoadMorePage(b *testing.B) {
	for _, postsStart := range []int{2, 200} {
		b.Run(fmt.Sprintf("posts_start=%d", postsStart), func(b *testing.B) {
			h, id := benchHandler(b, time.Second, postsStart)
			serveLoop(b, h, id, "/load-more.php")
		})
	}
}

// BenchmarkLanguage is the warm JSON answer and the page of the same site
// in English and in German (Debian's de_DE.mo): everything a language
// changes is prepared when the options are read, so the two cost the same.
func BenchmarkLanguage(b *testing.B) {
	wpdbtest.NeedGettext(b)
	for _, target := range []string{"/load-more.php?start=0&desiredPosts=2", "/load-more.php"} {
		for _, locale := range []string{"en_US", "de_DE"} {
			b.Run(fmt.Sprintf("%s/%s", target, locale), func(b *testing.B) {
				h, id := benchHandler(b, time.Minute, 2, "-locale", locale, "-wp-languages", wpdbtest.DebianLanguages)
				serveLoop(b, h, id, target)
			})
		}
	}
}

// serveLoop is the benchmark loop: GET target as the visitor id, again and
// again, through the whole handler.
func serveLoop(b *testing.B, h http.Handler, id, target string) {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.AddCookie(&http.Cookie{Name: "PHPSESSID", Value: id})
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
