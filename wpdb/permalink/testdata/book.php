<?php
// A custom post type, as a plugin registers it on every request, with the
// rewrite slug that only this PHP code knows.

function register_book() {
	register_post_type( 'book', array( 'public' => true, 'rewrite' => array( 'slug' => 'books' ) ) );
}
