<?php
/**
 * WooCommerce's catalogue visibility as hidden terms.
 *
 * @package wploadmore
 */

/**
 * The plugin's own wploadmore_hidden_terms rules for WooCommerce.
 */
class WooCommerceTest extends WPLoadMore_Test_Case {

	/**
	 * Without WooCommerce there are no hidden terms; with it, catalogue and
	 * search visibility; out-of-stock products only when the shop hides
	 * them; and each entry names the term WordPress holds.
	 */
	public function test_rules() {
		$this->install_wploadmore();
		$this->install_test_plugin( 'wploadmore-test-types.php' );
		$this->assertSame( array(), $this->site->request()['registry']['hidden_terms'], 'hidden terms without WooCommerce' );

		$this->install_test_plugin( 'wploadmore-test-woocommerce.php' );
		$ids = "echo json_encode( array_map( function ( \$slug ) { return get_term_by( 'slug', \$slug, 'product_visibility' )->term_taxonomy_id; }, array( 'catalog' => 'exclude-from-catalog', 'search' => 'exclude-from-search', 'outofstock' => 'outofstock' ) ) );";
		$shop = $this->site->request( $ids );
		$tt   = json_decode( $shop['printed'], true );
		$this->assertCount( 2, self::registry_writes( $shop ), 'WooCommerce activated: not written once' );
		$catalog = array(
			'taxonomy'         => 'product_visibility',
			'term_taxonomy_id' => (int) $tt['catalog'],
			'slug'             => 'exclude-from-catalog',
			'post_types'       => array( 'product' ),
			'contexts'         => array( 'listing' ),
		);
		$search  = array(
			'taxonomy'         => 'product_visibility',
			'term_taxonomy_id' => (int) $tt['search'],
			'slug'             => 'exclude-from-search',
			'post_types'       => array( 'product' ),
			'contexts'         => array( 'search' ),
		);
		$this->assertSame( array( $catalog, $search ), $shop['registry']['hidden_terms'] );
		$product = $shop['registry']['post_types']['product'];
		$this->assertSame( array( true, 'shop', 'product' ), array( $product['has_archive'], $product['archive_slug'], $product['query_var'] ) );
		$this->assertFalse( $shop['registry']['taxonomies']['product_visibility']['query_var'] );
		$this->assertSame( array( 'product', 'product_variation' ), $shop['registry']['taxonomies']['product_visibility']['object_types'] );

		$this->site->php( "update_option( 'woocommerce_hide_out_of_stock_items', 'no' );" );
		$this->assertSame( array( $catalog, $search ), $this->site->request()['registry']['hidden_terms'], 'option "no"' );

		$this->site->php( "update_option( 'woocommerce_hide_out_of_stock_items', 'yes' );" );
		$hidden = $this->site->request();
		$this->assertCount( 2, self::registry_writes( $hidden ), 'option set: not written once' );
		$outofstock = array(
			'taxonomy'         => 'product_visibility',
			'term_taxonomy_id' => (int) $tt['outofstock'],
			'slug'             => 'outofstock',
			'post_types'       => array( 'product' ),
			'contexts'         => array( 'listing', 'search' ),
		);
		$this->assertSame( array( $catalog, $search, $outofstock ), $hidden['registry']['hidden_terms'] );
		$this->assertSame( array(), self::registry_writes( $this->site->request() ) );

		// A missing term is left out; the others stay.
		$this->site->php( "wp_delete_term( get_term_by( 'slug', 'exclude-from-search', 'product_visibility' )->term_id, 'product_visibility' );" );
		$this->assertSame( array( $catalog, $outofstock ), $this->site->request()['registry']['hidden_terms'], 'a deleted term' );

		$this->site->deactivate( 'wploadmore-test-woocommerce.php' );
		$gone = $this->site->request();
		$this->assertSame( array(), $gone['registry']['hidden_terms'], 'WooCommerce deactivated' );
		$this->assertArrayNotHasKey( 'product', $gone['registry']['post_types'] );
	}

	/**
	 * Another plugin's entries through the filter: well-formed ones are
	 * kept, malformed ones left out.
	 */
	public function test_filter_entries_are_checked() {
		file_put_contents(
			$this->site->content . '/mu-plugins/hidden.php',
			"<?php add_filter( 'wploadmore_hidden_terms', function ( \$terms ) {
	\$terms[] = array( 'taxonomy' => 'category', 'term_taxonomy_id' => 1, 'slug' => 'uncategorized', 'post_types' => array(), 'contexts' => array( 'search', 'listing', 'feed' ) );
	\$terms[] = array( 'taxonomy' => 'category', 'term_taxonomy_id' => 0, 'slug' => 'none', 'contexts' => array( 'listing' ) );
	\$terms[] = array( 'taxonomy' => 'category', 'term_taxonomy_id' => 1, 'slug' => 'uncategorized', 'contexts' => array( 'feed' ) );
	\$terms[] = 'not an entry';
	return \$terms;
} );\n"
		);
		$this->install_wploadmore();
		$this->assertSame(
			array(
				array(
					'taxonomy'         => 'category',
					'term_taxonomy_id' => 1,
					'slug'             => 'uncategorized',
					'post_types'       => array(),
					'contexts'         => array( 'listing', 'search' ),
				),
			),
			$this->site->request()['registry']['hidden_terms']
		);
	}
}
