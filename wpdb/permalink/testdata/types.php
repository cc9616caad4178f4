<?php
// Post types as plugins register them, on every request, with the
// arguments real ones use: an archive under its own slug, a slug without
// the front, a hierarchical type, no query var, no rewrite, a type that is
// not public. register_types() registers them; types_site() writes their
// posts through WordPress's functions.

function register_types() {
	register_post_type( 'book', array( 'public' => true, 'has_archive' => 'books', 'rewrite' => array( 'slug' => 'books' ) ) );
	register_post_type( 'event', array( 'public' => true, 'has_archive' => true, 'rewrite' => array( 'slug' => 'events', 'with_front' => false ) ) );
	register_post_type( 'portfolio', array( 'public' => true, 'hierarchical' => true, 'has_archive' => true, 'rewrite' => array( 'slug' => 'work', 'hierarchical' => true ) ) );
	register_post_type( 'recipe', array( 'public' => true, 'query_var' => false ) );
	register_post_type( 'course', array( 'public' => true, 'rewrite' => false, 'query_var' => 'Course Item' ) );
	register_post_type( 'internal', array( 'public' => false, 'rewrite' => false, 'query_var' => false ) );
	register_post_type( 'memo', array( 'public' => false, 'hierarchical' => true ) );
}

function unregister_types() {
	foreach ( array( 'book', 'event', 'portfolio', 'recipe', 'course', 'internal', 'memo' ) as $type ) {
		unregister_post_type( $type );
	}
}

function typed_post( $title, $type, $fields = array() ) {
	$defaults = array( 'post_title' => $title, 'post_type' => $type, 'post_status' => 'publish', 'post_date' => '2022-05-06 07:08:09' );
	$id       = wp_insert_post( array_merge( $defaults, $fields ), true );
	if ( is_wp_error( $id ) || ! $id ) {
		fwrite( STDERR, print_r( $id, true ) );
		exit( 1 );
	}
	return $id;
}

function types_site() {
	global $wpdb;
	register_types();
	$dune = typed_post( 'Dune', 'book' );
	typed_post( 'Café Ω über Привет', 'book' );
	// A parent means nothing to a type that is not hierarchical.
	typed_post( 'Dune Messiah', 'book', array( 'post_parent' => $dune ) );
	typed_post( 'Jazz night', 'event', array( 'post_date' => '2023-12-31 23:59:59' ) );
	$parent = typed_post( 'Parent work', 'portfolio' );
	$child  = typed_post( 'Child work', 'portfolio', array( 'post_parent' => $parent ) );
	typed_post( 'Grandchild', 'portfolio', array( 'post_parent' => $child ) );
	// A draft has no post_name: its child's path leaves it out.
	$draft = typed_post( 'Draft work', 'portfolio', array( 'post_status' => 'draft' ) );
	typed_post( 'Under a draft', 'portfolio', array( 'post_parent' => $draft ) );
	$loop_x = typed_post( 'Loop X', 'portfolio' );
	$loop_y = typed_post( 'Loop Y', 'portfolio', array( 'post_parent' => $loop_x ) );
	typed_post( 'Café work', 'portfolio', array( 'post_parent' => $loop_y ) );
	$wpdb->update( $wpdb->posts, array( 'post_parent' => $loop_y ), array( 'ID' => $loop_x ) );
	clean_post_cache( $loop_x );
	typed_post( 'Apple pie', 'recipe' );
	typed_post( 'Go basics', 'course' );
	typed_post( 'Staff only', 'internal' );
	$memo = typed_post( 'Memo', 'memo' );
	typed_post( 'Reply', 'memo', array( 'post_parent' => $memo ) );
	// A type nobody registers any more, as a removed plugin leaves it.
	$ghost = typed_post( 'Ghost', 'book' );
	$wpdb->update( $wpdb->posts, array( 'post_type' => 'ghost' ), array( 'ID' => $ghost ) );
	clean_post_cache( $ghost );
}
