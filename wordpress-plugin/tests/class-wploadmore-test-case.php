<?php
/**
 * The tests' base class.
 *
 * @package wploadmore
 */

use PHPUnit\Framework\TestCase;

/**
 * Gives each test a site of its own.
 */
abstract class WPLoadMore_Test_Case extends TestCase {

	/**
	 * The test's site.
	 *
	 * @var WPLoadMore_Test_Site
	 */
	protected $site;

	/**
	 * Installs the test's site.
	 */
	protected function setUp(): void {
		$this->site = new WPLoadMore_Test_Site();
	}

	/**
	 * Removes the site's files; its tables go with the run's database.
	 */
	protected function tearDown(): void {
		$this->site->remove();
	}

	/**
	 * Installs and activates wploadmore as a plugin.
	 */
	protected function install_wploadmore() {
		$this->site->install_plugin( WPLOADMORE_TEST_PLUGIN, 'wploadmore/wploadmore.php' );
	}

	/**
	 * Installs and activates one of testdata/wordpress/plugins.
	 *
	 * @param string $file The plugin's file name.
	 */
	protected function install_test_plugin( $file ) {
		$this->site->install_plugin( WPLOADMORE_TEST_PLUGINS . '/' . $file, $file );
	}

	/**
	 * The writes of wploadmore's options among a request's writes.
	 *
	 * @param array $result A request's result.
	 * @return string[]
	 */
	protected static function registry_writes( array $result ) {
		return array_values(
			array_filter(
				$result['writes'],
				function ( $write ) {
					return (bool) preg_match( '/ wploadmore_registry(_hash)?$/', $write );
				}
			)
		);
	}

	/**
	 * Asserts that the stored hash is the sha256 of the stored registry
	 * without its generated_gmt, and that the registry is schema 1.
	 *
	 * @param array $result A request's result.
	 */
	protected function assertIntact( array $result ) {
		$this->assertIsString( $result['json'], 'wploadmore_registry is missing' );
		$this->assertIsArray( $result['registry'], 'wploadmore_registry is not JSON: ' . $result['json'] );
		$this->assertSame( 1, $result['registry']['schema'] );
		$without = $result['registry'];
		unset( $without['generated_gmt'] );
		$this->assertSame( hash( 'sha256', json_encode( $without, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE ) ), $result['hash'], 'hash is not the sha256 of the registry without generated_gmt' );
	}
}
