<?php
// Prints, as JSON, for each permalink structure in $structures (set
// before this runs) what the registry holds of each type registered by
// register_types() (types.php), and get_permalink() of every published
// post that is not a post or a page:
// [{"types": {name: {"permastruct", "query_var", "hierarchical"}}, "links": {ID: link}}].

global $wpdb, $wp_rewrite;
$ids = $wpdb->get_col( "SELECT ID FROM $wpdb->posts WHERE post_status = 'publish' AND post_type NOT IN ('post', 'page')" );
$out = array();
foreach ( $structures as $structure ) {
	update_option( 'permalink_structure', $structure );
	$wp_rewrite->init();
	// As on a request, the types register after the structure is known:
	// their permastructs take its front.
	unregister_types();
	register_types();
	$types = array();
	foreach ( get_post_types( array( '_builtin' => false ), 'objects' ) as $name => $type ) {
		$types[ $name ] = array(
			'permastruct'  => (string) $wp_rewrite->get_extra_permastruct( $name ),
			'query_var'    => (string) $type->query_var,
			'hierarchical' => (bool) $type->hierarchical,
		);
	}
	$links = array();
	foreach ( $ids as $id ) {
		$links[ $id ] = get_permalink( (int) $id );
	}
	$out[] = array( 'types' => $types, 'links' => $links );
}
echo json_encode( $out );
