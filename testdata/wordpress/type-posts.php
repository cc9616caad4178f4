<?php
/**
 * Posts of the test types plugin's public types, one of them hierarchical
 * three levels deep, written through wp_insert_post(). Loaded by the Go
 * tests of links and titles (read, stripped of its opening tag, and run by
 * wpdbtest's php-cli); $add is left for a test to write more.
 *
 * @package wploadmore
 */

$add = function ( $title, $type, $parent = 0 ) {
	$id = wp_insert_post( array( 'post_title' => $title, 'post_type' => $type, 'post_status' => 'publish', 'post_parent' => $parent ), true );
	if ( is_wp_error( $id ) || ! $id ) {
		fwrite( STDERR, print_r( $id, true ) );
		exit( 1 );
	}
	return $id;
};
$add( 'Dune', 'book' );
$add( 'Café Ω', 'book' );
$add( 'Jazz night', 'event' );
$top = $add( 'Top work', 'portfolio' );
$add( 'Deep work', 'portfolio', $add( 'Mid work', 'portfolio', $top ) );
