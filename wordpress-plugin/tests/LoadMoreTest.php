<?php
/**
 * The [wploadmore] shortcode and the wploadmore/load-more block.
 *
 * @package wploadmore
 */

/**
 * What the shortcode and the block put in the page, for each listing, on
 * a real site, compared with WordPress's own queries and pages.
 */
class LoadMoreTest extends WPLoadMore_Test_Case {

	/**
	 * Installs the plugin and the test types, and $n posts, one a day from
	 * 2024-01-01: odd ones in category "news" and tagged "red", even ones
	 * by a second author, post 3 with a password.
	 *
	 * @param int $n How many.
	 * @return array array( 'ids' => newest first, 'news' => term ID, 'red' => term ID, 'author' => user ID ).
	 */
	private function posts( $n ) {
		$this->install_wploadmore();
		$this->install_test_plugin( 'wploadmore-test-types.php' );
		$out = $this->site->php(
			'$news = wp_insert_term( "News", "category", array( "slug" => "news" ) );
$red = wp_insert_term( "Red", "post_tag", array( "slug" => "red" ) );
$author = wp_insert_user( array( "user_login" => "ann", "user_pass" => "x", "role" => "author" ) );
$ids = array();
for ( $i = 1; $i <= ' . (int) $n . '; $i++ ) {
	$ids[] = wp_insert_post( array(
		"post_title"    => "Post $i &amp; <em>more</em>",
		"post_content"  => "<!-- wp:paragraph --><p>Body&nbsp;of post $i.</p><!-- /wp:paragraph --><p>Second [gallery ids=\"1\"] paragraph<script>x()</script> [unknown]</p>",
		"post_status"   => "publish",
		"post_date"     => sprintf( "2024-01-%02d 10:00:00", $i ),
		"post_author"   => $i % 2 ? 1 : $author,
		"post_category" => $i % 2 ? array( $news["term_id"] ) : array( 1 ),
		"tags_input"    => $i % 2 ? array( "red" ) : array(),
		"post_password" => 3 === $i ? "secret" : "",
	) );
}
wp_delete_post( 1, true );
update_option( "posts_per_page", 2 );
echo json_encode( array( "ids" => array_reverse( $ids ), "news" => $news["term_id"], "red" => $red["term_id"], "author" => $author ) );'
		);
		return json_decode( $out, true );
	}

	/**
	 * Runs a front-end request for the query vars $get, then $code; what
	 * $code returns is JSON-encoded with the main query's post IDs and
	 * WordPress's page 2 link.
	 *
	 * @param array  $get  The request's query vars.
	 * @param string $code PHP statements returning the listing's HTML.
	 * @return array array( 'html', 'main' => IDs, 'page2' => get_pagenum_link( 2 ) ).
	 */
	private function front( array $get, $code ) {
		$out = $this->site->php(
			'$_GET = ' . var_export( $get, true ) . ';
$_SERVER["REQUEST_URI"] = "/" . ( $_GET ? "?" . http_build_query( $_GET ) : "" );
wp();
global $wp_query;
$html = ( function () { ' . $code . ' } )();
echo json_encode( array( "html" => $html, "main" => array_map( "intval", wp_list_pluck( $wp_query->posts, "ID" ) ), "page2" => get_pagenum_link( 2, false ), "pages" => (int) $wp_query->max_num_pages ) );'
		);
		$result = json_decode( $out, true );
		$this->assertIsArray( $result, $out );
		return $result;
	}

	/**
	 * Reads a listing's HTML: its data-wploadmore settings, card IDs,
	 * next link and template.
	 *
	 * @param string $html The listing.
	 * @return array
	 */
	private function parse( $html ) {
		$this->assertSame( 1, preg_match( '/^<wploadmore-listing class="([^"]*)" data-wploadmore="([^"]*)">/', $html, $root ), "no listing: $html" );
		preg_match_all( '/<article class="wploadmore-card" id="wploadmore-post-(\d+)" tabindex="-1">/', $html, $cards );
		$next = preg_match( '#<a class="wploadmore-more wp-element-button" href="([^"]*)" rel="next">([^<]*)</a></wploadmore-listing>$#', $html, $m ) ? $m : array( '', '', '' );
		$this->assertSame( 1, preg_match( '#<script type="text/x-mustache" class="wploadmore-template">(.*?)</script><p class="wploadmore-status screen-reader-text" role="status" aria-live="polite"></p>#s', $html, $template ), 'no template or live region' );
		return array(
			'class'    => $root[1],
			'data'     => json_decode( html_entity_decode( $root[2], ENT_QUOTES, 'UTF-8' ), true ),
			'ids'      => array_map( 'intval', $cards[1] ),
			'next'     => html_entity_decode( $next[1], ENT_QUOTES, 'UTF-8' ),
			'more'     => $next[2],
			'template' => $template[1],
		);
	}

	/**
	 * The IDs WordPress's own query lists for $vars, page $paged.
	 *
	 * @param array $vars  Query vars.
	 * @param int   $paged The page.
	 * @return int[]
	 */
	private function wordpress_ids( array $vars, $paged ) {
		$out = $this->site->php( '$q = new WP_Query( array_merge( ' . var_export( $vars, true ) . ', array( "paged" => ' . (int) $paged . ', "ignore_sticky_posts" => true ) ) ); echo json_encode( array_map( "intval", wp_list_pluck( $q->posts, "ID" ) ) );' );
		return json_decode( $out, true );
	}

	/**
	 * The shortcode's first batch is WordPress's first page of the
	 * listing, in the page; the settings, template, live region and a
	 * rel=next link to WordPress's page 2 follow the contract; the page's
	 * script and style are enqueued.
	 */
	public function test_shortcode_output() {
		$site = $this->posts( 5 );
		$ids  = $site['ids'];
		$r    = $this->front( array(), 'ob_start(); $html = do_shortcode( "[wploadmore category=news batch=3]" ); ob_end_clean(); return $html . "|" . (int) wp_script_is( "wploadmore" ) . (int) wp_style_is( "wploadmore" );' );
		list( $html, $enqueued ) = explode( '|', $r['html'] );
		$this->assertSame( '11', $enqueued, 'script and style not enqueued' );
		$got  = $this->parse( $html );
		$news = array( $ids[0], $ids[2] ); // Posts 5 and 3.
		$this->assertSame( $news, $got['ids'] );
		$this->assertSame( $news, $this->wordpress_ids( array( 'cat' => $site['news'] ), 1 ) );
		$this->assertSame(
			array(
				'endpoint' => 'http://example.org/load-more.php',
				'query'    => 'cat=' . $site['news'],
				'batch'    => 3,
				'lastPost' => $ids[2],
				'start'    => 2,
			),
			array_intersect_key( $got['data'], array_flip( array( 'endpoint', 'query', 'batch', 'lastPost', 'start' ) ) )
		);
		$this->assertSame( array( '1 more post loaded.', '2 more posts loaded.', '3 more posts loaded.' ), $got['data']['words']['loaded'] );
		$this->assertSame( 'Loading…', $got['data']['words']['loading'] );
		$this->assertSame( 'No more data', $got['data']['words']['end'] );
		$this->assertSame( 'http://example.org/?cat=' . $site['news'] . '&paged=2', $got['next'] );
		$this->assertSame( array( $ids[4] ), $this->wordpress_ids( array( 'cat' => $site['news'] ), 2 ), "WordPress's page 2 is not the next post" );
		$this->assertSame( 'More posts', $got['more'] );
		$this->assertSame( file_get_contents( WPLOADMORE_TEST_PLUGIN . '/templates/card.mustache' ), $got['template'] );
		$this->assertStringContainsString( '<h2 class="wploadmore-card-title"><a href="http:&#x2F;&#x2F;example.org&#x2F;?p&#x3D;' . $ids[0] . '">Post 5 &amp; more</a></h2>', $html );
		$this->assertStringContainsString( '<p class="wploadmore-card-excerpt">Body of post 5. Second paragraphx() [unknown]...</p>', $html );
		$this->assertStringContainsString( '<p class="wploadmore-card-excerpt">There is no excerpt because this is a protected post.</p>', $html );
		$this->assertStringContainsString( '>Protected: Post 3 &amp; more</a>', $html );

		// The last page: no link, the batch shorter.
		$last = $this->parse( $this->front( array(), 'return do_shortcode( "[wploadmore category=news first=3 more=\'Show more\']" );' )['html'] );
		$this->assertSame( array( $ids[0], $ids[2], $ids[4] ), $last['ids'] );
		$this->assertSame( '', $last['next'], 'a link after the last post' );

		// More than one page of WordPress's: the link goes to the page that
		// holds the next post.
		$blog = $this->parse( $this->front( array(), 'return do_shortcode( "[wploadmore first=3 more=\'Show more\']" );' )['html'] );
		$this->assertSame( array_slice( $ids, 0, 3 ), $blog['ids'] );
		$this->assertSame( 'http://example.org/?paged=2', $blog['next'] );
		$this->assertSame( 'Show more', $blog['more'] );
		$this->assertSame( '', $blog['data']['query'] );
	}

	/**
	 * The block renders what the shortcode renders for the same
	 * attributes, inside the block's wrapper attributes.
	 */
	public function test_block_output() {
		$site  = $this->posts( 4 );
		$block = $this->front( array(), 'return do_blocks( \'<!-- wp:wploadmore/load-more {"tag":"red","first":1,"batch":2,"className":"is-style-x"} /-->\' );' )['html'];
		$code  = $this->front( array(), 'return do_shortcode( "[wploadmore tag=red first=1 batch=2]" );' )['html'];
		$got   = $this->parse( $block );
		$this->assertSame( 'wploadmore is-style-x wp-block-wploadmore-load-more', $got['class'] );
		$this->assertSame( 'tag_id=' . $site['red'], $got['data']['query'] );
		$this->assertSame( array( $site['ids'][1] ), $got['ids'] ); // Post 3, tagged red.
		$this->assertSame( preg_replace( '/^<wploadmore-listing class="[^"]*"/', '', $code ), preg_replace( '/^<wploadmore-listing class="[^"]*"/', '', $block ) );
		$registered = $this->site->php( 'echo json_encode( WP_Block_Type_Registry::get_instance()->get_registered( "wploadmore/load-more" )->attributes );' );
		$this->assertSame( array( 'post_type', 'category', 'tag', 'taxonomy', 'terms', 'author', 'search', 'inherit', 'first', 'batch', 'more' ), array_slice( array_keys( json_decode( $registered, true ) ), 0, 11 ), "the block's attributes are not the shortcode's" );
	}

	/**
	 * Attributes are sanitized as WordPress sanitizes their kinds, unknown
	 * types and terms give an HTML comment saying why and no warning (the
	 * request fails on any), and nothing reaches the page unescaped.
	 */
	public function test_sanitizing() {
		$site = $this->posts( 4 );
		$html = $this->front( array(), 'return do_shortcode( \'[wploadmore search=\\\'"><script>\\\' more=\\\'"><script>alert(1)</script>\\\' first="-2" batch="x"]\' );' )['html'];
		$got  = $this->parse( $html );
		$this->assertSame( 1, substr_count( strtolower( $html ), '<script' ), 'a script element beside the template: ' . $html );
		$this->assertSame( 's=%22%3E', $got['data']['query'], 'search not sanitize_text_field()ed' );
		$this->assertSame( '&quot;&gt;', $got['more'] );
		$this->assertSame( 2, count( $got['ids'] ), 'first="-2" is absint 2' );
		$this->assertSame( 2, $got['data']['batch'], 'batch="x" is 0: as many as shown first' );

		$comments = array(
			'[wploadmore post_type=nope]'                       => '<!-- wploadmore: no public post type &quot;nope&quot; -->',
			'[wploadmore post_type=private_note]'               => '<!-- wploadmore: no public post type &quot;private_note&quot; -->',
			'[wploadmore post_type="Bo<b>o</b>k"]'              => '<!-- wploadmore: no public post type &quot;bobobk&quot; -->',
			'[wploadmore category=gone]'                        => '<!-- wploadmore: no term &quot;gone&quot; in category -->',
			'[wploadmore tag="--><script>x</script>"]'          => '<!-- wploadmore: no term &quot;x&quot; in post_tag -->',
			'[wploadmore taxonomy=genre]'                       => '<!-- wploadmore: taxonomy &quot;genre&quot; needs terms -->',
			'[wploadmore taxonomy=nope terms=a]'                => '<!-- wploadmore: no public taxonomy &quot;nope&quot; -->',
			'[wploadmore author=nobody]'                        => '<!-- wploadmore: no author &quot;nobody&quot; -->',
			'[wploadmore author=999]'                           => '<!-- wploadmore: no author &quot;999&quot; -->',
			'[wploadmore post_type=book]'                       => '<!-- wploadmore: no posts to list -->',
		);
		$out = json_decode( $this->site->php( '$out = array(); foreach ( ' . var_export( array_keys( $comments ), true ) . ' as $sc ) { $out[] = do_shortcode( $sc ); } echo json_encode( $out );' ), true );
		$this->assertSame( array_values( $comments ), $out );

		// Slugs as sanitize_title() reads them; authors by nicename.
		$ok = $this->parse( $this->front( array(), 'return do_shortcode( "[wploadmore category=\' NEWS \' author=\'admin\']" );' )['html'] );
		$this->assertSame( 'cat=' . $site['news'] . '&author=1', $ok['data']['query'] );
		$this->assertSame( array( $site['ids'][1], $site['ids'][3] ), $ok['ids'] );
	}

	/**
	 * With inherit, the listing is the main query's page as WordPress
	 * lists it (no query of its own), its server query names the same
	 * listing, and the link is WordPress's own page 2: on the home page, a
	 * category, a tag, an author, a date, a search and a custom type's
	 * archive.
	 */
	public function test_inherit() {
		$site = $this->posts( 5 );
		$book = (int) $this->site->php( 'echo wp_insert_post( array( "post_type" => "book", "post_title" => "A book", "post_status" => "publish" ) ); wp_insert_post( array( "post_type" => "book", "post_title" => "B book", "post_status" => "publish", "post_date" => "2020-01-01 00:00:00" ) );' );
		$cases = array(
			'home'     => array( array(), '' ),
			'category' => array( array( 'cat' => $site['news'] ), 'cat=' . $site['news'] ),
			'slug'     => array( array( 'category_name' => 'news' ), 'cat=' . $site['news'] ),
			'tag'      => array( array( 'tag' => 'red' ), 'tag_id=' . $site['red'] ),
			'author'   => array( array( 'author' => $site['author'] ), 'author=' . $site['author'] ),
			'date'     => array( array( 'year' => '2024', 'monthnum' => '1' ), 'year=2024&monthnum=1' ),
			'm'        => array( array( 'm' => '202401' ), 'year=2024&monthnum=1' ),
			'search'   => array( array( 's' => 'post' ), 's=post' ),
			'book'     => array( array( 'post_type' => 'book' ), 'post_type=book' ),
		);
		foreach ( $cases as $name => $case ) {
			list( $get, $query ) = $case;
			$r   = $this->front( $get, 'return do_shortcode( "[wploadmore inherit=1 batch=4]" );' );
			$got = $this->parse( $r['html'] );
			$this->assertNotSame( array(), $r['main'], "$name: WordPress lists nothing" );
			$this->assertSame( $r['main'], $got['ids'], "$name: not the main query's posts" );
			$this->assertSame( $query, $got['data']['query'], "$name: server query" );
			$this->assertSame( end( $r['main'] ), $got['data']['lastPost'], "$name: lastPost" );
			$this->assertSame( count( $r['main'] ), $got['data']['start'], "$name: start" );
			$this->assertSame( $r['pages'] > 1 ? $r['page2'] : '', $got['next'], "$name: next link" );
		}
		$this->assertSame( 'http://example.org/?cat=' . $site['news'] . '&paged=2', $this->parse( $this->front( $cases['category'][0], 'return do_shortcode( "[wploadmore inherit=1]" );' )['html'] )['next'] );

		// Page 2 of the blog: its posts, start counts page 1's, and the
		// block's inherit reads the same.
		$r   = $this->front( array( 'paged' => '2' ), 'return do_blocks( \'<!-- wp:wploadmore/load-more {"inherit":true} /-->\' );' );
		$got = $this->parse( $r['html'] );
		$this->assertSame( array_slice( $site['ids'], 2, 2 ), $got['ids'] );
		$this->assertSame( 4, $got['data']['start'] );
		$this->assertSame( 'http://example.org/?paged=3', $got['next'] );

		// Inherit where there is no listing to follow (a single post):
		// the blog.
		$r = $this->front( array( 'p' => (string) $book ), 'return do_shortcode( "[wploadmore inherit=1]" );' );
		$this->assertSame( array_slice( $site['ids'], 0, 2 ), $this->parse( $r['html'] )['ids'] );
	}

	/**
	 * Writes a throwaway theme.
	 *
	 * @param string      $slug   Its folder.
	 * @param string|null $parent Its parent theme, for a child theme.
	 * @param string|null $card   Its wploadmore/card.mustache, or none.
	 */
	private function theme( $slug, $parent, $card ) {
		$dir = $this->site->content . '/themes/' . $slug;
		if ( ! is_dir( $dir . '/wploadmore' ) ) {
			mkdir( $dir . '/wploadmore', 0755, true );
		}
		file_put_contents( $dir . '/style.css', "/*\nTheme Name: $slug\n" . ( $parent ? "Template: $parent\n" : '' ) . "*/\n" );
		file_put_contents( $dir . '/index.php', "<?php\n" );
		if ( null === $card ) {
			@unlink( $dir . '/wploadmore/card.mustache' ); // phpcs:ignore WordPress.PHP.NoSilencedErrors
		} else {
			file_put_contents( $dir . '/wploadmore/card.mustache', $card );
		}
	}

	/**
	 * A theme's wploadmore/card.mustache replaces the card, in the page and
	 * in the template the browser gets; a child theme's wins over its
	 * parent's, a child without one gets its parent's, and a template that
	 * does not parse gives the plugin's card.
	 */
	public function test_template_override() {
		$site    = $this->posts( 2 );
		$default = file_get_contents( WPLOADMORE_TEST_PLUGIN . '/templates/card.mustache' );
		$parent  = "<p class=\"parent\">{{title}}</p>\n";
		$child   = "{{! the child's }}\n<p class=\"child\">{{ID}} {{title}}</p>\n";
		$this->theme( 'lmparent', null, $parent );
		$this->theme( 'lmchild', 'lmparent', null );
		$cases = array(
			'parent'              => array( 'lmparent', null, $parent ),
			'child without card'  => array( 'lmchild', null, $parent ),
			'child with card'     => array( 'lmchild', $child, $child ),
			'child card broken'   => array( 'lmchild', "{{#title}}<p>{{title}}</p>\n", $default ),
			'child card unclosed' => array( 'lmchild', "<p>{{title</p>\n", $default ),
		);
		foreach ( $cases as $name => $case ) {
			list( $theme, $card, $want ) = $case;
			$this->theme( 'lmchild', 'lmparent', $card );
			$this->site->php( 'switch_theme( ' . var_export( $theme, true ) . ' );' );
			$got = $this->parse( $this->front( array(), 'return do_shortcode( "[wploadmore first=1]" );' )['html'] );
			$this->assertSame( $want, $got['template'], "$name: the template the browser gets" );
			$this->assertSame( array( $site['ids'][0] ), $got['ids'] );
		}
		$html = $this->front( array(), 'return do_shortcode( "[wploadmore first=1]" );' )['html'];
		$this->assertStringContainsString( '<h2 class="wploadmore-card-title">', $html, 'a broken theme card did not fall back to the default' );
		$this->theme( 'lmchild', 'lmparent', $child );
		$html = $this->front( array(), 'return do_shortcode( "[wploadmore first=1]" );' )['html'];
		$this->assertStringContainsString( '<article class="wploadmore-card" id="wploadmore-post-' . $site['ids'][0] . '" tabindex="-1"><p class="child">' . $site['ids'][0] . ' Post 2 &amp; more</p>' . "\n</article>", $html );
	}

	/**
	 * With the server away (its address refusing connections) the first
	 * batch and WordPress's next page link render as ever, the page shows
	 * no error, and rendering makes no HTTP request at all: PHP never
	 * asks the server. The address comes from the option, and the
	 * constant wins over it.
	 */
	public function test_server_down() {
		$this->posts( 3 );
		$this->site->php( 'update_option( "wploadmore_server", "http://127.0.0.1:9/load-more.php" );' );
		$r   = $this->front( array(), '$GLOBALS["requests"] = 0; add_filter( "pre_http_request", function ( $pre ) { $GLOBALS["requests"]++; return $pre; } ); $html = do_shortcode( "[wploadmore]" ); return $html . "|" . $GLOBALS["requests"];' );
		list( $html, $requests ) = explode( '|', $r['html'] );
		$got = $this->parse( $html );
		$this->assertSame( '0', $requests, 'rendering asked the network' );
		$this->assertSame( 'http://127.0.0.1:9/load-more.php', $got['data']['endpoint'] );
		$this->assertSame( $r['main'], $got['ids'] );
		$this->assertSame( 'http://example.org/?paged=2', $got['next'] );
		$this->assertDoesNotMatchRegularExpression( '/error|fail|unavailable/i', $html );

		$this->site->php( 'update_option( "wploadmore_server", "https://lm.example.net/load-more.php" );' );
		$const = $this->site->php( 'define( "WPLOADMORE_SERVER", "https://api.example.com/load-more.php" ); echo WPLoadMore_Load_More::endpoint();' );
		$this->assertSame( 'https://api.example.com/load-more.php', $const );
		$this->assertSame( 'https://lm.example.net/load-more.php', $this->site->php( 'echo WPLoadMore_Load_More::endpoint();' ) );
	}

	/**
	 * The settings screen saves the server's address and the pagination
	 * setting through options.php with its nonce, for users who can manage
	 * options; a bad URL keeps the old one.
	 */
	public function test_settings() {
		$this->install_wploadmore();
		$save = function ( $value, $user, $pagination = '0' ) {
			return $this->site->php(
				'require_once ABSPATH . "wp-admin/includes/admin.php";
do_action( "admin_init" );
$can = current_user_can( "manage_options" );
if ( $can ) {
	$_POST = array( "option_page" => "wploadmore", "_wpnonce" => wp_create_nonce( "wploadmore-options" ), "wploadmore_server" => ' . var_export( $value, true ) . ', "wploadmore_replace_pagination" => ' . var_export( $pagination, true ) . ' );
	$_REQUEST = $_POST;
	check_admin_referer( "wploadmore-options" );
	$allowed = apply_filters( "allowed_options", array() );
	// As options.php saves each option of the group.
	foreach ( $allowed["wploadmore"] as $option ) {
		update_option( $option, isset( $_POST[ $option ] ) ? wp_unslash( $_POST[ $option ] ) : null );
	}
}
echo json_encode( array( $can, get_option( "wploadmore_server" ), WPLoadMore_Pagination::enabled() ) );',
				array(
					'admin' => true,
					'user'  => $user,
				)
			);
		};
		$this->assertSame( '[true,"https:\/\/lm.example.net\/load-more.php",true]', $save( 'https://lm.example.net/load-more.php', 1, '1' ) );
		$this->assertSame( '[true,"https:\/\/lm.example.net\/load-more.php",false]', $save( 'javascript:alert(1)', 1 ) );
		$this->assertSame( '[true,"",true]', $save( '', 1, '1' ) );
		$this->site->php( 'wp_insert_user( array( "user_login" => "ed", "user_pass" => "x", "role" => "editor" ) );' );
		$this->assertSame( '[false,"",true]', $save( 'https://evil.example/', 2 ) );
		$page = $this->site->php( 'require_once ABSPATH . "wp-admin/includes/admin.php"; do_action( "admin_menu" ); do_action( "admin_init" ); echo (int) ( false !== get_plugin_page_hookname( "wploadmore", "options-general.php" ) ); WPLoadMore_Settings::page();', array( 'admin' => true, 'user' => 1 ) );
		$this->assertStringContainsString( 'name="_wpnonce"', $page );
		$this->assertStringContainsString( 'name="wploadmore_server"', $page );
		$this->assertStringContainsString( 'name="wploadmore_replace_pagination" value="1" checked=\'checked\'', $page );
	}

	/**
	 * The control's and the announcements' words come from the widget's
	 * catalogue in the site's language, with each count's plural form
	 * (Arabic has six), and WordPress's own words and date format in the
	 * cards; the plugin's catalogues are the widget's.
	 */
	public function test_words_in_site_language() {
		foreach ( glob( dirname( WPLOADMORE_TEST_PLUGIN, 2 ) . '/templates/languages/*' ) as $file ) {
			$this->assertFileEquals( $file, WPLOADMORE_TEST_PLUGIN . '/languages/' . basename( $file ), "the plugin's catalogue differs from the widget's: copy templates/languages again" );
		}
		foreach ( array( 'de_DE.mo', 'ar.mo' ) as $file ) {
			if ( ! file_exists( WPLOADMORE_TEST_LANGUAGES . '/' . $file ) ) {
				$this->fail( "needs Debian's wordpress-l10n package (" . WPLOADMORE_TEST_LANGUAGES . "/$file is missing): apt-get install wordpress-l10n" );
			}
			copy( WPLOADMORE_TEST_LANGUAGES . '/' . $file, $this->site->content . '/languages/' . $file );
		}
		$this->posts( 5 );
		$this->site->php( 'update_option( "WPLANG", "de_DE" );' );
		$html = $this->front( array(), 'return do_shortcode( "[wploadmore category=news batch=2]" );' )['html'];
		$got  = $this->parse( $html );
		$this->assertSame( 'Weitere Beiträge', $got['more'] );
		$this->assertSame(
			array(
				'loading' => '', // No German for it: no English either.
				'loaded'  => array( '1 weiterer Beitrag geladen.', '2 weitere Beiträge geladen.' ),
				'end'     => 'Keine weiteren Beiträge',
			),
			$got['data']['words']
		);
		$this->assertStringContainsString( '>Geschützt: Post 3 &amp; more</a>', $html );
		// The site's date_format ("F j, Y" as installed) in German.
		$this->assertStringContainsString( '<time datetime="2024-01-05T10:00:00">Januar 5, 2024</time>', $html );
		$this->assertSame( 'Es gibt keine Kurzfassung, da dies ein geschützter Beitrag ist.', $got['data']['view']['protected_excerpt'] );

		$this->site->php( 'update_option( "WPLANG", "ar" );' );
		$got = $this->parse( $this->front( array(), 'return do_shortcode( "[wploadmore batch=3]" );' )['html'] );
		$this->assertSame( 'مزيد من المقالات', $got['more'] );
		$this->assertSame( array( 'تم تحميل مقالة إضافية واحدة.', 'تم تحميل مقالتين إضافيتين.', 'تم تحميل 3 مقالات إضافية.' ), $got['data']['words']['loaded'] );
	}
}
