<?php
/**
 * Site Health and damaged options.
 *
 * @package wploadmore
 */

/**
 * Site Health says whether the registry is current; a damaged hash or
 * registry is replaced.
 */
class SiteHealthTest extends WPLoadMore_Test_Case {

	/**
	 * Runs the Site Health test as Tools › Site Health does and returns its
	 * status, with the request's result.
	 *
	 * @param string $before PHP to run first.
	 * @return array
	 */
	private function site_health( $before = '' ) {
		return $this->site->request(
			"$before
\$tests = WP_Site_Health::get_tests();
\$test  = \$tests['direct']['wploadmore_registry'];
\$got   = call_user_func( \$test['test'] );
echo json_encode( array( \$test['label'], \$got['status'], \$got['label'], \$got['test'] ) );",
			array(
				'admin' => true,
				'user'  => 1,
			)
		);
	}

	/**
	 * Current after a write; not current when the stored registry was
	 * hand-edited (its hash kept), and then written again on the next load.
	 */
	public function test_current_and_not_current() {
		$this->install_wploadmore();
		$good = json_decode( $this->site_health( "require_once ABSPATH . 'wp-admin/includes/class-wp-site-health.php';" )['printed'], true );
		$this->assertSame( array( 'wploadmore registry', 'good', 'wploadmore registry is current', 'wploadmore_registry' ), $good );

		$edited = $this->site_health( "require_once ABSPATH . 'wp-admin/includes/class-wp-site-health.php'; update_option( 'wploadmore_registry', '{\"schema\":1,\"post_types\":{}}' );" );
		$this->assertSame( array( 'wploadmore registry', 'recommended', 'The wploadmore registry is not current' ), array_slice( json_decode( $edited['printed'], true ), 0, 3 ) );
		$next = $this->site->request();
		$this->assertCount( 2, self::registry_writes( $next ), 'the registry Site Health found damaged was not written again' );
		$this->assertIntact( $next );
	}

	/**
	 * A malformed hash is replaced on the next load; a truncated registry
	 * under an intact hash on the next write, here a change. Uninstalling
	 * removes both.
	 */
	public function test_malformed_options_replaced() {
		$this->install_wploadmore();
		$this->site->php( "update_option( 'wploadmore_registry_hash', 'not a hash' );" );
		$rehashed = $this->site->request();
		$this->assertContains( 'update wploadmore_registry_hash', self::registry_writes( $rehashed ), 'a malformed hash was not replaced' );
		$this->assertIntact( $rehashed );

		$this->site->php( "update_option( 'wploadmore_registry', substr( get_option( 'wploadmore_registry' ), 0, 100 ) );" );
		$this->assertSame( array(), self::registry_writes( $this->site->request() ), 'an unchanged front-end request read more than the hash' );
		$this->install_test_plugin( 'wploadmore-test-types.php' );
		$next = $this->site->request();
		$this->assertCount( 2, self::registry_writes( $next ) );
		$this->assertIntact( $next );

		// Uninstalling removes both options.
		$out = $this->site->php( "define( 'WP_UNINSTALL_PLUGIN', 'wploadmore/wploadmore.php' ); include WP_PLUGIN_DIR . '/wploadmore/uninstall.php'; var_export( array( get_option( 'wploadmore_registry' ), get_option( 'wploadmore_registry_hash' ) ) );" );
		$this->assertSame( 'array ( 0 => false, 1 => false, )', preg_replace( '/\s+/', ' ', $out ) );
	}
}
