<?php
/**
 * Settings › wploadmore: where the server is.
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * The settings screen: one field, the server's address, stored in the
 * wploadmore_server option through the Settings API (options.php checks
 * the nonce and manage_options). WPLOADMORE_SERVER in wp-config.php wins
 * over it, for sites managed in code.
 */
class WPLoadMore_Settings {

	/**
	 * The screen's slug and the settings group.
	 */
	const PAGE = 'wploadmore';

	/**
	 * Hooks the screen and the setting.
	 */
	public static function hook() {
		add_action( 'admin_init', array( __CLASS__, 'register' ) );
		add_action( 'admin_menu', array( __CLASS__, 'menu' ) );
	}

	/**
	 * Registers the option, its section and field.
	 */
	public static function register() {
		register_setting(
			self::PAGE,
			'wploadmore_server',
			array(
				'type'              => 'string',
				'sanitize_callback' => array( __CLASS__, 'sanitize' ),
				'default'           => '',
				'show_in_rest'      => false,
			)
		);
		add_settings_section( 'wploadmore_server', __( 'Server', 'wploadmore' ), '__return_false', self::PAGE );
		add_settings_field(
			'wploadmore_server',
			__( 'Server address', 'wploadmore' ),
			array( __CLASS__, 'field' ),
			self::PAGE,
			'wploadmore_server',
			array( 'label_for' => 'wploadmore_server' )
		);
	}

	/**
	 * Keeps an http(s) URL, or '' for the default.
	 *
	 * @param mixed $value The submitted value.
	 * @return string
	 */
	public static function sanitize( $value ) {
		$value = trim( (string) $value );
		if ( '' === $value ) {
			return '';
		}
		$url = esc_url_raw( $value, array( 'http', 'https' ) );
		if ( '' === $url ) {
			add_settings_error( 'wploadmore_server', 'wploadmore_server', __( 'The server address must be an http or https URL.', 'wploadmore' ) );
			return (string) get_option( 'wploadmore_server', '' );
		}
		return $url;
	}

	/**
	 * Adds Settings › wploadmore.
	 */
	public static function menu() {
		add_options_page( __( 'wploadmore', 'wploadmore' ), __( 'wploadmore', 'wploadmore' ), 'manage_options', self::PAGE, array( __CLASS__, 'page' ) );
	}

	/**
	 * Prints the field.
	 */
	public static function field() {
		$fixed = defined( 'WPLOADMORE_SERVER' );
		printf(
			'<input type="url" class="regular-text code" id="wploadmore_server" name="wploadmore_server" value="%s" placeholder="%s"%s>',
			esc_attr( $fixed ? (string) WPLOADMORE_SERVER : (string) get_option( 'wploadmore_server', '' ) ),
			esc_attr( home_url( '/load-more.php' ) ),
			disabled( $fixed, true, false )
		);
		echo '<p class="description">';
		if ( $fixed ) {
			esc_html_e( 'Set by the WPLOADMORE_SERVER constant in wp-config.php.', 'wploadmore' );
		} else {
			esc_html_e( 'The server\'s load-more.php. Empty: load-more.php at this site\'s address. On another origin, the server must allow this site\'s origin.', 'wploadmore' );
		}
		echo '</p>';
	}

	/**
	 * Prints the screen.
	 */
	public static function page() {
		if ( ! current_user_can( 'manage_options' ) ) {
			return;
		}
		echo '<div class="wrap"><h1>' . esc_html( get_admin_page_title() ) . '</h1><form action="options.php" method="post">';
		settings_fields( self::PAGE );
		do_settings_sections( self::PAGE );
		submit_button();
		echo '</form></div>';
	}
}
