<?php
/**
 * The theme's numbered pagination replaced by "load more".
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * On the home page, archives and search results, replaces the theme's
 * listing and its numbered pagination with the inherit listing of
 * WPLoadMore_Load_More, when WPLOADMORE_REPLACE_PAGINATION or the option
 * wploadmore_replace_pagination says so.
 *
 * A classic theme's main loop is caught as Jetpack's Infinite Scroll
 * catches it: what the loop prints is set aside and the listing printed
 * in its place, and the posts navigation after it prints nothing. A block
 * theme's Query Loop that inherits the main query is rendered as the
 * listing instead, its pagination block with it.
 */
class WPLoadMore_Pagination {

	/**
	 * Whether the main loop's output is being set aside.
	 *
	 * @var bool
	 */
	private static $buffering = false;

	/**
	 * Whether this page's listing has been rendered.
	 *
	 * @var bool
	 */
	private static $done = false;

	/**
	 * Hooks the check, made once the main query is known.
	 */
	public static function hook() {
		add_action( 'template_redirect', array( __CLASS__, 'maybe_replace' ) );
	}

	/**
	 * Whether the site replaces pagination: the constant, else the option.
	 *
	 * @return bool
	 */
	public static function enabled() {
		if ( defined( 'WPLOADMORE_REPLACE_PAGINATION' ) ) {
			return (bool) WPLOADMORE_REPLACE_PAGINATION;
		}
		return (bool) get_option( 'wploadmore_replace_pagination', false );
	}

	/**
	 * Hooks the replacement on a listing with posts.
	 */
	public static function maybe_replace() {
		if ( ! self::enabled() || is_feed() || is_embed() || ! ( is_home() || is_archive() || is_search() ) || ! have_posts() ) {
			return;
		}
		// In the head: a classic theme prints the listing after it.
		wp_enqueue_style( 'wploadmore' );
		if ( function_exists( 'wp_is_block_theme' ) && wp_is_block_theme() ) {
			add_filter( 'pre_render_block', array( __CLASS__, 'query_block' ), 10, 2 );
			return;
		}
		add_action( 'loop_start', array( __CLASS__, 'loop_start' ) );
		add_action( 'loop_end', array( __CLASS__, 'loop_end' ) );
		add_filter( 'navigation_markup_template', array( __CLASS__, 'navigation' ), 10, 2 );
	}

	/**
	 * The listing with inherit, as the shortcode renders it.
	 *
	 * @return string
	 */
	private static function listing() {
		$atts            = WPLoadMore_Listing::defaults();
		$atts['inherit'] = true;
		return WPLoadMore_Load_More::render( WPLoadMore_Listing::sanitize( $atts ) );
	}

	/**
	 * Renders a Query Loop that inherits the main query as the listing,
	 * in the Query block's own element, alignment and layout.
	 *
	 * @param string|null $pre   What another filter rendered, or null.
	 * @param array       $block The parsed block.
	 * @return string|null
	 */
	public static function query_block( $pre, $block ) {
		if ( null !== $pre || self::$done || 'core/query' !== $block['blockName'] || empty( $block['attrs']['query']['inherit'] ) ) {
			return $pre;
		}
		self::$done = true;
		$attrs      = $block['attrs'];
		$tag        = isset( $attrs['tagName'] ) && in_array( $attrs['tagName'], array( 'div', 'main', 'section', 'aside' ), true ) ? $attrs['tagName'] : 'div';
		$classes    = array( 'wp-block-query', 'wploadmore-replaced' );
		if ( ! empty( $attrs['align'] ) ) {
			$classes[] = 'align' . sanitize_html_class( $attrs['align'] );
		}
		$layout    = isset( $attrs['layout']['type'] ) && 'constrained' === $attrs['layout']['type'] ? 'constrained' : 'flow';
		$classes[] = 'is-layout-' . $layout;
		return '<' . $tag . ' class="' . esc_attr( implode( ' ', $classes ) ) . '">' . self::listing() . '</' . $tag . '>';
	}

	/**
	 * Sets aside what a classic theme's main loop prints.
	 *
	 * @param WP_Query $query The loop's query.
	 */
	public static function loop_start( $query ) {
		if ( self::$done || ! $query instanceof WP_Query || ! $query->is_main_query() ) {
			return;
		}
		self::$buffering = true;
		ob_start();
		// What the theme's loop prints is dropped: it need not render
		// every post for nothing, which cost a classic theme's archive
		// a fifth of its render. loop_start runs before the_post() takes
		// the first post: the loop goes on from the last, once, then
		// ends (loop_end), as it would after all of them.
		$query->current_post = max( -1, $query->post_count - 2 );
	}

	/**
	 * Drops what the main loop printed and prints the listing in its place.
	 *
	 * @param WP_Query $query The loop's query.
	 */
	public static function loop_end( $query ) {
		if ( ! self::$buffering || ! $query instanceof WP_Query || ! $query->is_main_query() ) {
			return;
		}
		self::$buffering = false;
		self::$done      = true;
		ob_end_clean();
		// entry-content gives the listing the theme's content width.
		echo '<div class="wploadmore-replaced entry-content">' . self::listing() . '</div>'; // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- escaped as it is built.
	}

	/**
	 * Prints nothing for the posts navigation once the listing replaced
	 * the loop; a single post's navigation stays.
	 *
	 * @param string $template The navigation's markup template.
	 * @param string $class    Its class: pagination, posts-navigation …
	 * @return string
	 */
	public static function navigation( $template, $class ) {
		if ( self::$done && in_array( $class, array( 'pagination', 'posts-navigation' ), true ) ) {
			return '';
		}
		return $template;
	}
}
