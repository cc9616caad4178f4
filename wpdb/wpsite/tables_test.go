package wpsite_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// TestWriterSiteTables writes each of the other tables through its Writer
// method, twice where a rerun must skip or update, and reads the rows back
// with plain SQL on both drivers.
func TestWriterSiteTables(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// More rows than one statement takes, and values too large for one
	// statement's bytes.
	var meta []wpsite.PostMeta
	for i := range 1203 {
		meta = append(meta, wpsite.PostMeta{ID: uint64(i + 1), PostID: uint64(i/3 + 1), Key: "_k" + fmt.Sprint(i%3), Value: fmt.Sprint(i)})
	}
	// Nine values of 2 MB pass MariaDB's default max_allowed_packet (16 MB)
	// only when split into statements of 4 MB.
	big := strings.Repeat("x", 2<<20)
	for i := range 9 {
		meta = append(meta, wpsite.PostMeta{ID: uint64(2000 + i), PostID: 9999, Key: "_big", Value: big})
	}
	terms := []wpsite.Term{
		{ID: 1, Name: "Uncategorized", Slug: "uncategorized", Taxonomy: "category", Count: 3},
		{ID: 2, Name: "Food &amp; Drink", Slug: "food-drink", Taxonomy: "category", Description: "Eat.", Count: 1},
		{ID: 3, Name: "日本", Slug: "%e6%97%a5%e6%9c%ac", Taxonomy: "category", Parent: 2},
		{ID: 4, TaxonomyID: 40, Name: "summer", Slug: "summer", Taxonomy: "post_tag", Count: 7},
	}
	users := []wpsite.User{
		{ID: 1, Login: "admin", Nicename: "admin", Email: "admin@example.com", Registered: "2015-01-01 08:00:00", DisplayName: "Admin"},
		{ID: 7, Login: "zoe", Nicename: "zoe-obrien", DisplayName: "Zoë O'Brien"},
	}
	for _, driver := range wpdbtest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			cfg := wpdbtest.New(t, driver, "site_")
			s, err := wpsite.Open(ctx, cfg)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer s.Close()
			db := wpdbtest.OpenDB(t, cfg)

			// A rerun overlapping the first run writes nothing twice, and
			// counts take the later value.
			if err := s.InsertPostMeta(ctx, meta[:700]); err != nil {
				t.Fatalf("InsertPostMeta: %v", err)
			}
			if err := s.InsertPostMeta(ctx, meta[600:]); err != nil {
				t.Fatalf("InsertPostMeta again: %v", err)
			}
			if err := s.InsertPostMeta(ctx, []wpsite.PostMeta{{PostID: 5, Key: "_numbered", Value: "x"}}); err != nil {
				t.Fatalf("InsertPostMeta without ID: %v", err)
			}
			if err := s.InsertTerms(ctx, terms[:3]); err != nil {
				t.Fatalf("InsertTerms: %v", err)
			}
			recount := append([]wpsite.Term(nil), terms...)
			recount[0].Count, recount[0].Name = 5, "Renamed"
			if err := s.InsertTerms(ctx, recount); err != nil {
				t.Fatalf("InsertTerms again: %v", err)
			}
			rel := []wpsite.TermRelationship{{ObjectID: 1, TermTaxonomyID: 1}, {ObjectID: 1, TermTaxonomyID: 40}, {ObjectID: 2, TermTaxonomyID: 1}}
			for range 2 {
				if err := s.InsertTermRelationships(ctx, rel); err != nil {
					t.Fatalf("InsertTermRelationships: %v", err)
				}
				if err := s.InsertUsers(ctx, users); err != nil {
					t.Fatalf("InsertUsers: %v", err)
				}
			}
			if err := s.InsertOptions(ctx, map[string]string{"blogname": "First", "home": "https://example.com"}); err != nil {
				t.Fatalf("InsertOptions: %v", err)
			}
			if err := s.InsertOptions(ctx, map[string]string{"blogname": "Second", "date_format": "F j, Y"}); err != nil {
				t.Fatalf("InsertOptions again: %v", err)
			}

			tests := []struct {
				name, query string
				want        []string
			}{
				{"postmeta", "SELECT COUNT(*), COUNT(DISTINCT meta_id), SUM(LENGTH(meta_value)) FROM site_postmeta",
					[]string{fmt.Sprintf("1213 1213 %d", metaBytes(meta)+1)}},
				{"numbered meta", "SELECT post_id, meta_key FROM site_postmeta WHERE meta_id > 2008", []string{"5 _numbered"}},
				{"meta of a post", "SELECT meta_key, meta_value FROM site_postmeta WHERE post_id = 2 ORDER BY meta_id", []string{"_k0 3", "_k1 4", "_k2 5"}},
				{"terms", "SELECT t.term_id, t.name, t.slug, t.term_group, tt.term_taxonomy_id, tt.taxonomy, tt.description, tt.parent, tt.count" +
					" FROM site_terms t JOIN site_term_taxonomy tt ON tt.term_id = t.term_id ORDER BY t.term_id", []string{
					"1 Uncategorized uncategorized 0 1 category  0 5",
					"2 Food &amp; Drink food-drink 0 2 category Eat. 0 1",
					"3 日本 %e6%97%a5%e6%9c%ac 0 3 category  2 0",
					"4 summer summer 0 40 post_tag  0 7",
				}},
				{"relationships", "SELECT object_id, term_taxonomy_id, term_order FROM site_term_relationships ORDER BY object_id, term_taxonomy_id",
					[]string{"1 1 0", "1 40 0", "2 1 0"}},
				{"users", "SELECT ID, user_login, user_nicename, user_email, user_registered, user_pass, user_status, display_name FROM site_users ORDER BY ID",
					[]string{"1 admin admin admin@example.com 2015-01-01 08:00:00  0 Admin", "7 zoe zoe-obrien  0000-00-00 00:00:00  0 Zoë O'Brien"}},
				{"options", "SELECT option_name, option_value, autoload FROM site_options ORDER BY option_name",
					[]string{"blogname First yes", "date_format F j, Y yes", "home https://example.com yes"}},
			}
			for _, tt := range tests {
				if diff := cmp.Diff(tt.want, wpdbtest.Rows(t, db, tt.query)); diff != "" {
					t.Errorf("%s: %s (-want +got):\n%s", tt.name, tt.query, diff)
				}
			}

			if err := s.Analyze(ctx); err != nil {
				t.Errorf("Analyze: %v", err)
			}
			if _, size, err := s.Size(ctx); err != nil || driver == wpdb.DriverMySQL && size < 18<<20 {
				t.Errorf("Size = %d bytes, %v; want the 18 MB of meta and more, counted once analyzed", size, err)
			}

			got, err := s.Options(ctx, "blogname", "home", "missing")
			if diff := cmp.Diff(map[string]string{"blogname": "First", "home": "https://example.com"}, got); err != nil || diff != "" {
				t.Errorf("Options: %v (-want +got):\n%s", err, diff)
			}
		})
	}
}

func metaBytes(meta []wpsite.PostMeta) int {
	n := 0
	for _, m := range meta {
		n += len(m.Value)
	}
	return n
}
