<?php
/**
 * When the registry is written, and what it holds.
 *
 * @package wploadmore
 */

/**
 * The registry is written once per change, never on an unchanged request.
 */
class RegistryTest extends WPLoadMore_Test_Case {

	/**
	 * Activation writes; an unchanged request writes nothing; a plugin
	 * activated, a permalink structure changed, a query var added and a
	 * plugin deactivated are each written once, on the next load.
	 */
	public function test_written_once_per_change() {
		$this->install_wploadmore();
		$first = $this->site->request();
		$this->assertSame( array(), self::registry_writes( $first ), 'the request after activation wrote again' );
		$this->assertIntact( $first );
		$this->assertArrayHasKey( 'post', $first['registry']['post_types'] );
		$this->assertArrayNotHasKey( 'book', $first['registry']['post_types'] );

		$this->install_test_plugin( 'wploadmore-test-types.php' );
		$changed = $this->site->request();
		$this->assertSame( array( 'update wploadmore_registry', 'update wploadmore_registry_hash' ), self::registry_writes( $changed ) );
		$this->assertIntact( $changed );
		$this->assertSame( 'books', $changed['registry']['post_types']['book']['archive_slug'] );
		$this->assertSame( '', $changed['registry']['post_types']['book']['permastruct'], 'plain permalinks have no permastruct' );

		$same = $this->site->request();
		$this->assertSame( array(), self::registry_writes( $same ), 'an unchanged request wrote' );
		$this->assertSame( $changed['json'], $same['json'], 'an unchanged request changed the registry, generated_gmt included' );

		$this->site->php( "global \$wp_rewrite; \$wp_rewrite->set_permalink_structure( '/blog/%postname%/' );" );
		$permalinks = $this->site->request();
		$this->assertCount( 2, self::registry_writes( $permalinks ) );
		$types = $permalinks['registry']['post_types'];
		$this->assertSame( '/blog/books/%book%', $types['book']['permastruct'], 'with_front' );
		$this->assertSame( 'event/%event%', $types['event']['permastruct'], 'with_front false: WordPress puts no slash before it' );
		$this->assertSame( '/blog/genre/%genre%', $permalinks['registry']['taxonomies']['genre']['permastruct'] );
		$this->assertSame( array(), self::registry_writes( $this->site->request() ) );

		// A theme switched: this request still has the old theme's
		// registrations, so the change is flagged and the next load writes.
		foreach ( array( 'twentytwentyone', 'twentytwentythree' ) as $theme ) {
			if ( ! is_dir( WPLOADMORE_TEST_ABSPATH . "wp-content/themes/$theme" ) ) {
				$this->fail( "needs Debian's wordpress-theme-$theme package: apt-get install wordpress-theme-$theme" );
			}
			symlink( WPLOADMORE_TEST_ABSPATH . "wp-content/themes/$theme", $this->site->content . "/themes/$theme" );
		}
		$switched = $this->site->request( "switch_theme( 'twentytwentythree' );" );
		$this->assertSame( array( 'update wploadmore_registry_hash' ), self::registry_writes( $switched ), 'switch_theme did not flag the registry, or wrote it in the old theme' );
		$this->assertSame( '', $switched['hash'] );
		$next = $this->site->request( 'echo get_stylesheet();' );
		$this->assertSame( 'twentytwentythree', $next['printed'] );
		$this->assertContains( 'update wploadmore_registry_hash', self::registry_writes( $next ) );
		$this->assertIntact( $next );

		$this->site->deactivate( 'wploadmore-test-types.php' );
		$gone = $this->site->request();
		$this->assertCount( 2, self::registry_writes( $gone ) );
		$this->assertArrayNotHasKey( 'book', $gone['registry']['post_types'] );
		$this->assertArrayNotHasKey( 'genre', $gone['registry']['taxonomies'] );
		$this->assertSame( array(), self::registry_writes( $this->site->request() ) );
	}
}
