<?php
// The site the permalink tests compare links on, built through WordPress's
// own functions; wpdbtest's WordPress.PHP runs it after wp-settings.php.
// It prints nothing: the Go side reads the rows back with SQL.

function must( $result ) {
	if ( is_wp_error( $result ) || ! $result ) {
		fwrite( STDERR, print_r( $result, true ) );
		exit( 1 );
	}
	return $result;
}

function category( $name, $parent = 0 ) {
	return must( wp_insert_term( $name, 'category', array( 'parent' => $parent ) ) )['term_id'];
}

function user( $login, $nicename ) {
	return must( wp_insert_user( array( 'user_login' => $login, 'user_pass' => 'password', 'user_email' => "$login@example.org", 'user_nicename' => $nicename ) ) );
}

function post( $title, $type, $fields ) {
	$defaults = array( 'post_title' => $title, 'post_type' => $type, 'post_status' => 'publish', 'post_date' => '2021-03-04 05:06:07' );
	return must( wp_insert_post( array_merge( $defaults, $fields ), true ) );
}

// Created before alpha, so that the lowest term_id is not the first slug.
$zeta     = category( 'Zeta' );
$news     = category( 'News' );
$local    = category( 'Local', $news );
$downtown = category( 'Downtown', $local );
$alpha    = category( 'Alpha' );
$economy  = category( 'Économie Привет' );
$loop_a   = category( 'Loop A' );
$loop_b   = category( 'Loop B', $loop_a );
$orphan   = category( 'Orphan' );
$orphaned = category( 'Orphaned', $orphan );
$self     = category( 'Self' );
// wp_insert_term refuses loops and missing parents; a database can still
// hold them.
$wpdb->update( $wpdb->term_taxonomy, array( 'parent' => $loop_b ), array( 'term_id' => $loop_a, 'taxonomy' => 'category' ) );
$wpdb->update( $wpdb->term_taxonomy, array( 'parent' => 999999 ), array( 'term_id' => $orphan, 'taxonomy' => 'category' ) );
$wpdb->update( $wpdb->term_taxonomy, array( 'parent' => $self ), array( 'term_id' => $self, 'taxonomy' => 'category' ) );
clean_term_cache( array( $loop_a, $orphan, $self ), 'category' );

$jane = user( 'jane', 'Jane Doe' );
$zoe  = user( 'zoe', 'Zoë Привет' );

post( 'Hello local', 'post', array( 'post_category' => array( $local ), 'post_author' => $jane ) );
post( 'Two categories', 'post', array( 'post_category' => array( $alpha, $zeta ), 'post_author' => $zoe, 'post_date' => '2020-12-31 23:59:58' ) );
post( 'Café über Привет', 'post', array( 'post_category' => array( $downtown ), 'post_author' => $zoe, 'post_date' => '2019-01-02 00:00:09' ) );
post( 'Économie', 'post', array( 'post_category' => array( $economy ), 'post_author' => $jane ) );
post( 'Looping', 'post', array( 'post_category' => array( $loop_a ), 'post_author' => $jane ) );
post( 'Orphaned', 'post', array( 'post_category' => array( $orphaned ), 'post_author' => $jane ) );
post( 'Own parent', 'post', array( 'post_category' => array( $self ), 'post_author' => $jane ) );
// A row with no post_type, as a plugin's own SQL may leave one.
$untyped = post( 'Untyped', 'post', array( 'post_category' => array( $news ), 'post_author' => $jane ) );
$wpdb->update( $wpdb->posts, array( 'post_type' => '' ), array( 'ID' => $untyped ) );
clean_post_cache( $untyped );
$none = post( 'No category', 'post', array( 'post_author' => $jane ) );
// wp_insert_post gives a post without categories the default one; take it
// away, and make the default a child category.
$wpdb->delete( $wpdb->term_relationships, array( 'object_id' => $none ) );
clean_object_term_cache( $none, 'post' );
update_option( 'default_category', $local );

$about = post( 'About', 'page', array() );
$team  = post( 'Team', 'page', array( 'post_parent' => $about ) );
post( 'Café Ω', 'page', array( 'post_parent' => $team ) );
$front = post( 'Home', 'page', array() );
$blog  = post( 'Blog', 'page', array() );
update_option( 'show_on_front', 'page' );
update_option( 'page_on_front', $front );
update_option( 'page_for_posts', $blog );
// A draft has no post_name: its child's path leaves it out.
$draft = post( 'Draft parent', 'page', array( 'post_status' => 'draft' ) );
post( 'Under a draft', 'page', array( 'post_parent' => $draft ) );
$loop_x = post( 'Loop X', 'page', array() );
$loop_y = post( 'Loop Y', 'page', array( 'post_parent' => $loop_x ) );
post( 'Loop Z', 'page', array( 'post_parent' => $loop_y ) );
$lost = post( 'Lost', 'page', array() );
post( 'Lost child', 'page', array( 'post_parent' => $lost ) );
$self_page = post( 'Own parent page', 'page', array() );
$wpdb->update( $wpdb->posts, array( 'post_parent' => $loop_y ), array( 'ID' => $loop_x ) );
$wpdb->update( $wpdb->posts, array( 'post_parent' => 999999 ), array( 'ID' => $lost ) );
$wpdb->update( $wpdb->posts, array( 'post_parent' => $self_page ), array( 'ID' => $self_page ) );
clean_post_cache( $loop_x );
clean_post_cache( $lost );
clean_post_cache( $self_page );
