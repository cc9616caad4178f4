package wpdb_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// shopPHP makes a shop that hides out-of-stock items: 30 products, a fifth
// each hidden from the catalogue, from search, or out of stock, half of
// them in the category shoes, all holding "common", three to a date. It
// prints the visibility terms' term_taxonomy_ids.
const shopPHP = `
update_option('woocommerce_hide_out_of_stock_items', 'yes');
$vis = array();
foreach (array('exclude-from-catalog', 'exclude-from-search', 'outofstock') as $s) {
	$vis[$s] = (int) get_term_by('slug', $s, 'product_visibility')->term_taxonomy_id;
}
wp_insert_term('Shoes', 'product_cat', array('slug' => 'shoes'));
$rules = array('', 'exclude-from-catalog', 'exclude-from-search', 'outofstock', '');
for ($i = 0; $i < 30; $i++) {
	$id = wp_insert_post(array('post_type' => 'product', 'post_title' => "Product $i", 'post_content' => "common $i",
		'post_status' => 'publish', 'post_date' => date('Y-m-d H:i:s', strtotime('2024-03-12 12:00:00') - intdiv($i, 3) * 86400)));
	if ($rules[$i % 5] != '') { wp_set_object_terms($id, array($rules[$i % 5]), 'product_visibility'); }
	if ($i % 2) { wp_set_object_terms($id, array('shoes'), 'product_cat'); }
}
echo json_encode($vis);
`

// shopQueryPHP runs WP_Query for each case with the product_visibility
// clause WooCommerce's product query adds (WC_Query::get_tax_query):
// NOT IN the terms hidden from the catalogue (or, searching, from search)
// and out of stock.
const shopQueryPHP = `
$out = array();
foreach (json_decode(base64_decode('%s'), true) as $c) {
	$q = array_merge($c['vars'], array('post_status' => 'publish', 'posts_per_page' => -1, 'fields' => 'ids',
		'tax_query' => array(array('taxonomy' => 'product_visibility', 'field' => 'term_taxonomy_id', 'terms' => $c['hidden'], 'operator' => 'NOT IN'))));
	if (!isset($c['vars']['s'])) { $q['orderby'] = array('date' => 'DESC', 'ID' => 'DESC'); }
	$out[] = array_map('intval', (new WP_Query($q))->posts);
}
echo json_encode($out);
`

// TestWooCommerceHidden installs the WooCommerce stand-in and the
// wploadmore plugin, whose registry then names WooCommerce's three hidden
// terms, and lists the shop, a category and a product search from the
// store as WooCommerce's product query lists them: every page at several
// offsets, and lastPost walks.
func TestWooCommerceHidden(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	wp.InstallPlugin(t, filepath.Join("..", "testdata", "wordpress", "plugins", "wploadmore-test-woocommerce.php"))
	wp.InstallPlugin(t, filepath.Join("..", "wordpress-plugin", "wploadmore"))
	var vis map[string]uint64
	if err := json.Unmarshal(wp.PHP(t, shopPHP), &vis); err != nil {
		t.Fatal(err)
	}
	wp.PHP(t, `echo 1;`) // a load after the option changed writes the registry again
	catalog, search, stock := vis["exclude-from-catalog"], vis["exclude-from-search"], vis["outofstock"]
	type shopCase struct {
		Vars   map[string]string `json:"vars"`
		Hidden []uint64          `json:"hidden"`
	}
	cases := []shopCase{
		{map[string]string{"post_type": "product"}, []uint64{catalog, stock}},
		{map[string]string{"product_cat": "shoes"}, []uint64{catalog, stock}},
		{map[string]string{"post_type": "product", "s": "common"}, []uint64{search, stock}},
	}
	payload, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]uint64
	if err := json.Unmarshal(wp.PHP(t, fmt.Sprintf(shopQueryPHP, base64.StdEncoding.EncodeToString(payload))), &want); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	store := open(t, wp.Config)
	o, err := store.Options(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var hidden []string
	for _, h := range o.Registry.HiddenTerms {
		hidden = append(hidden, fmt.Sprintf("%s %d %v %v", h.Slug, h.TermTaxonomyID, h.PostTypes, h.Contexts))
	}
	wantHidden := []string{
		fmt.Sprintf("exclude-from-catalog %d [product] [listing]", catalog),
		fmt.Sprintf("exclude-from-search %d [product] [search]", search),
		fmt.Sprintf("outofstock %d [product] [listing search]", stock),
	}
	slices.Sort(hidden)
	if diff := cmp.Diff(wantHidden, hidden); diff != "" {
		t.Fatalf("the registry's hidden terms (-want +got):\n%s", diff)
	}
	terms, err := store.Terms(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		vars := url.Values{}
		for k, v := range c.Vars {
			vars.Set(k, v)
		}
		qs := vars.Encode()
		if len(want[i]) < 5 || len(want[i]) > 24 {
			t.Fatalf("%s: WooCommerce lists %d products: the fixture is wrong", qs, len(want[i]))
		}
		listing, isSearch, err := typesListing(qs, terms)
		if err != nil {
			t.Fatalf("%s: %v", qs, err)
		}
		if isSearch {
			checkSearchSet(t, store, listing, qs, want[i])
			continue
		}
		c := archiveCase{Pages: archivePages[:]}
		c.want.All = want[i]
		for _, p := range c.Pages {
			c.want.Pages = append(c.want.Pages, window(want[i], p[0], p[1]))
		}
		checkListing(t, store, listing, qs, c)
	}
}
