<?php
/**
 * Plugin Name: wploadmore test WooCommerce
 * Description: Reproduces WooCommerce's registrations for wploadmore's tests, since WooCommerce itself cannot be installed there: the class WooCommerce, the product type, product_cat, product_tag and product_visibility, and product_visibility's terms.
 * Version: 1.0.0
 * License: GPL-2.0-or-later
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

// wploadmore, like other plugins, knows WooCommerce is active by its class.
if ( ! class_exists( 'WooCommerce' ) ) {
	/**
	 * Stands for WooCommerce's main class.
	 */
	class WooCommerce {} // phpcs:ignore Generic.Files.OneObjectStructurePerFile
}

/**
 * Registers product and its taxonomies with WooCommerce's arguments
 * (WC_Post_Types::register_post_types and register_taxonomies).
 */
function wploadmore_test_woocommerce_register() {
	register_taxonomy(
		'product_visibility',
		array( 'product', 'product_variation' ),
		array(
			'hierarchical'      => false,
			'show_ui'           => false,
			'show_in_nav_menus' => false,
			'query_var'         => is_admin(),
			'rewrite'           => false,
			'public'            => false,
			'label'             => 'Product visibility',
		)
	);
	register_taxonomy(
		'product_cat',
		array( 'product' ),
		array(
			'hierarchical' => true,
			'label'        => 'Categories',
			'labels'       => array(
				'name'          => 'Product categories',
				'singular_name' => 'Category',
			),
			'show_ui'      => true,
			'query_var'    => true,
			'rewrite'      => array(
				'slug'         => 'product-category',
				'with_front'   => false,
				'hierarchical' => true,
			),
		)
	);
	register_taxonomy(
		'product_tag',
		array( 'product' ),
		array(
			'hierarchical' => false,
			'label'        => 'Product tags',
			'labels'       => array(
				'name'          => 'Product tags',
				'singular_name' => 'Tag',
			),
			'show_ui'      => true,
			'query_var'    => true,
			'rewrite'      => array(
				'slug'       => 'product-tag',
				'with_front' => false,
			),
		)
	);
	register_post_type(
		'product',
		array(
			'labels'              => array(
				'name'          => 'Products',
				'singular_name' => 'Product',
				'archives'      => 'Products',
			),
			'public'              => true,
			'show_ui'             => true,
			'publicly_queryable'  => true,
			'exclude_from_search' => false,
			'hierarchical'        => false,
			'rewrite'             => array(
				'slug'       => 'product',
				'with_front' => false,
				'feeds'      => true,
			),
			'query_var'           => true,
			'supports'            => array( 'title', 'editor', 'excerpt', 'thumbnail', 'custom-fields', 'publicize', 'wpcom-markdown' ),
			'has_archive'         => 'shop',
			'show_in_nav_menus'   => true,
			'show_in_rest'        => true,
		)
	);
}
add_action( 'init', 'wploadmore_test_woocommerce_register', 5 );

/**
 * Creates product_visibility's terms once, as WooCommerce's installer
 * does (WC_Install::create_terms).
 */
function wploadmore_test_woocommerce_create_terms() {
	if ( get_option( 'wploadmore_test_woocommerce_terms' ) ) {
		return;
	}
	foreach ( array( 'exclude-from-search', 'exclude-from-catalog', 'featured', 'outofstock' ) as $slug ) {
		if ( ! get_term_by( 'slug', $slug, 'product_visibility' ) ) {
			wp_insert_term( $slug, 'product_visibility' );
		}
	}
	update_option( 'wploadmore_test_woocommerce_terms', '1', true );
}
add_action( 'init', 'wploadmore_test_woocommerce_create_terms', 6 );
