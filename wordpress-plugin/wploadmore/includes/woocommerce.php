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
 * is not active; an entry whose term is missing is left out.
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
	// One query for the three terms, on every request that checks the
	// registry: WooCommerce creates them on install, a site may have
	// deleted one.
	$found = get_terms(
		array(
			'taxonomy'               => 'product_visibility',
			'slug'                   => array_keys( $rules ),
			'hide_empty'             => false,
			'update_term_meta_cache' => false,
		)
	);
	$by_slug = array();
	foreach ( is_array( $found ) ? $found : array() as $term ) {
		$by_slug[ $term->slug ] = $term;
	}
	foreach ( $rules as $slug => $contexts ) {
		if ( ! isset( $by_slug[ $slug ] ) ) {
			continue;
		}
		$terms[] = array(
			'taxonomy'         => 'product_visibility',
			'term_taxonomy_id' => (int) $by_slug[ $slug ]->term_taxonomy_id,
			'slug'             => $slug,
			'post_types'       => array( 'product' ),
			'contexts'         => $contexts,
		);
	}
	return $terms;
}
