package wpdb_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// TestOutage takes the database away under an open Store: Posts must fail
// (with the deadline, when the database hangs) rather than block, and work
// again once the database is back, with no reopening.
func TestOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits for the database to come back")
	}
	cfg := wpdbtest.MySQL(t)
	wpdbtest.Insert(t, cfg, wpsite.Post{ID: 1, Title: "one"}, wpsite.Post{ID: 2, Title: "two"})
	cfg, p := wpdbtest.ThroughProxy(t, cfg)
	// Long enough for a loaded machine to reconnect within it, short
	// enough for the hung case not to drag.
	cfg.QueryTimeout = 2 * time.Second
	var logged testkit.SyncBuffer
	ctx := context.Background()
	s, err := wpdb.Open(ctx, cfg, slog.New(slog.NewTextHandler(&logged, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })

	works := func(t *testing.T) {
		t.Helper()
		posts, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 10})
		if err != nil {
			t.Fatalf("Posts with the database up: %v", err)
		}
		if len(posts) != 2 {
			t.Fatalf("Posts returned %d posts, want 2", len(posts))
		}
	}
	works(t)

	t.Run("refused", func(t *testing.T) {
		p.Refuse()
		_, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 10})
		if !errors.Is(err, wpdb.ErrUnavailable) {
			t.Fatalf("Posts error = %v with the port closed, want wpdb.ErrUnavailable", err)
		}
		t.Logf("refused: %v", err)
		if err := s.Ping(ctx); !errors.Is(err, wpdb.ErrUnavailable) {
			t.Errorf("Ping error = %v with the port closed, want wpdb.ErrUnavailable", err)
		}
		p.Restore()
		works(t)
	})

	t.Run("hung", func(t *testing.T) {
		p.Hang()
		_, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 10})
		t.Logf("hung: %v", err)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Posts error = %v, want the query timeout", err)
		}
		if !errors.Is(err, wpdb.ErrUnavailable) {
			t.Errorf("Posts error = %v, want wpdb.ErrUnavailable", err)
		}
		p.Restore()
		works(t)
	})

	t.Run("restart", func(t *testing.T) {
		p.DropAll() // idle pooled connections die under the store
		works(t)
	})

	// A connection the driver found alive but that dies under the
	// statement, as after a restart that raced its liveness check: one
	// more run, on a new connection, answers.
	t.Run("cut under a statement", func(t *testing.T) {
		p.CutStatements(1)
		works(t)
	})

	// A database that cuts every statement is down: Posts gives up after
	// that one more run rather than trying on.
	t.Run("cut under every statement", func(t *testing.T) {
		before := p.Queries()
		p.CutStatements(1 << 30)
		defer p.CutStatements(0)
		_, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 10})
		if !errors.Is(err, wpdb.ErrUnavailable) {
			t.Fatalf("Posts error = %v, want wpdb.ErrUnavailable", err)
		}
		if got := p.Queries() - before; got != 2 {
			t.Errorf("Posts sent %d statements to a database that cuts each, want 2: the run and one more", got)
		}
	})

	// The driver's complaints about dead connections reach the injected
	// logger, not stderr.
	if got := logged.String(); !strings.Contains(got, "mysql driver: ") {
		t.Errorf("driver messages not logged; log:\n%s", got)
	}
}

// TestQueryTimeoutCapsContext checks that a longer ctx deadline does not
// lift the store's own query timeout.
func TestQueryTimeoutCapsContext(t *testing.T) {
	cfg := wpdbtest.MySQL(t)
	cfg, p := wpdbtest.ThroughProxy(t, cfg)
	cfg.QueryTimeout = 200 * time.Millisecond
	s := open(t, cfg)
	p.Hang()
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	_, err := s.Posts(ctx, blog.Page{Offset: 0, Limit: 1})
	if err == nil {
		t.Fatal("Posts succeeded against a hung database")
	}
	if ctx.Err() != nil {
		t.Fatal("the caller's context expired; the store's timeout did not apply")
	}
}
