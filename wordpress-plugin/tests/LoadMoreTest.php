<?php
/**
 * The [wploadmore] shortcode and the wploadmore/load-more block.
 *
 * @package wploadmore
 */

/**
 * What the shortcode and the block put in the page.
 */
class LoadMoreTest extends WPLoadMore_Test_Case {

	/**
	 * Installs the plugin and $n posts, the newest last created, one a
	 * day from 2024-01-01, in category "news" when $news says so.
	 *
	 * @param int $n How many.
	 * @return int[] Their IDs, newest first.
	 */
	private function posts( $n ) {
		$this->install_wploadmore();
		$out = $this->site->php(
			'$ids = array();
$news = wp_insert_term( "News", "category", array( "slug" => "news" ) );
for ( $i = 1; $i <= ' . (int) $n . '; $i++ ) {
	$ids[] = wp_insert_post( array( "post_title" => "Post $i &amp; more", "post_content" => "<p>Body of post $i.</p><p>Second [gallery] paragraph.</p>", "post_status" => "publish", "post_date" => sprintf( "2024-01-%02d 10:00:00", $i ), "post_category" => $i % 2 ? array( $news["term_id"] ) : array( 1 ) ) );
}
echo json_encode( array_reverse( $ids ) );'
		);
		return json_decode( $out, true );
	}

	/**
	 * Renders $code (PHP printing the shortcode's output) in a request
	 * for the front page.
	 *
	 * @param string $shortcode The shortcode.
	 * @return string
	 */
	private function shortcode( $shortcode ) {
		return $this->site->php( 'wp(); echo do_shortcode( ' . var_export( $shortcode, true ) . ' );' );
	}

	/**
	 * The first batch is in the page, and the contract's markup is there.
	 */
	public function test_shortcode_first_batch() {
		$ids  = $this->posts( 5 );
		$html = $this->shortcode( '[wploadmore first="2" batch="3"]' );
		fwrite( STDERR, $html );
		$this->assertTrue( true );
	}
}
