<?php
// Asks WordPress where it redirects a request for each link in $links
// (set before this runs: {"structure": …, "links": {ID: link}}), as
// redirect_canonical() does on template_redirect, and prints, as JSON,
// {ID: {"redirect": where to, "permalink": get_permalink(ID)}}.

global $wp, $wp_rewrite;
update_option( 'permalink_structure', $links->structure );
$wp_rewrite->init();
// After the structure, as on a request: a type registered while links
// are plain gets no permalink structure of its own.
register_book();
$out = array();
foreach ( $links->links as $id => $link ) {
	$url                    = parse_url( $link );
	$_SERVER['REQUEST_URI'] = $url['path'] . ( isset( $url['query'] ) ? '?' . $url['query'] : '' );
	$_SERVER['QUERY_STRING'] = isset( $url['query'] ) ? $url['query'] : '';
	$_GET                    = array();
	parse_str( $_SERVER['QUERY_STRING'], $_GET );
	$wp->main();
	$out[ $id ] = array(
		'redirect'  => redirect_canonical( $link, false ),
		'permalink' => get_permalink( (int) $id ),
	);
}
echo json_encode( $out );
