<?php
/**
 * The first batch's cards in Debian's themes, against the server's.
 *
 * @package wploadmore
 */

/**
 * What a theme does around the listing never makes a card of the first
 * batch differ from the same post's card in a later batch, which the
 * browser renders from the server's record: the theme's $content_width
 * (Twenty Twenty-One) and a block theme's wptexturize() over its whole
 * template (Twenty Twenty-Three).
 */
class ThemeCardTest extends WPLoadMore_Test_Case {

	/**
	 * Links Debian's theme $theme into the site, installs the plugin and
	 * switches to the theme.
	 *
	 * @param string $theme The theme's folder.
	 */
	private function site_in_theme( $theme ) {
		if ( ! is_dir( WPLOADMORE_TEST_ABSPATH . "wp-content/themes/$theme" ) ) {
			$this->fail( "needs Debian's wordpress-theme-$theme package: apt-get install wordpress-theme-$theme" );
		}
		symlink( WPLOADMORE_TEST_ABSPATH . "wp-content/themes/$theme", $this->site->content . "/themes/$theme" );
		$this->install_wploadmore();
		$this->site->php( 'switch_theme( ' . var_export( $theme, true ) . ' );' );
	}

	/**
	 * In Twenty Twenty-One, whose $content_width (750) caps medium_large
	 * in wp_get_attachment_image_src(), the card's image is the record
	 * WordPress gives with no content width, as the server's: 768 wide,
	 * sizes 768px. The theme's content width is back after the card, also
	 * when the image's rendering throws.
	 */
	public function test_image_ignores_theme_content_width() {
		$this->site_in_theme( 'twentytwentyone' );
		$out = $this->site->php(
			'$attachment = wp_insert_attachment( array( "post_mime_type" => "image/jpeg", "post_title" => "photo", "post_status" => "inherit" ), "2024/06/photo.jpg" );
update_post_meta( $attachment, "_wp_attached_file", "2024/06/photo.jpg" );
$sizes = array();
foreach ( array( "thumbnail" => array( 150, 150 ), "medium" => array( 300, 200 ), "medium_large" => array( 768, 512 ), "large" => array( 1024, 683 ) ) as $name => $wh ) {
	$sizes[ $name ] = array( "file" => "photo-" . $wh[0] . "x" . $wh[1] . ".jpg", "width" => $wh[0], "height" => $wh[1], "mime-type" => "image/jpeg" );
}
wp_update_attachment_metadata( $attachment, array( "width" => 1536, "height" => 1024, "file" => "2024/06/photo.jpg", "sizes" => $sizes ) );
$post = wp_insert_post( array( "post_title" => "Photo", "post_content" => "Text", "post_status" => "publish" ) );
set_post_thumbnail( $post, $attachment );
$themes = $GLOBALS["content_width"];
$theme_src = wp_get_attachment_image_src( $attachment, "medium_large" );
$record = WPLoadMore_Card::record( get_post( $post ) );
$after = $GLOBALS["content_width"];
add_filter( "wp_get_attachment_image_attributes", function () { throw new RuntimeException( "a theme filter failed" ); } );
try {
	WPLoadMore_Card::record( get_post( $post ) );
	$thrown = false;
} catch ( RuntimeException $e ) {
	$thrown = true;
}
$after_throw = $GLOBALS["content_width"];
$GLOBALS["content_width"] = 0;
$src = wp_get_attachment_image_src( $attachment, "medium_large" );
echo json_encode( array(
	"theme"       => $themes,
	"theme_src"   => $theme_src,
	"image"       => $record["image"],
	"after"       => $after,
	"thrown"      => $thrown,
	"after_throw" => $after_throw,
	"wp"          => array(
		"src"    => $src[0],
		"width"  => $src[1],
		"height" => $src[2],
		"srcset" => wp_get_attachment_image_srcset( $attachment, "medium_large" ),
		"sizes"  => wp_get_attachment_image_sizes( $attachment, "medium_large" ),
		"alt"    => "",
	),
) );'
		);
		$got = json_decode( $out, true );
		$this->assertIsArray( $got, $out );
		$this->assertSame( 750, $got['theme'], "Twenty Twenty-One's content width" );
		$this->assertSame( 750, $got['theme_src'][1], 'the theme does not cap medium_large: the test shows nothing' );
		$this->assertSame( $got['wp'], $got['image'], 'the card is not the record with no content width' );
		$this->assertSame( 768, $got['image']['width'] );
		$this->assertSame( '(max-width: 768px) 100vw, 768px', $got['image']['sizes'] );
		$this->assertSame( 750, $got['after'], "the theme's content width was not restored" );
		$this->assertTrue( $got['thrown'] );
		$this->assertSame( 750, $got['after_throw'], "the theme's content width was not restored after an exception" );
	}

	/**
	 * In Twenty Twenty-Three, which texturizes its whole rendered template,
	 * the first batch's card of a post whose title and text hold "...",
	 * quotes, "--" and "2x3" is byte for byte the card rendered from its
	 * record, as the script renders the server's: in a page holding the
	 * block and in a category archive whose pagination is replaced. The
	 * page's own title, outside the listing, is texturized: the theme does
	 * run wptexturize() on these pages.
	 */
	public function test_block_theme_does_not_texturize_first_batch() {
		$this->site_in_theme( 'twentytwentythree' );
		$out = $this->site->php(
			'$news = wp_insert_term( "News", "category", array( "slug" => "news" ) );
$post = wp_insert_post( array( "post_title" => "\"Quoted\" -- it\'s 2x3... (tm)", "post_content" => "<p>Wait... \"so\" -- it\'s \'single\' --- 9x9 - done</p>", "post_status" => "publish", "post_category" => array( $news["term_id"] ) ) );
$page = wp_insert_post( array( "post_type" => "page", "post_title" => "It\'s... here", "post_content" => "<!-- wp:wploadmore/load-more {\"category\":\"news\"} /-->", "post_status" => "publish" ) );
$extra = array( "protected_excerpt" => __( "There is no excerpt because this is a protected post." ) );
echo json_encode( array( "post" => $post, "page" => $page, "news" => $news["term_id"], "card" => WPLoadMore_Card::render( WPLoadMore_Card::template()["text"], WPLoadMore_Card::record( get_post( $post ) ), $extra ) ) );'
		);
		$site = json_decode( $out, true );
		$this->assertIsArray( $site, $out );
		$this->assertStringContainsString( 'Wait... &quot;so&quot; -- it&#39;s &#39;single&#39; --- 9x9 - done...', $site['card'], "the server's excerpt" );

		$block = $this->page( array( 'page_id' => (string) $site['page'] ) );
		$this->assertStringContainsString( 'It&#8217;s&#8230; here', $block, "the theme did not texturize the page's title" );
		$this->assertSame( $site['card'], $this->card( $block, $site['post'] ), 'the block in a page' );

		$this->site->php( 'update_option( "wploadmore_replace_pagination", true );' );
		$archive = $this->page( array( 'cat' => (string) $site['news'] ) );
		$this->assertSame( $site['card'], $this->card( $archive, $site['post'] ), 'the replaced pagination of an archive' );
	}

	/**
	 * The page WordPress serves for the query vars $get, through
	 * template-loader.php, in the site's theme.
	 *
	 * @param array $get The request's query vars.
	 * @return string
	 */
	private function page( array $get ) {
		return $this->site->php(
			'$_GET = ' . var_export( $get, true ) . ';
$_SERVER["REQUEST_URI"] = "/?" . http_build_query( $_GET );
wp();
add_filter( "wp_using_themes", "__return_true" );
require ABSPATH . WPINC . "/template-loader.php";'
		);
	}

	/**
	 * The card of post $id in a page.
	 *
	 * @param string $html The page.
	 * @param int    $id   The post.
	 * @return string
	 */
	private function card( $html, $id ) {
		$this->assertSame( 1, preg_match( '#<article class="wploadmore-card" id="wploadmore-post-' . (int) $id . '".*?</article>#s', $html, $m ), 'no card of the post in the page' );
		return $m[0];
	}
}
