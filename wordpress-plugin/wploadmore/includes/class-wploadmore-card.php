<?php
/**
 * A post's card: the server's JSON record built in PHP, and the one
 * mustache template both PHP and the browser render it with.
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * Builds the record the server sends for a post, from WordPress's own
 * functions, and renders it with the card template.
 */
class WPLoadMore_Card {

	/**
	 * The file a theme adds, under its folder, to replace the card.
	 */
	const THEME_FILE = 'wploadmore/card.mustache';

	/**
	 * The server's record of a post (docs/api.md, "The record"), its
	 * fields in the server's order.
	 *
	 * @param WP_Post $post The post.
	 * @return array
	 */
	public static function record( WP_Post $post ) {
		$protected = '' !== $post->post_password;
		$title     = WPLoadMore_Text::plain( $post->post_title );
		if ( $protected ) {
			/* translators: %s: Protected post title. WordPress's own string. */
			$title = sprintf( __( 'Protected: %s' ), $title ); // phpcs:ignore WordPress.WP.I18n.MissingArgDomain -- WordPress's own words, as get_the_title() shows them.
		}
		$record = array(
			'ID'           => (int) $post->ID,
			'post_title'   => $post->post_title,
			'post_content' => $protected ? '...' : WPLoadMore_Text::excerpt( $post->post_content ),
			'post_name'    => $post->post_name,
			'post_date'    => $post->post_date,
			'title'        => $title,
			'date'         => mysql2date( get_option( 'date_format' ), $post->post_date ),
			'datetime'     => str_replace( ' ', 'T', $post->post_date ),
			'protected'    => $protected,
			'link'         => get_permalink( $post ),
		);
		$image = $protected ? null : self::image( $post );
		if ( null !== $image ) {
			$record['image'] = $image;
		}
		return $record;
	}

	/**
	 * The featured image as wp_get_attachment_image() renders it, in the
	 * size the server uses (-image-size, medium_large unless set; the
	 * wploadmore_image_size filter keeps the two alike): its attributes
	 * read back as text.
	 *
	 * @param WP_Post $post The post.
	 * @return array|null Null when the post has none.
	 */
	private static function image( WP_Post $post ) {
		$id = (int) get_post_thumbnail_id( $post );
		if ( ! $id ) {
			return null;
		}
		$size = apply_filters( 'wploadmore_image_size', 'medium_large' );
		// image_downsize() passes medium_large and large through
		// image_constrain_size_for_editor(), which caps them at the theme's
		// $content_width in every context, 'display' included (other sizes
		// only in 'edit', in wp-admin): 750 in Twenty Twenty-One. The server
		// knows no theme and sends the size's own dimensions, so the first
		// batch is built with no content width, as the later ones are.
		global $content_width;
		$theme_width   = $content_width;
		$content_width = 0; // phpcs:ignore WordPress.WP.GlobalVariablesOverride.Prohibited -- restored below.
		try {
			$html = wp_get_attachment_image( $id, $size );
		} finally {
			$content_width = $theme_width; // phpcs:ignore WordPress.WP.GlobalVariablesOverride.Prohibited -- the theme's, restored.
		}
		if ( ! preg_match_all( '/ ([a-z-]+)="([^"]*)"/', $html, $m, PREG_SET_ORDER ) ) {
			return null;
		}
		$attrs = array();
		foreach ( $m as $attr ) {
			$attrs[ $attr[1] ] = html_entity_decode( $attr[2], ENT_QUOTES | ENT_HTML5, 'UTF-8' );
		}
		if ( empty( $attrs['src'] ) ) {
			return null;
		}
		$image = array( 'src' => $attrs['src'] );
		// WordPress prints width="1" height="1" for an unknown size; the
		// server leaves both out.
		if ( ! empty( $attrs['width'] ) && ! empty( $attrs['height'] ) && ! ( '1' === $attrs['width'] && '1' === $attrs['height'] ) ) {
			$image['width']  = (int) $attrs['width'];
			$image['height'] = (int) $attrs['height'];
		}
		if ( ! empty( $attrs['srcset'] ) && ! empty( $attrs['sizes'] ) ) {
			$image['srcset'] = $attrs['srcset'];
			$image['sizes']  = $attrs['sizes'];
		}
		$image['alt'] = isset( $attrs['alt'] ) ? $attrs['alt'] : '';
		return $image;
	}

	/**
	 * The card template's text: the theme's wploadmore/card.mustache (a
	 * child theme's before its parent's, as locate_template() finds it),
	 * else the plugin's. A theme's file that cannot be read or parsed
	 * gives the plugin's, so a broken override never breaks a listing.
	 *
	 * @return array array( 'text' => string, 'source' => 'theme'|'plugin', 'file' => string ).
	 */
	public static function template() {
		$file = locate_template( self::THEME_FILE );
		if ( '' !== $file ) {
			$text = is_readable( $file ) ? file_get_contents( $file ) : false; // phpcs:ignore WordPress.WP.AlternativeFunctions.file_get_contents_file_get_contents -- a local file.
			if ( is_string( $text ) && '' !== trim( $text ) ) {
				try {
					WPLoadMore_Mustache::parse( $text );
					return array(
						'text'   => $text,
						'source' => 'theme',
						'file'   => $file,
					);
				} catch ( InvalidArgumentException $e ) {
					// Falls through to the plugin's card.
					unset( $e );
				}
			}
		}
		$file = dirname( WPLOADMORE_FILE ) . '/templates/card.mustache';
		return array(
			'text'   => (string) file_get_contents( $file ), // phpcs:ignore WordPress.WP.AlternativeFunctions.file_get_contents_file_get_contents -- a local file.
			'source' => 'plugin',
			'file'   => $file,
		);
	}

	/**
	 * The view a card is rendered on: the record as the browser decodes it
	 * from JSON, with the listing's extra words ($extra).
	 *
	 * @param array $record A record.
	 * @param array $extra  Extra fields (protected_excerpt).
	 * @return object
	 */
	public static function view( array $record, array $extra ) {
		return json_decode( wp_json_encode( array_merge( $record, $extra ) ) );
	}

	/**
	 * One card: the template rendered on the post's view, inside the
	 * article the script moves the focus to. The browser wraps each later
	 * card the same way (assets/wploadmore.js).
	 *
	 * @param string $template The template's text.
	 * @param array  $record   The post's record.
	 * @param array  $extra    Extra fields of the view.
	 * @return string
	 */
	public static function render( $template, array $record, array $extra ) {
		return '<article class="wploadmore-card" id="wploadmore-post-' . (int) $record['ID'] . '" tabindex="-1">'
			. WPLoadMore_Mustache::render( $template, self::view( $record, $extra ) )
			. '</article>';
	}
}
