<?php
/**
 * Plugin Name: wploadmore test types
 * Description: Registers post types and taxonomies with the arguments real plugins use, for wploadmore's tests: public ones, a private one, one that search finds though it is not public, one excluded from search, and a taxonomy on that one only.
 * Version: 1.0.0
 * License: GPL-2.0-or-later
 * Text Domain: wploadmore-test-types
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * Registers the test types and taxonomies on init, as plugins do.
 */
function wploadmore_test_types_register() {
	register_post_type(
		'book',
		array(
			'labels'       => array(
				'name'          => __( 'Books', 'wploadmore-test-types' ),
				'singular_name' => __( 'Book', 'wploadmore-test-types' ),
				'archives'      => __( 'Book Archives', 'wploadmore-test-types' ),
			),
			'public'       => true,
			'has_archive'  => 'books',
			'rewrite'      => array( 'slug' => 'books' ),
			'hierarchical' => false,
			'supports'     => array( 'title', 'editor', 'excerpt', 'thumbnail' ),
			'show_in_rest' => true,
		)
	);
	register_post_type(
		'event',
		array(
			'labels'      => array(
				'name'          => __( 'Events', 'wploadmore-test-types' ),
				'singular_name' => __( 'Event', 'wploadmore-test-types' ),
			),
			'public'      => true,
			'has_archive' => true,
			'rewrite'     => array( 'with_front' => false ),
			'supports'    => array( 'title', 'editor', 'thumbnail' ),
		)
	);
	register_post_type(
		'portfolio',
		array(
			'label'        => __( 'Portfolio', 'wploadmore-test-types' ),
			'public'       => true,
			'hierarchical' => true,
			'has_archive'  => true,
			'supports'     => array( 'title', 'editor', 'page-attributes', 'thumbnail' ),
		)
	);
	// A type WordPress never shows: not public, so neither queryable nor
	// searched.
	register_post_type(
		'private_note',
		array(
			'label'   => __( 'Private notes', 'wploadmore-test-types' ),
			'public'  => false,
			'show_ui' => true,
		)
	);
	// Not public and not queryable, but registered with
	// exclude_from_search false: WordPress's search finds its posts.
	register_post_type(
		'internal_doc',
		array(
			'label'               => __( 'Internal documents', 'wploadmore-test-types' ),
			'public'              => false,
			'exclude_from_search' => false,
			'publicly_queryable'  => false,
			'show_ui'             => true,
		)
	);
	register_post_type(
		'hidden_listing',
		array(
			'label'               => __( 'Hidden listings', 'wploadmore-test-types' ),
			'public'              => true,
			'exclude_from_search' => true,
			'has_archive'         => true,
		)
	);

	register_taxonomy(
		'genre',
		array( 'book' ),
		array(
			'labels'            => array(
				'name'          => __( 'Genres', 'wploadmore-test-types' ),
				'singular_name' => __( 'Genre', 'wploadmore-test-types' ),
			),
			'hierarchical'      => true,
			'show_admin_column' => true,
			'rewrite'           => array( 'slug' => 'genre' ),
		)
	);
	register_taxonomy(
		'mood',
		array( 'book', 'post' ),
		array(
			'labels'       => array(
				'name'          => __( 'Moods', 'wploadmore-test-types' ),
				'singular_name' => __( 'Mood', 'wploadmore-test-types' ),
			),
			'hierarchical' => false,
		)
	);
	// Its only type is excluded from search, so a taxonomy archive with no
	// post_type lists nothing: WP_Query picks the searchable types that
	// carry the taxonomy, and there are none.
	register_taxonomy(
		'era',
		'hidden_listing',
		array(
			'labels' => array(
				'name'          => __( 'Eras', 'wploadmore-test-types' ),
				'singular_name' => __( 'Era', 'wploadmore-test-types' ),
			),
		)
	);
}
add_action( 'init', 'wploadmore_test_types_register' );
