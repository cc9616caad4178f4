package wpdb_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/sitegen"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// TestDeepKeysetArchivePlan runs a deep lastPost page of an archive whose
// plan differs with the walk (sparse for the offset page's walk, dense for
// the keyset page's few entries, or the other way) and reads the SQL the
// Store sent, through a proxy: it is the keyset page's, planned for its
// limit alone, not the offset page's.
func TestDeepKeysetArchivePlan(t *testing.T) {
	t.Parallel()
	const n, limit = 300, 2
	ctx := context.Background()
	cfg, proxy := wpdbtest.ThroughProxy(t, wpdbtest.MySQL(t))
	seedSite(t, cfg, n)
	store := open(t, cfg)
	terms, err := store.Terms(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	for _, term := range sitegen.Terms(1, n) {
		query := "tag=" + term.Slug
		if term.Taxonomy == "category" {
			query = "category_name=" + term.Slug
		}
		a := wpdbtest.ResolveArchive(t, terms, query)
		all, err := store.Posts(ctx, blog.Page{In: a, Limit: n})
		if err != nil {
			t.Fatal(err)
		}
		deep := len(all) - limit - 1
		if deep < 1 || wpdb.ArchiveSparse(a, limit) == wpdb.ArchiveSparse(a, deep+limit) {
			continue
		}
		tried++
		before := len(proxy.QueryTexts())
		got, err := store.Posts(ctx, blog.Page{In: a, LastPost: all[deep-1].ID, Offset: deep, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(ids(all[deep:deep+limit]), ids(got)); diff != "" {
			t.Errorf("%s after post %d (-want +got):\n%s", query, all[deep-1].ID, diff)
		}
		var sent []string
		for _, q := range proxy.QueryTexts()[before:] {
			if strings.HasPrefix(q, "SELECT p.ID, p.post_title") {
				sent = append(sent, q)
			}
		}
		want := wpdb.ArchiveQueryText(store, a, all[deep-1].ID, deep, limit)
		if len(sent) != 1 || sent[0] != want {
			t.Errorf("%s (sparse at the keyset walk: %v): the page ran\n%q\nwant the keyset page's\n%q",
				query, wpdb.ArchiveSparse(a, limit), sent, want)
		}
		// The plan is the one for the keyset page's walk of limit entries.
		if sparse := wpdb.ArchiveSparse(a, limit); len(sent) == 1 && strings.Contains(sent[0], "SELECT DISTINCT object_id") != sparse {
			t.Errorf("%s: the keyset page ran sparse %v, want %v (the plan of a walk of %d)", query, !sparse, sparse, limit)
		}
		if len(sent) == 1 && strings.Contains(sent[0], " OFFSET "+strconv.Itoa(deep)) {
			t.Errorf("%s: the keyset page ran as the offset page", query)
		}
	}
	if tried == 0 {
		t.Fatal("no archive of the seeded site changes plan with the walk: the test checks nothing")
	}
	t.Logf("%d archives checked", tried)
}
