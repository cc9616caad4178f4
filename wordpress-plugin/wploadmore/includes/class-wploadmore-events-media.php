<?php
/**
 * Change events for featured images: the posts whose card an image's
 * change changes.
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * Names, in the request's event, the published posts whose featured image
 * changed: a post's `_thumbnail_id`, or the attachment rows the server
 * shows of a featured image (its file, metadata and alt text), so that the
 * server reads again only the listings that hold those posts. When they
 * cannot be told (too many, or the query failed), the event names the
 * attachment alone and no post types: unknown scope. See docs/push.md.
 */
class WPLoadMore_Events_Media {

	/**
	 * The attachment's meta keys the server shows of a featured image.
	 */
	const KEYS = array( '_wp_attached_file', '_wp_attachment_metadata', '_wp_attachment_image_alt' );

	/**
	 * The most posts an event names for one image; beyond, its scope is
	 * unknown, as the server bounds the posts it reads for kept searches.
	 */
	const MAX_POSTS = 256;

	/**
	 * Hooks the listeners.
	 */
	public static function hook() {
		foreach ( array( 'added_post_meta', 'updated_post_meta', 'deleted_post_meta' ) as $hook ) {
			add_action( $hook, array( __CLASS__, 'meta' ), 10, 3 );
		}
		add_action( 'delete_post_meta', array( __CLASS__, 'deleting' ), 10, 4 );
	}

	/**
	 * A post's featured image, or an attachment's row the server shows,
	 * added, updated or deleted.
	 *
	 * @param int|array $meta_ids  The meta row(s).
	 * @param int       $object_id The post's ID; 0 when WordPress deleted a key of every post.
	 * @param string    $meta_key  The key.
	 */
	public static function meta( $meta_ids, $object_id, $meta_key ) {
		$object_id = (int) $object_id;
		// 0 is delete_metadata( ..., delete_all ), seen by deleting(); and
		// get_post( 0 ) would be the global post.
		if ( $object_id <= 0 ) {
			return;
		}
		if ( '_thumbnail_id' === $meta_key ) {
			$post = get_post( $object_id );
			if ( $post && 'publish' === $post->post_status && WPLoadMore_Events::listed_type( $post ) ) {
				WPLoadMore_Events::note_post( $post, 'media' );
			}
			return;
		}
		if ( in_array( $meta_key, self::KEYS, true ) && 'attachment' === get_post_type( $object_id ) ) {
			self::note( self::featuring( 'attachment', array( $object_id ) ), $object_id );
		}
	}

	/**
	 * A key deleted from every post at once (delete_all, which names no
	 * post): for `_thumbnail_id`, as wp_delete_attachment() deletes those
	 * featuring the image, the posts, read by the rows while they are
	 * there; for an attachment's key, unknown scope.
	 *
	 * @param string[] $meta_ids   The rows to be deleted.
	 * @param int      $object_id  0 with delete_all.
	 * @param string   $meta_key   The key.
	 * @param mixed    $meta_value The value asked for: the attachment.
	 */
	public static function deleting( $meta_ids, $object_id, $meta_key, $meta_value ) {
		if ( (int) $object_id > 0 || ! $meta_ids ) {
			return;
		}
		if ( '_thumbnail_id' === $meta_key ) {
			$attachment = is_numeric( $meta_value ) ? (int) $meta_value : 0;
			self::note( self::featuring( 'meta_id', array_map( 'intval', (array) $meta_ids ) ), $attachment );
		} elseif ( in_array( $meta_key, self::KEYS, true ) ) {
			self::note( null, 0 );
		}
	}

	/**
	 * Notes the posts found, or, when they are not known, the attachment
	 * with unknown scope.
	 *
	 * @param object[]|null $posts      The posts, null when not known.
	 * @param int           $attachment The attachment, 0 if none.
	 */
	private static function note( $posts, $attachment ) {
		if ( null === $posts ) {
			WPLoadMore_Events::note_unscoped( 'media', $attachment > 0 ? array( $attachment ) : array() );
		} elseif ( $posts ) {
			WPLoadMore_Events::note_posts( $posts, 'media' );
		}
	}

	/**
	 * The published posts of listed types that feature an attachment, or
	 * that the `_thumbnail_id` rows of meta_ids belong to: one query, at
	 * most MAX_POSTS; null for more, or when the query failed. The image
	 * is matched as the server reads it (the value cast to a number).
	 *
	 * @param string $by     'attachment' (one ID) or 'meta_id' (IDs).
	 * @param int[]  $values The IDs.
	 * @return object[]|null Rows of ID, post_type, post_author, post_date.
	 */
	private static function featuring( $by, array $values ) {
		global $wpdb;
		$types = array_values(
			array_filter(
				get_post_types(),
				function ( $type ) {
					return 'revision' !== $type && 'attachment' !== $type && is_post_type_viewable( $type );
				}
			)
		);
		if ( ! $types || ! $values ) {
			return array();
		}
		$match = 'meta_id' === $by
			? 'm.meta_key = \'_thumbnail_id\' AND m.meta_id IN (' . implode( ',', array_fill( 0, count( $values ), '%d' ) ) . ')'
			: 'm.meta_key = \'_thumbnail_id\' AND CAST(m.meta_value AS UNSIGNED) = %d';
		$in    = implode( ',', array_fill( 0, count( $types ), '%s' ) );
		// STRAIGHT_JOIN: the rows of the key (its index) lead, each post
		// read by its ID; left to itself MariaDB scans every published
		// post by type_status_date instead, ten times as long on a large
		// site (docs/push.md). A post featuring the image twice comes
		// twice, noted once.
		// phpcs:disable WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQL.InterpolatedNotPrepared, WordPress.DB.PreparedSQLPlaceholders
		$rows = $wpdb->get_results(
			$wpdb->prepare(
				"SELECT STRAIGHT_JOIN p.ID, p.post_type, p.post_author, p.post_date FROM {$wpdb->postmeta} AS m JOIN {$wpdb->posts} AS p ON p.ID = m.post_id WHERE $match AND p.post_status = 'publish' AND p.post_type IN ($in) LIMIT %d",
				array_merge( $values, $types, array( self::MAX_POSTS + 1 ) )
			)
		);
		// phpcs:enable
		if ( ! is_array( $rows ) || '' !== $wpdb->last_error || count( $rows ) > self::MAX_POSTS ) {
			return null;
		}
		return $rows;
	}
}
