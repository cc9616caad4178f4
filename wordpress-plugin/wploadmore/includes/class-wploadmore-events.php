<?php
/**
 * Change events: what a request changed that the server lists, gathered
 * while it runs and sent once, at shutdown.
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * Listens to the hooks that change what the server shows and sends one
 * event a request naming what changed (never content): see docs/push.md.
 */
class WPLoadMore_Events {

	/**
	 * The wire format's version, the event's "v".
	 */
	const SCHEMA = 1;

	/**
	 * The options the server reads (besides the registry).
	 */
	const OPTIONS = array(
		'blogname',
		'date_format',
		'timezone_string',
		'gmt_offset',
		'permalink_structure',
		'home',
		'siteurl',
		'category_base',
		'tag_base',
		'default_category',
		'show_on_front',
		'page_on_front',
		'page_for_posts',
		'posts_per_page',
		'upload_url_path',
		'upload_path',
		'thumbnail_size_w',
		'thumbnail_size_h',
		'medium_size_w',
		'medium_size_h',
		'medium_large_size_w',
		'medium_large_size_h',
		'large_size_w',
		'large_size_h',
		'sticky_posts',
		'WPLANG',
	);

	/**
	 * The post fields whose edit on a published post changes a listing.
	 */
	const FIELDS = array( 'post_title', 'post_content', 'post_excerpt', 'post_date', 'post_author', 'post_name', 'post_password', 'post_parent', 'menu_order' );

	/**
	 * What this request changed so far: a set per field of the event, and
	 * 'unscoped' once a change's posts could not be told.
	 *
	 * @var array
	 */
	private static $pending = array();

	/**
	 * Hooks the listeners and the send at shutdown.
	 */
	public static function hook() {
		add_action( 'transition_post_status', array( __CLASS__, 'transition' ), 10, 3 );
		add_action( 'post_updated', array( __CLASS__, 'updated' ), 10, 3 );
		add_action( 'before_delete_post', array( __CLASS__, 'deleting' ), 10, 1 );
		add_action( 'deleted_post', array( __CLASS__, 'deleted' ), 10, 1 );
		add_action( 'trashed_post', array( __CLASS__, 'trashed' ), 10, 1 );
		foreach ( array( 'created_term', 'edited_term' ) as $hook ) {
			add_action( $hook, array( __CLASS__, 'term' ), 10, 3 );
		}
		add_action( 'delete_term', array( __CLASS__, 'term_deleted' ), 10, 5 );
		add_action( 'set_object_terms', array( __CLASS__, 'object_terms' ), 10, 6 );
		add_action( 'profile_update', array( __CLASS__, 'user' ), 10, 2 );
		add_action( 'added_option', array( __CLASS__, 'option_added' ), 10, 1 );
		add_action( 'updated_option', array( __CLASS__, 'option' ), 10, 3 );
		add_action( 'deleted_option', array( __CLASS__, 'option_added' ), 10, 1 );
		add_action( 'shutdown', array( __CLASS__, 'send' ), 1 );
	}

	/**
	 * Whether a post is one the server may list: a viewable type.
	 *
	 * @param WP_Post $post The post.
	 * @return bool
	 */
	public static function listed_type( $post ) {
		return $post instanceof WP_Post && 'revision' !== $post->post_type && is_post_type_viewable( $post->post_type );
	}

	/**
	 * Adds values to a field of the pending event.
	 *
	 * @param string $field  The field.
	 * @param array  $values Its new values.
	 */
	private static function add( $field, array $values ) {
		foreach ( $values as $v ) {
			self::$pending[ $field ][ (string) $v ] = $v;
		}
	}

	/**
	 * Notes a change of $kind.
	 *
	 * @param string $kind The kind: post, term, media, user, option, registry, activated, deactivated, heartbeat.
	 */
	public static function note( $kind ) {
		self::add( 'kinds', array( $kind ) );
	}

	/**
	 * Notes a post: its ID, type, author, date and terms.
	 *
	 * @param WP_Post $post The post, as it is or was.
	 * @param string  $kind The kind of change.
	 */
	public static function note_post( $post, $kind = 'post' ) {
		self::note_posts( array( $post ), $kind );
	}

	/**
	 * Notes posts as note_post() does, their terms read in one query per
	 * post type.
	 *
	 * @param object[] $posts The posts (WP_Post, or rows of ID, post_type, post_author, post_date).
	 * @param string   $kind  The kind of change.
	 */
	public static function note_posts( array $posts, $kind = 'post' ) {
		self::note( $kind );
		$by_type = array();
		foreach ( $posts as $post ) {
			self::add( 'posts', array( (int) $post->ID ) );
			self::add( 'post_types', array( $post->post_type ) );
			self::add( 'authors', array( (int) $post->post_author ) );
			self::add( 'dates', array( substr( $post->post_date, 0, 10 ) ) );
			$by_type[ $post->post_type ][] = (int) $post->ID;
		}
		foreach ( $by_type as $type => $ids ) {
			$taxonomies = get_object_taxonomies( $type );
			if ( $taxonomies ) {
				$terms = wp_get_object_terms( $ids, $taxonomies, array( 'fields' => 'ids' ) );
				if ( is_array( $terms ) ) {
					self::add( 'terms', array_map( 'intval', $terms ) );
				}
			}
		}
	}

	/**
	 * Notes a change of $kind whose posts are not known: the event then
	 * names no post types, which the server takes as unknown scope.
	 *
	 * @param string $kind The kind of change.
	 * @param int[]  $ids  What it names (an attachment).
	 */
	public static function note_unscoped( $kind, array $ids ) {
		self::note( $kind );
		self::add( 'posts', array_map( 'intval', $ids ) );
		self::$pending['unscoped'] = true;
	}

	/**
	 * A post entering or leaving publish.
	 *
	 * @param string  $new_status The new status.
	 * @param string  $old_status The old status.
	 * @param WP_Post $post       The post.
	 */
	public static function transition( $new_status, $old_status, $post ) {
		if ( ( 'publish' === $new_status ) !== ( 'publish' === $old_status ) && self::listed_type( $post ) ) {
			self::note_post( $post );
		}
	}

	/**
	 * An edit of a published post that changes what a listing shows.
	 *
	 * @param int     $id     The post's ID.
	 * @param WP_Post $after  The post after.
	 * @param WP_Post $before The post before.
	 */
	public static function updated( $id, $after, $before ) {
		if ( 'publish' !== $after->post_status || 'publish' !== $before->post_status || ! self::listed_type( $after ) ) {
			return;
		}
		foreach ( self::FIELDS as $field ) {
			if ( (string) $after->$field !== (string) $before->$field ) {
				self::note_post( $after );
				self::note_post( $before );
				return;
			}
		}
	}

	/**
	 * A published post about to be deleted: noted while its terms are there.
	 *
	 * @param int $id The post's ID.
	 */
	public static function deleting( $id ) {
		$post = get_post( $id );
		if ( $post && 'publish' === $post->post_status && self::listed_type( $post ) ) {
			self::note_post( $post );
		}
	}

	/**
	 * A post deleted: deleting() noted it if it was listed.
	 *
	 * @param int $id The post's ID.
	 */
	public static function deleted( $id ) {
		if ( isset( self::$pending['posts'][ (string) $id ] ) ) {
			self::note( 'post' );
		}
	}

	/**
	 * A post trashed: listed if it was published before.
	 *
	 * @param int $id The post's ID.
	 */
	public static function trashed( $id ) {
		$post = get_post( $id );
		if ( $post && 'publish' === get_post_meta( $id, '_wp_trash_meta_status', true ) && self::listed_type( $post ) ) {
			self::note_post( $post );
		}
	}

	/**
	 * A term created or edited.
	 *
	 * @param int    $term_id  The term's ID.
	 * @param int    $tt_id    Its term_taxonomy_id.
	 * @param string $taxonomy Its taxonomy.
	 */
	public static function term( $term_id, $tt_id, $taxonomy ) {
		self::note( 'term' );
		self::add( 'terms', array( (int) $term_id ) );
		self::add( 'taxonomies', array( $taxonomy ) );
	}

	/**
	 * A term deleted, with the posts it had.
	 *
	 * @param int    $term_id    The term's ID.
	 * @param int    $tt_id      Its term_taxonomy_id.
	 * @param string $taxonomy   Its taxonomy.
	 * @param mixed  $deleted    The deleted term.
	 * @param array  $object_ids The posts it had.
	 */
	public static function term_deleted( $term_id, $tt_id, $taxonomy, $deleted, $object_ids ) {
		self::term( $term_id, $tt_id, $taxonomy );
		self::add( 'posts', array_map( 'intval', (array) $object_ids ) );
	}

	/**
	 * A published post's terms set: the post, and the terms added and
	 * removed for the listings they scope, with no term kind: the terms
	 * themselves did not change, and that kind has the server read them all.
	 *
	 * @param int    $object_id  The post's ID.
	 * @param array  $terms      The terms given.
	 * @param array  $tt_ids     The term_taxonomy_ids it has now.
	 * @param string $taxonomy   The taxonomy.
	 * @param bool   $append     Whether they were added to the old.
	 * @param array  $old_tt_ids The term_taxonomy_ids it had.
	 */
	public static function object_terms( $object_id, $terms, $tt_ids, $taxonomy, $append, $old_tt_ids ) {
		$post    = get_post( $object_id );
		$changed = array_merge( array_diff( $tt_ids, $old_tt_ids ), array_diff( $old_tt_ids, $tt_ids ) );
		if ( ! $changed || ! $post || 'publish' !== $post->post_status || ! self::listed_type( $post ) ) {
			return;
		}
		self::note_post( $post );
		foreach ( $changed as $tt_id ) {
			$term = get_term_by( 'term_taxonomy_id', (int) $tt_id, $taxonomy );
			if ( $term ) {
				self::add( 'terms', array( (int) $term->term_id ) );
				self::add( 'taxonomies', array( $taxonomy ) );
			}
		}
	}

	/**
	 * A user's display name or nicename changed: the author's listing.
	 *
	 * @param int     $user_id The user's ID.
	 * @param WP_User $old     The user before.
	 */
	public static function user( $user_id, $old ) {
		$user = get_userdata( $user_id );
		if ( ! $user || ! $old || ( $user->display_name === $old->display_name && $user->user_nicename === $old->user_nicename ) ) {
			return;
		}
		self::note( 'user' );
		self::add( 'authors', array( (int) $user_id ) );
	}

	/**
	 * An option the server reads added or deleted.
	 *
	 * @param string $name The option.
	 */
	public static function option_added( $name ) {
		self::option( $name, array(), array() );
	}

	/**
	 * An option the server reads, or the registry, changed; for sticky
	 * posts, the posts made or unmade sticky.
	 *
	 * @param string $name The option.
	 * @param mixed  $old  Its old value.
	 * @param mixed  $new  Its new value.
	 */
	public static function option( $name, $old, $new ) {
		if ( 'wploadmore_registry' === $name ) {
			self::note( 'registry' );
			return;
		}
		if ( ! in_array( $name, self::OPTIONS, true ) ) {
			return;
		}
		self::note( 'option' );
		self::add( 'options', array( $name ) );
		if ( 'sticky_posts' === $name && is_array( $old ) && is_array( $new ) ) {
			self::add( 'posts', array_map( 'intval', array_merge( array_diff( $old, $new ), array_diff( $new, $old ) ) ) );
		}
	}

	/**
	 * The event this request sends, or null: each field's values in
	 * order, numbers as numbers.
	 *
	 * @return array|null
	 */
	public static function pending() {
		if ( empty( self::$pending['kinds'] ) ) {
			return null;
		}
		$event = array(
			'v'       => self::SCHEMA,
			'time_ms' => (int) round( microtime( true ) * 1000 ),
		);
		foreach ( array( 'kinds', 'posts', 'post_types', 'terms', 'taxonomies', 'authors', 'dates', 'options' ) as $field ) {
			$values = isset( self::$pending[ $field ] ) ? array_values( self::$pending[ $field ] ) : array();
			sort( $values );
			$event[ $field ] = $values;
		}
		if ( ! empty( self::$pending['unscoped'] ) ) {
			$event['post_types'] = array();
		}
		return $event;
	}

	/**
	 * Sends the request's event, if any, once: at shutdown, or at
	 * deactivation. A Redis that fails costs the request at most
	 * WPLoadMore_Redis::TIMEOUT twice and leaves the server polling.
	 */
	public static function send() {
		$event          = self::pending();
		self::$pending = array();
		if ( null === $event || ! extension_loaded( 'redis' ) || '' === WPLoadMore_Redis::url() ) {
			return;
		}
		try {
			WPLoadMore_Redis::send( $event );
		} catch ( Exception $e ) {
			// The page goes on; the server sees the silence and polls, and
			// Site Health says Redis does not answer.
			return;
		}
	}

	/**
	 * The plugin activated: the server learns events flow again, and the
	 * heartbeat starts.
	 */
	public static function activate() {
		self::note( 'activated' );
		WPLoadMore_Events_Heartbeat::schedule();
	}

	/**
	 * The plugin deactivated: sent at once, so the server polls again; the
	 * heartbeat stops.
	 */
	public static function deactivate() {
		WPLoadMore_Events_Heartbeat::unschedule();
		self::note( 'deactivated' );
		self::send();
	}
}
