<?php
/**
 * Site Health: whether change events reach Redis.
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * Adds a direct Site Health test, "wploadmore sends change events".
 */
class WPLoadMore_Events_Health {

	/**
	 * Hooks the test.
	 */
	public static function hook() {
		add_filter( 'site_status_tests', array( __CLASS__, 'add_test' ) );
	}

	/**
	 * The site_status_tests filter.
	 *
	 * @param array $tests Site Health's tests.
	 * @return array
	 */
	public static function add_test( $tests ) {
		$tests['direct']['wploadmore_events'] = array(
			'label' => __( 'wploadmore change events', 'wploadmore' ),
			'test'  => array( __CLASS__, 'test' ),
		);
		return $tests;
	}

	/**
	 * The test: good when phpredis is loaded and the Redis answers PING,
	 * recommended otherwise, saying which of the three is missing.
	 *
	 * @return array Site Health's result.
	 */
	public static function test() {
		$result = array(
			'label'       => __( 'wploadmore sends change events', 'wploadmore' ),
			'status'      => 'good',
			'badge'       => array(
				'label' => __( 'Performance', 'wploadmore' ),
				'color' => 'blue',
			),
			'description' => '<p>' . esc_html__( 'Each change the wploadmore server shows is announced on Redis, so the server refreshes it within milliseconds instead of on its timer.', 'wploadmore' ) . '</p>',
			'actions'     => '',
			'test'        => 'wploadmore_events',
		);
		$why = self::problem();
		if ( '' === $why ) {
			return $result;
		}
		$result['status']         = 'recommended';
		$result['badge']['color'] = 'orange';
		$result['label']          = __( 'wploadmore sends no change events', 'wploadmore' );
		$result['description']   .= '<p>' . esc_html( $why ) . ' ' . esc_html__( 'The server still shows changes, after its freshness bound (about a second for listings).', 'wploadmore' ) . '</p>';
		return $result;
	}

	/**
	 * What keeps events from Redis, or '' when nothing does.
	 *
	 * @return string
	 */
	public static function problem() {
		if ( ! extension_loaded( 'redis' ) ) {
			return __( "PHP's redis extension (phpredis) is not loaded, so the plugin sends nothing.", 'wploadmore' );
		}
		$url = WPLoadMore_Redis::url();
		if ( '' === $url ) {
			return __( "No Redis is configured: define WPLOADMORE_REDIS in wp-config.php as the server's -redis URL.", 'wploadmore' );
		}
		try {
			$r = WPLoadMore_Redis::connect( $url );
			$r instanceof RedisCluster ? $r->ping( WPLoadMore_Redis::counter() ) : $r->ping();
			$r->close();
		} catch ( Exception $e ) {
			/* translators: %s: why the connection failed, never the password. */
			return sprintf( __( 'Redis does not answer (%s).', 'wploadmore' ), preg_replace( '#//[^@/]*@#', '//', $e->getMessage() ) );
		}
		return '';
	}
}
