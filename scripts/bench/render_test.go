package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/internal/wpserve"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestRenderSite: the render rows' site, behind php-fpm and nginx,
// renders the seeded kind of category archives in both themes, with the
// theme's own pagination or, the variant switched, with the plugin's
// listing of ten cards in its place; render fails an answer of the other
// way; and the plugin's registry options, written by its first request,
// are removed after.
func TestRenderSite(t *testing.T) {
	wpdbtest.NeedWordPress(t)
	for pkg, names := range map[string][]string{"php-fpm": {"php-fpm", "php-fpm8.2"}, "nginx": {"nginx"}} {
		if _, err := wpserve.FindTool(names...); err != nil {
			testkit.MissingPackage(t, pkg, err.Error())
		}
	}
	for _, theme := range renderThemes {
		testkit.NeedPackage(t, "wordpress-theme-"+theme, wpserve.WordPressRoot+"wp-content/themes/"+theme+"/style.css")
	}
	if testing.Short() {
		t.Skip("-short: runs WordPress behind php-fpm and nginx")
	}
	t.Parallel()
	ctx, cfg := context.Background(), wpdbtest.MySQL(t)
	insertArchiveSite(t, ctx, cfg, 24) // all in both categories: three pages of ten
	insertOptions(t, ctx, cfg)
	b := &bench{dbCfg: cfg, setup: setupDB{db: wpdbtest.OpenDB(t, cfg), prefix: cfg.TablePrefix}}
	restore, err := keepRegistryOptions(ctx, b.setup)
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.startRenderSite(ctx, t.TempDir(), "../../wordpress-plugin/wploadmore")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.wp.stop(); err != nil {
			t.Error(err)
		}
	})
	for _, l := range renderListings {
		for _, theme := range renderThemes {
			for _, replaced := range []bool{false, true} {
				if err := s.setVariant(theme, replaced); err != nil {
					t.Fatal(err)
				}
				if err := s.render(ctx, http.DefaultClient, l.path, replaced); err != nil {
					t.Errorf("%s: %v", renderName(l.path, theme, replaced), err)
				}
				if err := s.render(ctx, http.DefaultClient, l.path, !replaced); err == nil {
					t.Errorf("%s: render of the other way passed", renderName(l.path, theme, replaced))
				}
			}
		}
	}
	if n := registryCount(t, b.setup); n != 2 {
		t.Errorf("%d registry options after the plugin ran; want 2, or the check finds nothing to remove", n)
	}
	if err := restore(); err != nil {
		t.Fatal(err)
	}
	if n := registryCount(t, b.setup); n != 0 {
		t.Errorf("%d registry options left", n)
	}
}

func registryCount(t *testing.T, setup setupDB) int {
	t.Helper()
	var n int
	err := setup.db.QueryRow("SELECT COUNT(*) FROM `" + setup.prefix + "options` WHERE option_name IN ('" + strings.Join(registryOptions, "','") + "')").Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
