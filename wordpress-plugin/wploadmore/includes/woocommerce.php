<?php
/**
 * WooCommerce's catalogue visibility, as wploadmore_hidden_terms entries.
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * The wploadmore_hidden_terms filter for WooCommerce: products in
 * product_visibility's exclude-from-catalog term are left out of listings,
 * those in exclude-from-search out of search, and those in outofstock out
 * of both when the shop hides out-of-stock items. Nothing when WooCommerce
 * is not active or a term is missing.
 *
 * @param array $terms The entries so far.
 * @return array
 */
function wploadmore_woocommerce_hidden_terms( $terms ) {
	if ( ! class_exists( 'WooCommerce' ) || ! taxonomy_exists( 'product_visibility' ) ) {
		return $terms;
	}
	$rules = array(
		'exclude-from-catalog' => array( 'listing' ),
		'exclude-from-search'  => array( 'search' ),
	);
	if ( 'yes' === get_option( 'woocommerce_hide_out_of_stock_items' ) ) {
		$rules['outofstock'] = array( 'listing', 'search' );
	}
	foreach ( $rules as $slug => $contexts ) {
		$term = get_term_by( 'slug', $slug, 'product_visibility' );
		if ( ! $term instanceof WP_Term ) {
			continue;
		}
		$terms[] = array(
			'taxonomy'         => 'product_visibility',
			'term_taxonomy_id' => (int) $term->term_taxonomy_id,
			'slug'             => $slug,
			'post_types'       => array( 'product' ),
			'contexts'         => $contexts,
		);
	}
	return $terms;
}
