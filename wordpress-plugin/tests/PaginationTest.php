<?php
/**
 * The theme's pagination replaced by "load more".
 *
 * @package wploadmore
 */

/**
 * In Twenty Twenty-One (classic) and Twenty Twenty-Three (block), the
 * setting replaces the home page's, archives' and search's listing and
 * numbered pagination with the inherit listing; without it the theme's own
 * stays.
 */
class PaginationTest extends WPLoadMore_Test_Case {

	/**
	 * Links Debian's two themes, installs the plugin and seven posts, odd
	 * ones in category "news", three a page.
	 *
	 * @return array array( 'ids' => newest first, 'news' => term ID ).
	 */
	private function site_with_themes() {
		foreach ( array( 'twentytwentyone', 'twentytwentythree' ) as $theme ) {
			if ( ! is_dir( WPLOADMORE_TEST_ABSPATH . "wp-content/themes/$theme" ) ) {
				$this->fail( "needs Debian's wordpress-theme-$theme package: apt-get install wordpress-theme-$theme" );
			}
			symlink( WPLOADMORE_TEST_ABSPATH . "wp-content/themes/$theme", $this->site->content . "/themes/$theme" );
		}
		$this->install_wploadmore();
		$out = $this->site->php(
			'$news = wp_insert_term( "News", "category", array( "slug" => "news" ) );
$ids = array();
for ( $i = 1; $i <= 7; $i++ ) {
	$ids[] = wp_insert_post( array( "post_title" => "Story $i", "post_content" => "<p>Text of story $i.</p>", "post_status" => "publish", "post_date" => sprintf( "2024-03-%02d 09:00:00", $i ), "post_category" => $i % 2 ? array( $news["term_id"] ) : array( 1 ) ) );
}
wp_delete_post( 1, true );
update_option( "posts_per_page", 3 );
echo json_encode( array( "ids" => array_reverse( $ids ), "news" => $news["term_id"] ) );'
		);
		return json_decode( $out, true );
	}

	/**
	 * Renders the whole page WordPress serves for the query vars $get, in
	 * the current theme, through template-loader.php.
	 *
	 * @param array  $get   The request's query vars.
	 * @param string $extra PHP statements run first (a constant).
	 * @return array array( 'html' => the page, 'main' => the main query's IDs ).
	 */
	private function page( array $get, $extra = '' ) {
		$out = $this->site->php(
			$extra . '
$_GET = ' . var_export( $get, true ) . ';
$_SERVER["REQUEST_URI"] = "/" . ( $_GET ? "?" . http_build_query( $_GET ) : "" );
wp();
add_filter( "wp_using_themes", "__return_true" );
ob_start();
require ABSPATH . WPINC . "/template-loader.php";
$html = ob_get_clean();
echo json_encode( array( "html" => $html, "main" => array_map( "intval", wp_list_pluck( $GLOBALS["wp_query"]->posts, "ID" ) ) ) );'
		);
		$page = json_decode( $out, true );
		$this->assertIsArray( $page, substr( $out, 0, 2000 ) );
		return $page;
	}

	/**
	 * The card IDs of a page's listing, or null when it has none.
	 *
	 * @param string $html A page.
	 * @return int[]|null
	 */
	private static function listing_ids( $html ) {
		if ( ! preg_match( '/<wploadmore-listing class="wploadmore" data-wploadmore="[^"]*">(.*?)<script type="text\/x-mustache"/s', $html, $m ) ) {
			return null;
		}
		preg_match_all( '/<article class="wploadmore-card" id="wploadmore-post-(\d+)"/', $m[1], $ids );
		return array_map( 'intval', $ids[1] );
	}

	/**
	 * The replacement in each theme, on a category archive, the search
	 * and the home page: the listing holds the main query's posts, links
	 * to WordPress's page 2, and the theme's own posts and numbered
	 * pagination are gone; the setting off leaves the theme's.
	 */
	public function test_replaced_in_both_themes() {
		$site  = $this->site_with_themes();
		$cases = array(
			'category' => array( array( 'cat' => (string) $site['news'] ), 'http://example.org/?cat=' . $site['news'] . '&#038;paged=2' ),
			'search'   => array( array( 's' => 'story' ), 'http://example.org/?s=story&#038;paged=2' ),
			'home'     => array( array(), 'http://example.org/?paged=2' ),
		);
		$themes = array(
			'twentytwentyone'   => array( '/<nav class="navigation pagination"/', '/<article id="post-\d+"/' ),
			'twentytwentythree' => array( '/wp-block-query-pagination/', '/wp-block-post-template/' ),
		);
		foreach ( $themes as $theme => $own ) {
			list( $pagination, $posts ) = $own;
			$this->site->php( 'switch_theme( ' . var_export( $theme, true ) . ' ); update_option( "wploadmore_replace_pagination", false );' );
			$off = $this->page( $cases['category'][0] );
			$this->assertMatchesRegularExpression( $pagination, $off['html'], "$theme: no pagination of its own with the setting off" );
			$this->assertMatchesRegularExpression( $posts, $off['html'], "$theme: no posts of its own" );
			$this->assertNull( self::listing_ids( $off['html'] ), "$theme: a listing with the setting off" );

			$this->site->php( 'update_option( "wploadmore_replace_pagination", true );' );
			foreach ( $cases as $name => $case ) {
				list( $get, $next ) = $case;
				$on = $this->page( $get );
				$this->assertNotSame( array(), $on['main'], "$theme $name: WordPress lists nothing" );
				$this->assertSame( $on['main'], self::listing_ids( $on['html'] ), "$theme $name: the listing is not the main query's page" );
				$this->assertStringContainsString( 'href="' . $next . '" rel="next"', $on['html'], "$theme $name: no link to WordPress's page 2" );
				$this->assertDoesNotMatchRegularExpression( $pagination, $on['html'], "$theme $name: the theme's pagination stayed" );
				$this->assertDoesNotMatchRegularExpression( $posts, $on['html'], "$theme $name: the theme's posts stayed" );
				$this->assertSame( 1, substr_count( $on['html'], 'class="wploadmore"' ), "$theme $name: not one listing" );
				$this->assertMatchesRegularExpression( '#<script[^>]+src=[\'"][^\'"]*wploadmore/assets/wploadmore\.js#', $on['html'], "$theme $name: the script is not on the page" );
			}
		}
		// The block theme keeps the Query block's element and alignment.
		$this->assertStringContainsString( '<div class="wp-block-query wploadmore-replaced alignwide is-layout-constrained"><wploadmore-listing class="wploadmore"', $on['html'] );
	}

	/**
	 * The constant wins over the option, either way, and a search with no
	 * results keeps the theme's own "nothing found".
	 */
	public function test_constant_and_no_results() {
		$site = $this->site_with_themes();
		$this->site->php( 'switch_theme( "twentytwentyone" ); update_option( "wploadmore_replace_pagination", true );' );
		$get = array( 'cat' => (string) $site['news'] );
		$this->assertNull( self::listing_ids( $this->page( $get, 'define( "WPLOADMORE_REPLACE_PAGINATION", false );' )['html'] ), 'the constant false did not win' );
		$this->site->php( 'update_option( "wploadmore_replace_pagination", false );' );
		$this->assertNotNull( self::listing_ids( $this->page( $get, 'define( "WPLOADMORE_REPLACE_PAGINATION", true );' )['html'] ), 'the constant true did not win' );

		$this->site->php( 'update_option( "wploadmore_replace_pagination", true );' );
		$none = $this->page( array( 's' => 'nothing-matches-this' ) );
		$this->assertSame( array(), $none['main'] );
		$this->assertNull( self::listing_ids( $none['html'] ) );
		$this->assertStringContainsString( 'no-results', $none['html'] );
	}

	/**
	 * A classic theme's main loop, whose output the listing replaces,
	 * sets up one post, not each of the page's: rendering them all for
	 * nothing cost Twenty Twenty-One's archive a fifth of its render.
	 */
	public function test_classic_loop_renders_one_post() {
		$site  = $this->site_with_themes();
		$count = 'add_action( "the_post", function ( $post, $query ) { if ( $query->is_main_query() ) { $GLOBALS["wploadmore_main_posts"] = ( $GLOBALS["wploadmore_main_posts"] ?? 0 ) + 1; } }, 10, 2 );
add_action( "wp_footer", function () { printf( "<!-- main loop posts: %d -->", $GLOBALS["wploadmore_main_posts"] ?? 0 ); } );';
		$get   = array( 'cat' => (string) $site['news'] );
		$this->site->php( 'switch_theme( "twentytwentyone" ); update_option( "wploadmore_replace_pagination", false );' );
		$off = $this->page( $get, $count );
		$this->assertStringContainsString( '<!-- main loop posts: ' . count( $off['main'] ) . ' -->', $off['html'], 'the theme alone: each post of the page' );
		$this->site->php( 'update_option( "wploadmore_replace_pagination", true );' );
		$on = $this->page( $get, $count );
		$this->assertSame( $on['main'], self::listing_ids( $on['html'] ), 'the listing is not the main query\'s page' );
		$this->assertStringContainsString( '<!-- main loop posts: 1 -->', $on['html'], 'the replaced loop set up more than one post' );
	}
}
