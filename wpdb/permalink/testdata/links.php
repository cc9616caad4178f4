<?php
// Prints, as JSON, get_permalink() of every published post and page under
// each permalink structure in $structures (set before this runs):
// [{"stored": the option as WordPress stored it, "links": {ID: link}}].

global $wpdb, $wp_rewrite;
$ids = $wpdb->get_col( "SELECT ID FROM $wpdb->posts WHERE post_status = 'publish' AND post_type IN ('post', 'page', '')" );
// A category whose parent is missing makes get_term_parents_list() read
// a property of null: a warning, which is WordPress's to give, not ours.
$warnings = array();
set_error_handler(
	function ( $errno, $message ) use ( &$warnings ) {
		$warnings[ $message ] = true;
		return true;
	},
	E_WARNING
);
$out = array();
foreach ( $structures as $structure ) {
	update_option( 'permalink_structure', $structure );
	// get_permalink reads the option, but page links and trailing slashes
	// come from $wp_rewrite, which init() sets from it.
	$wp_rewrite->init();
	$links = array();
	foreach ( $ids as $id ) {
		$links[ $id ] = get_permalink( (int) $id );
	}
	$out[] = array( 'stored' => get_option( 'permalink_structure' ), 'links' => $links );
}
restore_error_handler();
echo json_encode( array( 'structures' => $out, 'warnings' => array_keys( $warnings ) ) );
