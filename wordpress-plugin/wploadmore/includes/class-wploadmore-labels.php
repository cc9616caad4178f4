<?php
/**
 * Labels in the site's locale, whoever is logged in.
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * Gives the post types' and taxonomies' labels in the site's locale.
 *
 * Plugins register their types on init with labels translated in the
 * request's locale, which in the admin is the user's profile locale. The
 * registry must hold the site's. WordPress re-registers its own types when
 * the locale is switched, but nobody re-registers a plugin's. So in a
 * request whose locale is not the site's, this class records, during init,
 * which original string each translation came from (the gettext filters),
 * and while the locale is switched to the site's it translates each
 * plugin type's registered labels again and re-derives the rest with
 * get_post_type_labels() and get_taxonomy_labels() on a clone.
 */
class WPLoadMore_Labels {

	/**
	 * The label and labels arguments each type and taxonomy was
	 * registered with, before WordPress merged in its defaults.
	 *
	 * @var array
	 */
	private static $raw = array(
		'post_types' => array(),
		'taxonomies' => array(),
	);

	/**
	 * Recorded translations, domain => translation => array( text,
	 * context ), or null when nothing was recorded.
	 *
	 * @var array|null
	 */
	private static $recorded = null;

	/**
	 * Hooks the capture of registration arguments and the recorder.
	 */
	public static function hook() {
		add_filter( 'register_post_type_args', array( __CLASS__, 'capture_post_type' ), PHP_INT_MAX, 2 );
		add_filter( 'register_taxonomy_args', array( __CLASS__, 'capture_taxonomy' ), PHP_INT_MAX, 2 );
		// WP::init() has set up the current user by now, so the request's
		// locale is known.
		add_action( 'init', array( __CLASS__, 'start_recording' ), PHP_INT_MIN );
		add_action( 'wp_loaded', array( __CLASS__, 'stop_recording' ), 9998 );
	}

	/**
	 * Keeps a post type's label arguments.
	 *
	 * @param array  $args The registration arguments.
	 * @param string $name The post type.
	 * @return array The arguments, unchanged.
	 */
	public static function capture_post_type( $args, $name ) {
		self::$raw['post_types'][ $name ] = self::raw_labels( $args );
		return $args;
	}

	/**
	 * Keeps a taxonomy's label arguments.
	 *
	 * @param array  $args The registration arguments.
	 * @param string $name The taxonomy.
	 * @return array The arguments, unchanged.
	 */
	public static function capture_taxonomy( $args, $name ) {
		self::$raw['taxonomies'][ $name ] = self::raw_labels( $args );
		return $args;
	}

	/**
	 * The label arguments of registration arguments.
	 *
	 * @param mixed $args The registration arguments.
	 * @return array
	 */
	private static function raw_labels( $args ) {
		$args = (array) $args;
		return array(
			'label'  => isset( $args['label'] ) ? $args['label'] : null,
			'labels' => isset( $args['labels'] ) ? (array) $args['labels'] : array(),
		);
	}

	/**
	 * Starts recording translations when the request's locale is not the
	 * site's (an admin whose profile has another language).
	 */
	public static function start_recording() {
		if ( self::in_site_locale() ) {
			return;
		}
		self::$recorded = array();
		add_filter( 'gettext', array( __CLASS__, 'record' ), PHP_INT_MAX, 3 );
		add_filter( 'gettext_with_context', array( __CLASS__, 'record_with_context' ), PHP_INT_MAX, 4 );
	}

	/**
	 * Stops recording, once the types are registered.
	 */
	public static function stop_recording() {
		remove_filter( 'gettext', array( __CLASS__, 'record' ), PHP_INT_MAX );
		remove_filter( 'gettext_with_context', array( __CLASS__, 'record_with_context' ), PHP_INT_MAX );
	}

	/**
	 * The gettext filter: records where a translation came from.
	 *
	 * @param string $translation The translation.
	 * @param string $text        The original.
	 * @param string $domain      The text domain.
	 * @return string The translation, unchanged.
	 */
	public static function record( $translation, $text, $domain ) {
		self::$recorded[ $domain ][ $translation ] = array( $text, null );
		return $translation;
	}

	/**
	 * The gettext_with_context filter: as record().
	 *
	 * @param string $translation The translation.
	 * @param string $text        The original.
	 * @param string $context     The context.
	 * @param string $domain      The text domain.
	 * @return string The translation, unchanged.
	 */
	public static function record_with_context( $translation, $text, $context, $domain ) {
		self::$recorded[ $domain ][ $translation ] = array( $text, $context );
		return $translation;
	}

	/**
	 * Every post type's and taxonomy's labels in the site's locale: for
	 * post types name, singular_name and archives, for taxonomies name and
	 * singular_name.
	 *
	 * @return array|null array( 'post_types' => ..., 'taxonomies' => ... ),
	 *                    or null when this request cannot give them: its
	 *                    locale is not the site's and it recorded nothing
	 *                    (the plugin was loaded after init, as on its own
	 *                    activation), or the site's locale is not installed.
	 */
	public static function site_labels() {
		$site = get_locale();
		if ( self::in_site_locale() ) {
			return self::derive( false );
		}
		$saved = isset( $GLOBALS['l10n'] ) ? (array) $GLOBALS['l10n'] : array();
		unset( $saved['default'] );
		if ( null === self::$recorded || ! switch_to_locale( $site ) ) {
			return null;
		}
		// WordPress 6.1 reloads a plugin's text domain in determine_locale(),
		// which in the admin stays the user's locale after the switch, and
		// may not reload a domain it once found no file for: pin the locale
		// to the site's and load each domain in it here.
		$pin = static function () use ( $site ) {
			return $site;
		};
		add_filter( 'pre_determine_locale', $pin );
		foreach ( array_unique( array_merge( array_keys( $saved ), array_keys( self::$recorded ) ) ) as $domain ) {
			if ( 'default' !== $domain ) {
				unload_textdomain( $domain, true );
				self::load_domain( $domain, $site );
			}
		}
		try {
			return self::derive( true );
		} finally {
			remove_filter( 'pre_determine_locale', $pin );
			restore_previous_locale();
			// And give the rest of the request its own translations back.
			foreach ( $saved as $domain => $translations ) {
				$GLOBALS['l10n'][ $domain ] = $translations;
			}
		}
	}

	/**
	 * Reports whether this request runs in the site's locale, as every
	 * front-end request does; an admin whose profile has another language
	 * does not.
	 *
	 * @return bool
	 */
	public static function in_site_locale() {
		return determine_locale() === get_locale();
	}

	/**
	 * Loads a plugin's or theme's text domain in $locale from where
	 * WordPress's just-in-time loader would find it.
	 *
	 * @param string $domain The text domain.
	 * @param string $locale The locale.
	 */
	private static function load_domain( $domain, $locale ) {
		global $wp_textdomain_registry;
		if ( ! is_object( $wp_textdomain_registry ) || ! method_exists( $wp_textdomain_registry, 'get' ) ) {
			return;
		}
		$path = $wp_textdomain_registry->get( $domain, $locale );
		if ( ! $path ) {
			return;
		}
		$theme = 0 === strpos( $path, trailingslashit( get_template_directory() ) ) || 0 === strpos( $path, trailingslashit( get_stylesheet_directory() ) );
		load_textdomain( $domain, $theme ? "{$path}{$locale}.mo" : "{$path}{$domain}-{$locale}.mo", $locale );
	}

	/**
	 * The labels of the registered types and taxonomies.
	 *
	 * @param bool $again Whether to translate plugins' labels again.
	 * @return array
	 */
	private static function derive( $again ) {
		$labels = array(
			'post_types' => array(),
			'taxonomies' => array(),
		);
		foreach ( get_post_types( array(), 'objects' ) as $name => $type ) {
			$all = $again && empty( $type->_builtin ) ? get_post_type_labels( self::retranslated( $type, 'post_types' ) ) : $type->labels;
			$labels['post_types'][ $name ] = array(
				'name'          => (string) $all->name,
				'singular_name' => (string) $all->singular_name,
				'archives'      => isset( $all->archives ) ? (string) $all->archives : (string) $all->name,
			);
		}
		foreach ( get_taxonomies( array(), 'objects' ) as $name => $taxonomy ) {
			$all = $again && empty( $taxonomy->_builtin ) ? get_taxonomy_labels( self::retranslated( $taxonomy, 'taxonomies' ) ) : $taxonomy->labels;
			$labels['taxonomies'][ $name ] = array(
				'name'          => (string) $all->name,
				'singular_name' => (string) $all->singular_name,
			);
		}
		return $labels;
	}

	/**
	 * A clone of a registered type or taxonomy with its registration's
	 * label arguments translated again, for WordPress to derive the other
	 * labels from in the current locale.
	 *
	 * @param WP_Post_Type|WP_Taxonomy $object The registered object.
	 * @param string                   $kind   'post_types' or 'taxonomies'.
	 * @return WP_Post_Type|WP_Taxonomy
	 */
	private static function retranslated( $object, $kind ) {
		$clone = clone $object;
		if ( isset( self::$raw[ $kind ][ $object->name ] ) ) {
			$raw = self::$raw[ $kind ][ $object->name ];
		} else {
			// Registered before this plugin was loaded: its merged labels
			// are all there is.
			$raw = array(
				'label'  => $object->label,
				'labels' => (array) $object->labels,
			);
		}
		$clone->labels = array_map( array( __CLASS__, 'translate_again' ), $raw['labels'] );
		$label         = null === $raw['label'] ? $object->label : $raw['label'];
		$clone->label  = self::translate_again( $label );
		if ( empty( $clone->labels['name'] ) ) {
			$clone->labels['name'] = $clone->label;
		}
		return $clone;
	}

	/**
	 * Translates a recorded translation again, from its original, in the
	 * current locale. Anything else is kept.
	 *
	 * @param mixed $value A label.
	 * @return mixed
	 */
	public static function translate_again( $value ) {
		if ( ! is_string( $value ) || null === self::$recorded ) {
			return $value;
		}
		foreach ( self::$recorded as $domain => $translations ) {
			if ( isset( $translations[ $value ] ) ) {
				list( $text, $context ) = $translations[ $value ];
				// phpcs:ignore WordPress.WP.I18n -- translating a recorded string again.
				return null === $context ? translate( $text, $domain ) : translate_with_gettext_context( $text, $context, $domain );
			}
		}
		return $value;
	}
}
