package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// shopRegistry is a shop's registry, with WooCommerce's rules as the
// plugin writes them when the shop hides out-of-stock items.
const shopRegistry = `{"schema":1,"post_types":{
 "post":{"public":true,"publicly_queryable":true,"exclude_from_search":false},
 "product":{"public":true,"publicly_queryable":true,"exclude_from_search":false,"has_archive":true,"archive_slug":"shop","query_var":"product"}},
 "taxonomies":{
 "product_cat":{"public":true,"publicly_queryable":true,"hierarchical":true,"query_var":"product_cat","object_types":["product"]},
 "product_visibility":{"public":false,"publicly_queryable":false,"query_var":false,"object_types":["product"]}},
 "public_query_vars":[],
 "hidden_terms":[
  {"taxonomy":"product_visibility","term_taxonomy_id":7,"slug":"exclude-from-catalog","post_types":["product"],"contexts":["listing"]},
  {"taxonomy":"product_visibility","term_taxonomy_id":8,"slug":"exclude-from-search","post_types":["product"],"contexts":["search"]},
  {"taxonomy":"product_visibility","term_taxonomy_id":9,"slug":"outofstock","post_types":["product"],"contexts":["listing","search"]}]}`

// TestHiddenTerms lists a shop whose products are hidden from the
// catalogue, from search or out of stock (two of each, one of them also
// in the category shoes), and posts filed under a visibility term, which
// the rules, for products only, leave alone: the shop and its category
// leave out the catalogue-hidden and out-of-stock products, a search the
// search-hidden and out-of-stock ones, on every page of the Link walk. A
// contact form's type, which the registry does not list, is never listed,
// and named once in the log at start. A blog of posts and products leaves
// out the catalogue-hidden and out-of-stock products too.
func TestHiddenTerms(t *testing.T) {
	t.Parallel()
	cfg := wpdbtest.New(t, wpdb.DriverMySQL, "wp_")
	// visibility[i]: the product_visibility term of product i, 0 for none.
	visibility := []uint64{0, 7, 8, 9, 0, 7, 8, 9, 0, 0}
	var rows []wpsite.Post
	for i := range visibility {
		rows = append(rows, wpsite.Post{Type: "product", Title: fmt.Sprintf("Product %d", i), Name: fmt.Sprintf("product-%d", i),
			Content: "<p>common</p>", Date: fmt.Sprintf("2024-03-%02d 10:00:00", i+1)})
	}
	rows = append(rows, wpsite.Post{Title: "Post", Name: "post", Content: "<p>common</p>", Date: "2024-04-01 10:00:00"},
		wpsite.Post{Type: "wpcf7_contact_form", Title: "Form", Name: "form", Content: "<p>common</p>", Date: "2024-04-02 10:00:00"})
	ids := wpdbtest.Insert(t, cfg, rows...)
	products, post := ids[:len(visibility)], ids[len(visibility)]
	var rels []wpsite.TermRelationship
	var shop, shoes, search []uint64
	for i, id := range products {
		if visibility[i] != 0 {
			rels = append(rels, wpsite.TermRelationship{ObjectID: id, TermTaxonomyID: visibility[i]})
		}
		if i%2 == 1 {
			rels = append(rels, wpsite.TermRelationship{ObjectID: id, TermTaxonomyID: 20})
		}
		if visibility[i] != 7 && visibility[i] != 9 {
			shop = append([]uint64{id}, shop...)
			if i%2 == 1 {
				shoes = append([]uint64{id}, shoes...)
			}
		}
		if visibility[i] != 8 && visibility[i] != 9 {
			search = append(search, id)
		}
	}
	rels = append(rels, wpsite.TermRelationship{ObjectID: post, TermTaxonomyID: 7})
	search = append(search, post)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := wpsite.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.InsertTerms(ctx, []wpsite.Term{
		{ID: 7, Name: "exclude-from-catalog", Slug: "exclude-from-catalog", Taxonomy: "product_visibility", Count: 2},
		{ID: 8, Name: "exclude-from-search", Slug: "exclude-from-search", Taxonomy: "product_visibility", Count: 2},
		{ID: 9, Name: "outofstock", Slug: "outofstock", Taxonomy: "product_visibility", Count: 2},
		{ID: 20, Name: "Shoes", Slug: "shoes", Taxonomy: "product_cat", Count: 5},
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.InsertTermRelationships(ctx, rels); err != nil {
		t.Fatal(err)
	}
	if err := w.InsertOptions(ctx, map[string]string{blog.RegistryOption: shopRegistry}); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)}, "-cache-ttl", "0")
	// A type the registry does not list is named at start, once.
	if n := strings.Count(srv.Logs.String(), `"post_types":["wpcf7_contact_form"]`); n != 1 {
		t.Errorf("%d log lines name the type the registry lacks, want 1:\n%s", n, srv.Logs.String())
	}
	// A blog that lists products too leaves the hidden ones out.
	blogSrv := startServer(t, map[string]string{"LOADMORE_DB": dbURL(t, cfg)}, "-cache-ttl", "0", "-post-types", "post,product")
	for _, k := range []int{2, 50} {
		var got []uint64
		for start := 0; start < 12; start += k {
			got = append(got, postIDs(blogSrv.get(t, fmt.Sprintf("/load-more.php?start=%d&desiredPosts=%d", start, k)).posts(t))...)
		}
		if want := append([]uint64{post}, shop...); !slices.Equal(got, want) {
			t.Errorf("the blog of posts and products by %d: %v, want %v", k, got, want)
		}
	}
	for _, tc := range []struct {
		query string
		want  []uint64
		set   bool // compare as sets: a search's order is relevance's
	}{
		{"post_type=product", shop, false},
		{"product_cat=shoes", shoes, false},
		{"product_cat=shoes&post_type=product", shoes, false},
		{"s=common", search, true},
		{"s=common&post_type=product", search[:len(search)-1], true},
	} {
		for _, k := range []int{1, 3} {
			got, _ := walk(t, srv, fmt.Sprintf("/load-more.php?start=0&desiredPosts=%d&%s", k, tc.query))
			want := slices.Clone(tc.want)
			if tc.set {
				slices.Sort(got)
				slices.Sort(want)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s by %d: lists %v, want %v", tc.query, k, got, want)
			}
		}
	}
}
