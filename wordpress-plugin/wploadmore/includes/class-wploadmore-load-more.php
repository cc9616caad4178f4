<?php
/**
 * The [wploadmore] shortcode and the wploadmore/load-more block.
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * Renders a listing's first batch in the page, with the card template for
 * the browser and a link to WordPress's next page that the script turns
 * into "load more" from the server.
 */
class WPLoadMore_Load_More {

	/**
	 * The listing's outer element: a custom element, so that
	 * no_texturize_tags can name it (see no_texturize()).
	 */
	const ELEMENT = 'wploadmore-listing';

	/**
	 * Registers the shortcode, the block, the assets and the words.
	 */
	public static function hook() {
		add_action( 'init', array( __CLASS__, 'register' ) );
		add_action( 'wp_enqueue_scripts', array( __CLASS__, 'enqueue_early' ) );
		add_filter( 'no_texturize_tags', array( __CLASS__, 'no_texturize' ) );
	}

	/**
	 * Keeps wptexturize() out of the listing. A block theme texturizes the
	 * whole rendered template (get_the_block_template_html()), and the_content
	 * a block in a post, so the first batch would read "…" and curled quotes
	 * where the cards the script adds from the server's JSON read "..." and
	 * straight ones. wptexturize() names an element by what follows "<" up
	 * to the first space (_wptexturize_pushpop_element()), so only an element
	 * of our own, never a div, can be named here without touching the theme's.
	 *
	 * @param string[] $tags The elements wptexturize() leaves alone.
	 * @return string[]
	 */
	public static function no_texturize( $tags ) {
		$tags   = (array) $tags;
		$tags[] = self::ELEMENT;
		return $tags;
	}

	/**
	 * Loads the words, registers the assets, the shortcode and the block.
	 */
	public static function register() {
		self::load_words();
		$url = plugins_url( '', WPLOADMORE_FILE );
		wp_register_script( 'wploadmore-mustache', $url . '/assets/vendor/mustache.min.js', array(), '4.2.0', true );
		// WordPress 6.3 reads strategy; 6.1 reads the array as in_footer.
		wp_register_script(
			'wploadmore',
			$url . '/assets/wploadmore.js',
			array( 'wploadmore-mustache' ),
			WPLOADMORE_VERSION,
			array(
				'in_footer' => true,
				'strategy'  => 'defer',
			)
		);
		wp_register_style( 'wploadmore', $url . '/assets/wploadmore.css', array(), WPLOADMORE_VERSION );
		add_shortcode( 'wploadmore', array( __CLASS__, 'shortcode' ) );
		register_block_type(
			dirname( WPLOADMORE_FILE ) . '/blocks/load-more',
			array( 'render_callback' => array( __CLASS__, 'block' ) )
		);
	}

	/**
	 * Loads the widget's catalogue, which the plugin ships under the same
	 * text domain: WP_LANG_DIR's copy first, as load_plugin_textdomain()
	 * looks, then the plugin's languages folder, in plugins and
	 * mu-plugins alike.
	 */
	private static function load_words() {
		$dir = dirname( WPLOADMORE_FILE );
		if ( defined( 'WPMU_PLUGIN_DIR' ) && 0 === strpos( wp_normalize_path( $dir ), wp_normalize_path( WPMU_PLUGIN_DIR ) ) ) {
			load_muplugin_textdomain( 'wploadmore', basename( $dir ) . '/languages' );
			return;
		}
		load_plugin_textdomain( 'wploadmore', false, basename( $dir ) . '/languages' );
	}

	/**
	 * Puts the stylesheet in the head when the page's own content holds
	 * the shortcode or block, so the first batch never shifts when it
	 * arrives in the footer.
	 */
	public static function enqueue_early() {
		$post = get_queried_object();
		if ( $post instanceof WP_Post && ( has_shortcode( $post->post_content, 'wploadmore' ) || has_block( 'wploadmore/load-more', $post ) ) ) {
			wp_enqueue_style( 'wploadmore' );
		}
	}

	/**
	 * The shortcode's output.
	 *
	 * @param array|string $atts The shortcode's attributes.
	 * @return string
	 */
	public static function shortcode( $atts ) {
		$atts = shortcode_atts( WPLoadMore_Listing::defaults(), is_array( $atts ) ? $atts : array(), 'wploadmore' );
		return self::render( WPLoadMore_Listing::sanitize( $atts ) );
	}

	/**
	 * The block's output.
	 *
	 * @param array $attributes The block's attributes.
	 * @return string
	 */
	public static function block( $attributes ) {
		$atts = array_merge( WPLoadMore_Listing::defaults(), array_intersect_key( (array) $attributes, WPLoadMore_Listing::defaults() ) );
		foreach ( array( 'category', 'tag', 'terms', 'author' ) as $list ) {
			if ( is_array( $atts[ $list ] ) ) {
				$atts[ $list ] = implode( ',', array_map( 'strval', $atts[ $list ] ) );
			}
		}
		$html = self::render( WPLoadMore_Listing::sanitize( $atts ) );
		if ( 0 === strpos( $html, '<!--' ) ) {
			return $html;
		}
		// The block's wrapper classes and styles go on the listing's element.
		$wrapper = get_block_wrapper_attributes( array( 'class' => 'wploadmore' ) );
		return preg_replace( '/^<' . self::ELEMENT . ' class="wploadmore"/', '<' . self::ELEMENT . ' ' . $wrapper, $html, 1 );
	}

	/**
	 * The server's JSON endpoint: WPLOADMORE_SERVER, else the
	 * wploadmore_server option, else load-more.php at the site's home.
	 *
	 * @return string
	 */
	public static function endpoint() {
		if ( defined( 'WPLOADMORE_SERVER' ) && '' !== (string) WPLOADMORE_SERVER ) {
			return (string) WPLOADMORE_SERVER;
		}
		$option = (string) get_option( 'wploadmore_server', '' );
		return '' !== $option ? $option : home_url( '/load-more.php' );
	}

	/**
	 * The listing for sanitized attributes, or an HTML comment that tells
	 * an editor why there is none.
	 *
	 * @param array $atts Sanitized attributes.
	 * @return string
	 */
	public static function render( array $atts ) {
		$listing = WPLoadMore_Listing::from_atts( $atts );
		if ( is_wp_error( $listing ) ) {
			return '<!-- wploadmore: ' . str_replace( '--', '- -', esc_html( $listing->get_error_message() ) ) . ' -->';
		}
		if ( array() === $listing->posts ) {
			return '<!-- wploadmore: no posts to list -->';
		}
		$template = WPLoadMore_Card::template();
		$extra    = array(
			/* translators: WordPress's own words for a protected post's excerpt. */
			'protected_excerpt' => __( 'There is no excerpt because this is a protected post.' ), // phpcs:ignore WordPress.WP.I18n.MissingArgDomain -- WordPress's own words, as get_the_excerpt() shows them.
		);
		$cards    = '';
		foreach ( $listing->posts as $post ) {
			$cards .= WPLoadMore_Card::render( $template['text'], WPLoadMore_Card::record( $post ), $extra );
		}
		$last  = end( $listing->posts );
		$batch = $atts['batch'] ? $atts['batch'] : max( 1, min( 100, count( $listing->posts ) ) );
		$data  = array(
			'endpoint' => self::endpoint(),
			'query'    => $listing->query(),
			'batch'    => $batch,
			'lastPost' => (int) $last->ID,
			'start'    => $listing->start,
			'words'    => self::words( $batch ),
			'view'     => $extra,
		);
		$more  = '' !== $atts['more'] ? $atts['more'] : __( 'More posts', 'wploadmore' );
		wp_enqueue_style( 'wploadmore' );
		wp_enqueue_script( 'wploadmore' );
		$html  = '<' . self::ELEMENT . ' class="wploadmore" data-wploadmore="' . esc_attr( wp_json_encode( $data ) ) . '">';
		$html .= '<div class="wploadmore-list">' . $cards . '</div>';
		$html .= '<script type="text/x-mustache" class="wploadmore-template">' . self::script_text( $template['text'] ) . '</script>';
		$html .= '<p class="wploadmore-status screen-reader-text" role="status" aria-live="polite"></p>';
		if ( '' !== $listing->next ) {
			$html .= '<a class="wploadmore-more wp-element-button" href="' . esc_url( $listing->next ) . '" rel="next">' . esc_html( $more ) . '</a>';
		}
		return $html . '</' . self::ELEMENT . '>';
	}

	/**
	 * The template's text made safe inside a script element: a "</script"
	 * or "<!--" in it would end or change the element, so its "<" is
	 * written as "\u003C", which the script turns back into "<".
	 *
	 * @param string $text The template.
	 * @return string
	 */
	private static function script_text( $text ) {
		return preg_replace( '#<(?=/script|!--)#i', '\\u003C', $text );
	}

	/**
	 * The words the script shows and announces, in the site's language:
	 * the widget's catalogue's, with loaded[n - 1] the announcement for n
	 * posts, as _n() picks its plural form.
	 *
	 * @param int $batch Posts per batch.
	 * @return array
	 */
	private static function words( $batch ) {
		$loaded = array();
		for ( $n = 1; $n <= $batch; $n++ ) {
			/* translators: Read out by screen readers after a click added posts. %s: how many were added. */
			$loaded[] = sprintf( _n( '%s more post loaded.', '%s more posts loaded.', $n, 'wploadmore' ), number_format_i18n( $n ) );
		}
		/* translators: The state of the "more" control while the next posts load. */
		$loading = __( 'Loading…', 'wploadmore' );
		if ( 'Loading…' === $loading && 0 !== strpos( determine_locale(), 'en' ) ) {
			// The widget's catalogue has no such words: rather than English
			// in another language's page, the control keeps its own.
			$loading = '';
		}
		return array(
			'loading' => $loading,
			'loaded'  => $loaded,
			/* translators: Shown and read out once the last post of the site is on the page: there are no more posts to load. */
			'end'     => __( 'No more data', 'wploadmore' ),
		);
	}
}
