<?php
/**
 * The tests' bootstrap: finds php's mysqli, Debian's WordPress and
 * MariaDB, and creates the run's own database, dropped when the run ends.
 *
 * The tests do not load WordPress into PHPUnit's process: what they test
 * happens per request (a write on one load, none on the next, the locale of
 * the user a request runs for, mu-plugins), so each request is a php child
 * process loading WordPress afresh on the run's database, as a page view
 * does. Each test installs its own site there, under its own table prefix.
 *
 * A missing package or an unreachable MariaDB fails the run with one line
 * that says what to install or start; it never passes with tests left out.
 *
 * @package wploadmore
 */

define( 'WPLOADMORE_TEST_ABSPATH', getenv( 'WPLOADMORE_TEST_ABSPATH' ) ? rtrim( getenv( 'WPLOADMORE_TEST_ABSPATH' ), '/' ) . '/' : '/usr/share/wordpress/' );
define( 'WPLOADMORE_TEST_DB_HOST', getenv( 'WPLOADMORE_TEST_DB_HOST' ) ? getenv( 'WPLOADMORE_TEST_DB_HOST' ) : '127.0.0.1:3306' );
define( 'WPLOADMORE_TEST_PLUGIN', dirname( __DIR__ ) . '/wploadmore' );
define( 'WPLOADMORE_TEST_PLUGINS', dirname( __DIR__, 2 ) . '/testdata/wordpress/plugins' );
define( 'WPLOADMORE_TEST_LANGUAGES', WPLOADMORE_TEST_ABSPATH . 'wp-content/languages' );

/**
 * Ends the run with a failure that says what is missing.
 *
 * @param string $why What is missing and how to get it.
 */
function wploadmore_test_missing( $why ) {
	fwrite( STDERR, "wploadmore plugin tests: $why\n" );
	exit( 1 );
}

if ( ! extension_loaded( 'mysqli' ) ) {
	wploadmore_test_missing( "needs Debian's php-mysql package (php -m lists no mysqli): apt-get install php-mysql" );
}
if ( ! file_exists( WPLOADMORE_TEST_ABSPATH . 'wp-settings.php' ) ) {
	wploadmore_test_missing( "needs Debian's wordpress package (" . WPLOADMORE_TEST_ABSPATH . 'wp-settings.php is missing): apt-get install wordpress' );
}

mysqli_report( MYSQLI_REPORT_OFF );
list( $wploadmore_host, $wploadmore_port ) = explode( ':', WPLOADMORE_TEST_DB_HOST . ':3306' );
$wploadmore_admin = @mysqli_connect( $wploadmore_host, 'root', '', '', (int) $wploadmore_port ); // phpcs:ignore WordPress.PHP.NoSilencedErrors
if ( ! $wploadmore_admin ) {
	wploadmore_test_missing( 'MariaDB is unreachable at root@' . WPLOADMORE_TEST_DB_HOST . ' (' . mysqli_connect_error() . '): start it with `make services`' );
}
define( 'WPLOADMORE_TEST_DB_NAME', 'wploadmore_phpunit_' . bin2hex( random_bytes( 4 ) ) );
if ( ! mysqli_query( $wploadmore_admin, 'CREATE DATABASE `' . WPLOADMORE_TEST_DB_NAME . '` CHARACTER SET utf8mb4' ) ) {
	wploadmore_test_missing( 'cannot create database ' . WPLOADMORE_TEST_DB_NAME . ': ' . mysqli_error( $wploadmore_admin ) );
}
register_shutdown_function(
	function () use ( $wploadmore_admin ) {
		mysqli_query( $wploadmore_admin, 'DROP DATABASE IF EXISTS `' . WPLOADMORE_TEST_DB_NAME . '`' );
		mysqli_close( $wploadmore_admin );
	}
);

require_once __DIR__ . '/class-wploadmore-test-site.php';
require_once __DIR__ . '/class-wploadmore-test-case.php';
