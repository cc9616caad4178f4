package main

import (
	"context"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/internal/wpserve"
	"github.com/wploadmore/wploadmore/wpdb/sitegen"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// TestWordPressREST: WordPress, behind php-fpm and nginx, answers a
// search of the seeded kind of database through its REST API once the
// tables the seed does not write are created, and checkREST fails when
// the page is not as full as it must be.
func TestWordPressREST(t *testing.T) {
	wpdbtest.NeedWordPress(t)
	for pkg, names := range map[string][]string{"php-fpm": {"php-fpm", "php-fpm8.2"}, "nginx": {"nginx"}} {
		if _, err := wpserve.FindTool(names...); err != nil {
			testkit.MissingPackage(t, pkg, err.Error())
		}
	}
	if testing.Short() {
		t.Skip("-short: runs WordPress behind php-fpm and nginx")
	}
	t.Parallel()
	ctx, cfg := context.Background(), wpdbtest.MySQL(t)
	insertArchiveSite(t, ctx, cfg, 12) // "Post 1" to "Post 12"
	s, err := wpsite.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = s.InsertOptions(ctx, sitegen.Options())
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	wp, err := startWordPress(ctx, t.TempDir(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := wp.stop(); err != nil {
			t.Error(err)
		}
	})
	if err := wp.checkREST(ctx, "/?rest_route=/wp/v2/posts&search=content&page=1", 10); err != nil {
		t.Error(err)
	}
	if err := wp.checkREST(ctx, "/?rest_route=/wp/v2/posts&search=content&page=2", 2); err != nil {
		t.Error(err)
	}
	// Page 3 is past the last: WordPress answers 400, and the check fails.
	if err := wp.checkREST(ctx, "/?rest_route=/wp/v2/posts&search=content&page=3", 10); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("checkREST of page 3 of 2 = %v, want a 400", err)
	}
	// A word in no post: an empty page, not a page of posts.
	if err := wp.checkREST(ctx, "/?rest_route=/wp/v2/posts&search=nowhere", 10); err == nil {
		t.Error("checkREST of a search finding nothing = nil, want an error")
	}
}
