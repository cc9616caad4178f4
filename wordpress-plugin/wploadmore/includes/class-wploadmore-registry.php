<?php
/**
 * The registry: what the site registers, as the wploadmore server reads it.
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * Builds the registry (schema 1) and writes it to the option
 * wploadmore_registry when, and only when, it changed.
 *
 * A request whose registry is unchanged reads one small autoloaded option,
 * wploadmore_registry_hash, and writes nothing.
 */
class WPLoadMore_Registry {

	const SCHEMA      = 1;
	const OPTION      = 'wploadmore_registry';
	const HASH_OPTION = 'wploadmore_registry_hash';
	const CONTEXTS    = array( 'listing', 'search' );

	/**
	 * Hooks the writer: late on wp_loaded, once every plugin and the theme
	 * registered their types, on every request (mu-plugins mode and
	 * php-cli included, where no activation hook runs).
	 *
	 * A plugin activated or deactivated, a theme switched or a permalink
	 * structure changed takes effect on the next load only: this request
	 * still holds the old registrations (a deactivated plugin's types, the
	 * old permastructs). So these hooks do not write now; they clear the
	 * stored hash, and the next load's wp_loaded writes the registry anew.
	 */
	public static function hook() {
		add_action( 'wp_loaded', array( __CLASS__, 'on_wp_loaded' ), 9999 );
		foreach ( array( 'activated_plugin', 'deactivated_plugin', 'switch_theme', 'permalink_structure_changed' ) as $hook ) {
			add_action( $hook, array( __CLASS__, 'mark_stale' ) );
		}
	}

	/**
	 * Writes the registry when it changed: on every front-end request, in
	 * php-cli, and (see write()) in the admin when a change was flagged.
	 * A hand-edited or truncated registry whose hash was kept is replaced
	 * on the next write, or at once when activation or Site Health finds
	 * it.
	 */
	public static function on_wp_loaded() {
		self::write( false );
	}

	/**
	 * The activation hook: writes at once.
	 */
	public static function activate() {
		self::write( true );
	}

	/**
	 * Clears the stored hash: the next load writes the registry. This
	 * plugin's own activation has just written it, and registers nothing
	 * that the next load would add.
	 *
	 * @param mixed $plugin The plugin activated or deactivated, or the theme.
	 */
	public static function mark_stale( $plugin = null ) {
		if ( 'activated_plugin' === current_action() && plugin_basename( WPLOADMORE_FILE ) === $plugin ) {
			return;
		}
		update_option( self::HASH_OPTION, '', true );
	}

	/**
	 * Builds the registry and writes both options when its hash differs
	 * from the stored one. With $deep (activation) it also writes when the
	 * stored registry does not match the stored hash, and it checks in the
	 * admin too.
	 *
	 * @param bool $deep Whether to check the stored registry too.
	 * @return bool Whether it wrote.
	 */
	public static function write( $deep = false ) {
		$stored = get_option( self::HASH_OPTION );
		if ( ! $deep && ( is_admin() || ! WPLoadMore_Labels::in_site_locale() ) && is_string( $stored ) && '' !== $stored ) {
			// The registry is what the front end registers. An admin
			// request may register otherwise (plugins do, and its locale may
			// be the user's, which costs a locale switch to undo), so it
			// writes only a flagged change or a missing registry, and leaves
			// any other change to the next front-end request.
			return false;
		}
		$registry = self::build();
		if ( null === $registry ) {
			return false; // Labels cannot be had in the site's locale in this request.
		}
		$json = self::encode( $registry );
		if ( '' === $json ) {
			return false; // Not encodable: keep the last good registry.
		}
		$hash = self::hash( $json );
		if ( $stored === $hash && ( ! $deep || self::stored_is_intact( $hash ) ) ) {
			return false;
		}
		update_option( self::OPTION, $json, false );
		update_option( self::HASH_OPTION, $hash, true );
		return true;
	}

	/**
	 * Reports whether the stored registry is the one this request builds.
	 *
	 * @return bool|null Null when it cannot tell (labels in another locale).
	 */
	public static function is_current() {
		$registry = self::build();
		if ( null === $registry ) {
			return null;
		}
		$hash = self::hash( self::encode( $registry ) );
		return get_option( self::HASH_OPTION ) === $hash && self::stored_is_intact( $hash );
	}

	/**
	 * Reports whether the stored registry option hashes to $hash.
	 *
	 * @param string $hash The hash it should have.
	 * @return bool
	 */
	private static function stored_is_intact( $hash ) {
		$stored = get_option( self::OPTION );
		return is_string( $stored ) && self::hash( $stored ) === $hash;
	}

	/**
	 * Encodes the registry as it is stored.
	 *
	 * @param array $registry The registry.
	 * @return string
	 */
	public static function encode( array $registry ) {
		return (string) wp_json_encode( $registry, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE );
	}

	/**
	 * The sha256 of the stored JSON without its generated_gmt member, so
	 * that an unchanged registry hashes the same at any time.
	 *
	 * @param string $json The registry's JSON.
	 * @return string
	 */
	public static function hash( $json ) {
		return hash( 'sha256', (string) preg_replace( '/,"generated_gmt":"[^"]*"/', '', $json, 1 ) );
	}

	/**
	 * Builds the registry from the registered types and taxonomies.
	 *
	 * @return array|null Null when the labels cannot be had in the site's
	 *                    locale in this request.
	 */
	public static function build() {
		global $wp_version;
		$labels = WPLoadMore_Labels::site_labels();
		if ( null === $labels ) {
			return null;
		}
		$post_types = array();
		foreach ( get_post_types( array(), 'objects' ) as $name => $type ) {
			$post_types[ $name ] = self::post_type( $type, $labels['post_types'][ $name ] );
		}
		$taxonomies = array();
		foreach ( get_taxonomies( array(), 'objects' ) as $name => $taxonomy ) {
			$taxonomies[ $name ] = self::taxonomy( $taxonomy, $labels['taxonomies'][ $name ] );
		}
		$query_vars = isset( $GLOBALS['wp'] ) ? $GLOBALS['wp']->public_query_vars : array();
		if ( is_admin() ) {
			// The admin adds the query vars of taxonomies that are not
			// publicly queryable; the front end does not.
			foreach ( get_taxonomies( array( 'publicly_queryable' => false ), 'objects' ) as $taxonomy ) {
				$query_vars = array_diff( $query_vars, array( $taxonomy->query_var ) );
			}
		}
		return array(
			'schema'            => self::SCHEMA,
			'generated_gmt'     => gmdate( 'Y-m-d H:i:s' ),
			'wordpress'         => (string) $wp_version,
			'plugin'            => WPLOADMORE_VERSION,
			'locale'            => get_locale(),
			'post_types'        => (object) $post_types,
			'taxonomies'        => (object) $taxonomies,
			'public_query_vars' => array_values( array_unique( array_map( 'strval', (array) apply_filters( 'query_vars', $query_vars ) ) ) ),
			'hidden_terms'      => self::hidden_terms(),
		);
	}

	/**
	 * One post type's entry.
	 *
	 * @param WP_Post_Type $type   The registered type.
	 * @param array        $labels Its labels in the site's locale.
	 * @return array
	 */
	private static function post_type( $type, array $labels ) {
		$rewrite = self::rewrite( $type->rewrite, $type->name, true );
		// As get_post_type_archive_link() computes it.
		$archive_slug = '';
		if ( $type->has_archive ) {
			if ( is_string( $type->has_archive ) ) {
				$archive_slug = $type->has_archive;
			} elseif ( $rewrite ) {
				$archive_slug = $rewrite['slug'];
			} else {
				$archive_slug = $type->name;
			}
		}
		return array(
			'public'              => (bool) $type->public,
			'publicly_queryable'  => (bool) $type->publicly_queryable,
			'exclude_from_search' => (bool) $type->exclude_from_search,
			'hierarchical'        => (bool) $type->hierarchical,
			'has_archive'         => (bool) $type->has_archive,
			'archive_slug'        => (string) $archive_slug,
			'rewrite'             => $rewrite,
			'permastruct'         => self::permastruct( $type->name ),
			'query_var'           => self::query_var( $type->query_var ),
			'labels'              => $labels,
		);
	}

	/**
	 * One taxonomy's entry.
	 *
	 * @param WP_Taxonomy $taxonomy The registered taxonomy.
	 * @param array       $labels   Its labels in the site's locale.
	 * @return array
	 */
	private static function taxonomy( $taxonomy, array $labels ) {
		$rewrite = self::rewrite( $taxonomy->rewrite, $taxonomy->name, false );
		return array(
			'public'             => (bool) $taxonomy->public,
			'publicly_queryable' => (bool) $taxonomy->publicly_queryable,
			'hierarchical'       => (bool) $taxonomy->hierarchical,
			'rewrite'            => $rewrite,
			'permastruct'        => self::permastruct( $taxonomy->name ),
			// WordPress drops it for a taxonomy that is not publicly
			// queryable, but in the admin only.
			'query_var'          => $taxonomy->publicly_queryable ? self::query_var( $taxonomy->query_var ) : false,
			'object_types'       => array_values( array_map( 'strval', (array) $taxonomy->object_type ) ),
			'labels'             => $labels,
		);
	}

	/**
	 * The rewrite settings with WordPress's defaults filled in. WordPress
	 * fills them (WP_Post_Type::set_props(), WP_Taxonomy::set_props())
	 * only in the admin or with pretty permalinks, so a front-end request
	 * on plain permalinks holds the arguments as registered: filled here
	 * the same way, the registry is the same whichever request builds it.
	 *
	 * @param mixed  $rewrite   The registered object's rewrite.
	 * @param string $name      The post type or taxonomy.
	 * @param bool   $post_type Whether it is a post type (which has pages).
	 * @return array|false
	 */
	private static function rewrite( $rewrite, $name, $post_type ) {
		if ( false === $rewrite ) {
			return false;
		}
		$rewrite = is_array( $rewrite ) ? $rewrite : array();
		$slug    = empty( $rewrite['slug'] ) ? ( $post_type ? $name : sanitize_title_with_dashes( $name ) ) : $rewrite['slug'];
		$filled  = array(
			'slug'         => (string) $slug,
			'with_front'   => isset( $rewrite['with_front'] ) ? (bool) $rewrite['with_front'] : true,
			'hierarchical' => ! empty( $rewrite['hierarchical'] ),
		);
		if ( $post_type ) {
			$filled['pages'] = isset( $rewrite['pages'] ) ? (bool) $rewrite['pages'] : true;
		}
		return $filled;
	}

	/**
	 * The extra permastruct WordPress holds for $name, front applied; ""
	 * with plain permalinks or none.
	 *
	 * @param string $name A post type or taxonomy.
	 * @return string
	 */
	private static function permastruct( $name ) {
		global $wp_rewrite;
		$struct = $wp_rewrite ? $wp_rewrite->get_extra_permastruct( $name ) : false;
		return is_string( $struct ) ? $struct : '';
	}

	/**
	 * A query_var as the registry holds it: a string, or false for none.
	 *
	 * @param mixed $query_var The registered object's query_var.
	 * @return string|false
	 */
	private static function query_var( $query_var ) {
		return is_string( $query_var ) && '' !== $query_var ? $query_var : false;
	}

	/**
	 * The wploadmore_hidden_terms filter's entries, kept only when well
	 * formed: a taxonomy, a positive term_taxonomy_id, a slug, post types
	 * (empty for all) and at least one known context.
	 *
	 * @return array
	 */
	private static function hidden_terms() {
		$entries = apply_filters( 'wploadmore_hidden_terms', array() );
		$terms   = array();
		foreach ( is_array( $entries ) ? $entries : array() as $entry ) {
			if ( ! is_array( $entry ) || empty( $entry['taxonomy'] ) || empty( $entry['slug'] ) || empty( $entry['term_taxonomy_id'] ) ) {
				continue;
			}
			$contexts = array_values( array_intersect( self::CONTEXTS, (array) ( isset( $entry['contexts'] ) ? $entry['contexts'] : array() ) ) );
			$ttid     = (int) $entry['term_taxonomy_id'];
			if ( ! $contexts || $ttid <= 0 ) {
				continue;
			}
			$terms[] = array(
				'taxonomy'         => sanitize_key( $entry['taxonomy'] ),
				'term_taxonomy_id' => $ttid,
				'slug'             => (string) $entry['slug'],
				'post_types'       => array_values( array_map( 'sanitize_key', (array) ( isset( $entry['post_types'] ) ? $entry['post_types'] : array() ) ) ),
				'contexts'         => $contexts,
			);
		}
		return $terms;
	}
}
