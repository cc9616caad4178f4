package redisprefix_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/wploadmore/wploadmore/internal/redisprefix"
	"github.com/wploadmore/wploadmore/session/sessiontest"
)

// TestDelete removes more keys than one SCAN batch holds, and only those
// under the prefix: a key whose name merely starts like it stays.
func TestDelete(t *testing.T) {
	ctx, r := context.Background(), sessiontest.New(t)
	const n = 2500
	outside := r.Prefix[:len(r.Prefix)-1] + "-outside"
	args := []any{outside, "v"}
	for i := range n {
		args = append(args, fmt.Sprintf("%sk%d", r.Prefix, i), "v")
	}
	if _, err := r.Do("MSET", args...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Do("DEL", outside) })

	seen := 0
	if err := redisprefix.Scan(ctx, r.URL, r.Prefix, func(_ redis.Conn, keys []any) error {
		seen += len(keys)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if seen != n {
		t.Errorf("Scan saw %d keys, want %d", seen, n)
	}
	if err := redisprefix.Delete(ctx, r.URL, r.Prefix); err != nil {
		t.Fatal(err)
	}
	if left := r.Keys(); len(left) != 0 {
		t.Errorf("%d keys left under %s: %.5q", len(left), r.Prefix, left)
	}
	if exists, err := redis.Int(r.Do("EXISTS", outside)); err != nil || exists != 1 {
		t.Errorf("EXISTS %s, outside the prefix: %d, %v; want 1", outside, exists, err)
	}
}
