<?php
/**
 * Site Health: whether the registry is current.
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * Adds a direct Site Health test, "wploadmore registry is current".
 */
class WPLoadMore_Site_Health {

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
		$tests['direct']['wploadmore_registry'] = array(
			'label' => __( 'wploadmore registry', 'wploadmore' ),
			'test'  => array( __CLASS__, 'test' ),
		);
		return $tests;
	}

	/**
	 * The test: good when the stored registry is the one this request
	 * builds, recommended otherwise.
	 *
	 * @return array Site Health's result.
	 */
	public static function test() {
		$current = WPLoadMore_Registry::is_current();
		$result  = array(
			'label'       => __( 'wploadmore registry is current', 'wploadmore' ),
			'status'      => 'good',
			'badge'       => array(
				'label' => __( 'Performance', 'wploadmore' ),
				'color' => 'blue',
			),
			'description' => '<p>' . esc_html__( 'The wploadmore server lists the post types and taxonomies this site registers, as the plugin last wrote them.', 'wploadmore' ) . '</p>',
			'actions'     => '',
			'test'        => 'wploadmore_registry',
		);
		if ( true === $current ) {
			return $result;
		}
		$result['status']         = 'recommended';
		$result['badge']['color'] = 'orange';
		if ( null === $current ) {
			$result['label']        = __( 'The wploadmore registry could not be checked', 'wploadmore' );
			$result['description'] .= '<p>' . esc_html__( 'Your profile language differs from the site language, and the registry holds labels in the site language. Load any page of the site, then check again.', 'wploadmore' ) . '</p>';
			return $result;
		}
		// Flag it: the next load writes it again.
		WPLoadMore_Registry::mark_stale();
		$result['label']        = __( 'The wploadmore registry is not current', 'wploadmore' );
		$result['description'] .= '<p>' . esc_html__( 'The stored registry differs from what the site registers now, so the server may list post types, taxonomies or archives as they were. The plugin writes it again on the next page load; if this stays, check that the database accepts writes to the options table.', 'wploadmore' ) . '</p>';
		return $result;
	}
}
