<?php
/**
 * Settings › wploadmore: where the server is, and the pagination.
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * The settings screen: the server's address (option wploadmore_server) and
 * whether listings' pagination becomes "load more" (option
 * wploadmore_replace_pagination), through the Settings API (options.php
 * checks the nonce and manage_options). The constants WPLOADMORE_SERVER
 * and WPLOADMORE_REPLACE_PAGINATION in wp-config.php win over them, for
 * sites managed in code.
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
		register_setting(
			self::PAGE,
			'wploadmore_replace_pagination',
			array(
				'type'              => 'boolean',
				'sanitize_callback' => 'rest_sanitize_boolean',
				'default'           => false,
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
		add_settings_field(
			'wploadmore_replace_pagination',
			__( 'Pagination', 'wploadmore' ),
			array( __CLASS__, 'pagination_field' ),
			self::PAGE,
			'wploadmore_server',
			array( 'label_for' => 'wploadmore_replace_pagination' )
		);
	}

	/**
	 * Prints the pagination checkbox.
	 */
	public static function pagination_field() {
		$fixed = defined( 'WPLOADMORE_REPLACE_PAGINATION' );
		printf(
			'<input type="hidden" name="wploadmore_replace_pagination" value="0"><input type="checkbox" id="wploadmore_replace_pagination" name="wploadmore_replace_pagination" value="1"%s%s> ',
			checked( WPLoadMore_Pagination::enabled(), true, false ),
			disabled( $fixed, true, false )
		);
		echo '<span>' . esc_html__( 'Replace the numbered pagination of the home page, archives and search results with "load more"', 'wploadmore' ) . '</span>';
		if ( $fixed ) {
			echo '<p class="description">' . esc_html__( 'Set by the WPLOADMORE_REPLACE_PAGINATION constant in wp-config.php.', 'wploadmore' ) . '</p>';
		}
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
