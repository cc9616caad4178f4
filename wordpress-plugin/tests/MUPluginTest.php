<?php
/**
 * The plugin in mu-plugins.
 *
 * @package wploadmore
 */

/**
 * Copied to mu-plugins and loaded by the one-line loader, where no
 * activation hook ever runs, the plugin writes the registry on the first
 * load.
 */
class MUPluginTest extends WPLoadMore_Test_Case {

	/**
	 * The first load writes, the next does not, and the test types (a
	 * plugin activated later) are written on the load after.
	 */
	public function test_mu_plugin_writes() {
		WPLoadMore_Test_Site::copy( WPLOADMORE_TEST_PLUGIN, $this->site->content . '/mu-plugins/wploadmore' );
		file_put_contents( $this->site->content . '/mu-plugins/wploadmore-loader.php', "<?php require __DIR__ . '/wploadmore/wploadmore.php';\n" );
		$first = $this->site->request();
		$this->assertSame( array( 'add wploadmore_registry', 'add wploadmore_registry_hash' ), self::registry_writes( $first ) );
		$this->assertIntact( $first );
		$this->assertSame( array(), self::registry_writes( $this->site->request() ) );

		$this->install_test_plugin( 'wploadmore-test-types.php' );
		$types = $this->site->request();
		$this->assertCount( 2, self::registry_writes( $types ) );
		$this->assertSame( array( false, false, false ), array_values( array_intersect_key( $types['registry']['post_types']['internal_doc'], array_flip( array( 'public', 'publicly_queryable', 'exclude_from_search' ) ) ) ) );
		$this->assertSame( array( 'book' ), $types['registry']['taxonomies']['genre']['object_types'] );
		$this->assertSame( array( 'book', 'post' ), $types['registry']['taxonomies']['mood']['object_types'] );

		// Also activated as a plugin: the copy loaded first wins, nothing breaks.
		$this->install_wploadmore();
		$this->assertSame( array(), self::registry_writes( $this->site->request() ) );
	}
}
