package wpdbtest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// registryEntry is the part of a registry entry these tests look at.
type registryEntry struct {
	Public            bool              `json:"public"`
	PubliclyQueryable bool              `json:"publicly_queryable"`
	ExcludeFromSearch bool              `json:"exclude_from_search"`
	ArchiveSlug       string            `json:"archive_slug"`
	Permastruct       string            `json:"permastruct"`
	ObjectTypes       []string          `json:"object_types"`
	Labels            map[string]string `json:"labels"`
}

// readRegistry asks WordPress for the wploadmore_registry option and
// decodes it.
func readRegistry(t *testing.T, wp *wpdbtest.WordPress) (reg struct {
	Schema      int                      `json:"schema"`
	PostTypes   map[string]registryEntry `json:"post_types"`
	Taxonomies  map[string]registryEntry `json:"taxonomies"`
	HiddenTerms []struct {
		Slug     string   `json:"slug"`
		Contexts []string `json:"contexts"`
	} `json:"hidden_terms"`
}) {
	t.Helper()
	out := wp.PHP(t, `echo get_option('wploadmore_registry');`)
	if err := json.Unmarshal(out, &reg); err != nil {
		t.Fatalf("wploadmore_registry is not JSON: %v\n%.500s", err, out)
	}
	return reg
}

// TestInstallPlugin installs wploadmore, the test types and the WooCommerce
// stand-in as plugins and reads back the registry the plugin wrote: the
// types the test plugins register on init are in it, with the site's
// permastructs, and WooCommerce's hidden terms.
func TestInstallPlugin(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	wp.PHP(t, `update_option('permalink_structure', '/%postname%/');`)
	wp.InstallPlugin(t, "../../wordpress-plugin/wploadmore")
	wp.InstallPlugin(t, "../../testdata/wordpress/plugins/wploadmore-test-types.php")
	wp.InstallPlugin(t, "../../testdata/wordpress/plugins/wploadmore-test-woocommerce.php")
	reg := readRegistry(t, wp)
	if reg.Schema != 1 {
		t.Errorf("schema = %d, want 1", reg.Schema)
	}
	want := registryEntry{Public: true, PubliclyQueryable: true, ArchiveSlug: "books", Permastruct: "/books/%book%",
		Labels: map[string]string{"name": "Books", "singular_name": "Book", "archives": "Book Archives"}}
	if diff := cmp.Diff(want, reg.PostTypes["book"]); diff != "" {
		t.Errorf("book (-want +got):\n%s", diff)
	}
	if got := reg.Taxonomies["genre"].ObjectTypes; !cmp.Equal(got, []string{"book"}) {
		t.Errorf("genre's object types = %q, want [book]", got)
	}
	var hidden []string
	for _, h := range reg.HiddenTerms {
		hidden = append(hidden, h.Slug+":"+strings.Join(h.Contexts, "+"))
	}
	if want := []string{"exclude-from-catalog:listing", "exclude-from-search:search"}; !cmp.Equal(hidden, want) {
		t.Errorf("hidden terms = %q, want %q", hidden, want)
	}
}

// TestInstallMUPlugin loads wploadmore from mu-plugins through its
// one-line loader, where no activation hook runs: the first load writes
// the registry.
func TestInstallMUPlugin(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	wp.InstallMUPlugin(t, "../../wordpress-plugin/wploadmore")
	wp.InstallMUPlugin(t, "../../testdata/wordpress/plugins/wploadmore-test-types.php")
	reg := readRegistry(t, wp)
	if got := reg.PostTypes["internal_doc"]; got.Public || got.PubliclyQueryable || got.ExcludeFromSearch {
		t.Errorf("internal_doc = %+v, want not public, not queryable, searched", got)
	}
	if got := reg.PostTypes["post"].Permastruct; got != "" {
		t.Errorf("post's permastruct with plain permalinks = %q, want none", got)
	}
}
