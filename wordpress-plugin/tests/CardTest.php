<?php
/**
 * The card: its record, and the PHP mustache renderer against mustache.js.
 *
 * @package wploadmore
 */

/**
 * A card rendered by PHP must equal the same card rendered in the browser
 * by mustache.js from the server's record.
 */
class CardTest extends WPLoadMore_Test_Case {

	/**
	 * Renders each [template, view] with the plugin's shipped mustache.js
	 * in node, as the browser does.
	 *
	 * @param array $cases Each array( template, view ), the view JSON text.
	 * @return array The outputs, 'ERR: …' for a template that throws.
	 */
	private static function mustache_js( array $cases ) {
		$node = trim( (string) shell_exec( 'command -v node' ) );
		if ( '' === $node ) {
			self::fail( "needs Debian's nodejs package (no node on PATH): apt-get install nodejs" );
		}
		$in = tempnam( sys_get_temp_dir(), 'wploadmore-mustache-' );
		file_put_contents( $in, json_encode( $cases ) );
		$script = 'const M = require(process.argv[1]); const cases = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));'
			. 'process.stdout.write(JSON.stringify(cases.map(([t, v]) => { try { return M.render(t, JSON.parse(v)); } catch (e) { return "ERR: " + e.message; } })));';
		$cmd = escapeshellarg( $node ) . ' -e ' . escapeshellarg( $script ) . ' ' . escapeshellarg( WPLOADMORE_TEST_PLUGIN . '/assets/vendor/mustache.min.js' ) . ' ' . escapeshellarg( $in );
		$out = shell_exec( $cmd );
		unlink( $in );
		$got = json_decode( (string) $out, true );
		if ( ! is_array( $got ) ) {
			self::fail( 'node printed ' . substr( (string) $out, 0, 500 ) );
		}
		return $got;
	}

	/**
	 * Renders each [template, view] with the plugin's renderer, in a
	 * WordPress request.
	 *
	 * @param array $cases Each array( template, view ), the view JSON text.
	 * @return array
	 */
	private function mustache_php( array $cases ) {
		$in = tempnam( sys_get_temp_dir(), 'wploadmore-mustache-' );
		file_put_contents( $in, json_encode( $cases ) );
		$out = $this->site->php(
			'$out = array();
foreach ( json_decode( file_get_contents( ' . var_export( $in, true ) . ' ), true ) as $case ) {
	try {
		$out[] = WPLoadMore_Mustache::render( $case[0], json_decode( $case[1] ) );
	} catch ( InvalidArgumentException $e ) {
		$out[] = "ERR: " . $e->getMessage();
	}
}
echo json_encode( $out );'
		);
		unlink( $in );
		return json_decode( $out, true );
	}

	/**
	 * The renderer gives mustache.js's text for the same template and
	 * view: escaping (& < > " ' / ` =), {{{raw}}} and {{& raw}}, sections
	 * over lists, objects and JavaScript's truthy values, dotted names,
	 * the context stack, inverted sections, comments, standalone lines,
	 * set delimiters and partials with none given; and it refuses the
	 * templates mustache.js refuses.
	 */
	public function test_renderer_matches_mustache_js() {
		$this->install_wploadmore();
		$cases = array(
			array( 'Hi {{name}} {{{name}}} {{& name}} {{ name }}', '{"name":"<a href=\'x\'>=`/\"&amp;"}' ),
			array( "{{#a}}\n  {{b.c}}\n{{/a}}\n{{^a}}none{{/a}}", '{"a":{"b":{"c":1}}}' ),
			array( '{{#list}}[{{.}}]{{/list}}{{^list}}empty{{/list}}|{{list.length}}', '{"list":[]}' ),
			array( '{{#list}}[{{.}}]{{/list}}|{{list.length}}|{{list.0}}|{{list}}', '{"list":[1,"0",0,false,null,2.5,true]}' ),
			array( '{{#z}}Z{{/z}}{{^z}}nz{{/z}}{{#s}}S{{s}}{{/s}}{{#e}}E{{/e}}{{^e}}ne{{/e}}{{#f}}F{{/f}}{{t}}{{n}}{{u}}|{{o}}', '{"z":0,"s":"0","e":"","f":false,"t":true,"n":null,"o":{"k":1}}' ),
			array( "  {{! comment }}  \nx\n  {{#a}}  \n  y\n  {{/a}}\n{{=<% %>=}}\n<% a.b %> {{a}}\n<%={{ }}=%>{{a.b}}", '{"a":{"b":"q"}}' ),
			array( '{{#a}}{{#b}}{{c}}{{d}}{{/b}}{{/a}}', '{"a":{"d":"outer"},"b":{"c":"C"},"d":"root"}' ),
			array( '{{a.b.c}}|{{x.y}}|{{a.b}}', '{"a":{"b":null},"x":{"y":0}}' ),
			array( '{{#a}}{{b.c}}{{/a}}', '{"a":{"b":{}},"b":{"c":"root"}}' ),
			array( "\t{{#a}}\r\nA\r\n{{/a}}\r\n", '{"a":true}' ),
			array( '{{#a}}{{.}}{{/a}}{{#n}}{{.}}{{/n}}', '{"a":{"k":1},"n":12.5}' ),
			array( "{{> p}}x\n  {{> p}}\ny", '{}' ),
			array( "é {{x}} \u{00A0}{{#a}}\u{00A0}\n\u{3000}{{/a}}\u{3000}\n", '{"x":"ü\u2028","a":1}' ),
			array( '{{#image}}<img src="{{src}}"{{#srcset}} srcset="{{srcset}}"{{/srcset}}>{{/image}}{{^image}}no{{/image}}', '{"image":{"src":"a b.jpg?x=1&y=2","srcset":"a.jpg 1x, b.jpg 2x"}}' ),
			array( '{{big}} {{neg}} {{tiny}} {{f}}', '{"big":12345678901,"neg":-3,"tiny":0.5,"f":1.0}' ),
			array( '{{#a}}x', '{}' ),
			array( '{{/a}}', '{}' ),
			array( '{{#a}}{{/b}}', '{}' ),
			array( '{{a', '{}' ),
			array( '{{{a}}', '{}' ),
		);
		$this->assertSame( self::mustache_js( $cases ), $this->mustache_php( $cases ) );
	}

	/**
	 * The card as PHP renders it for the first batch equals the card
	 * mustache.js renders from the same record, for posts with an image
	 * (srcset, sizes, alt), a password, markup and references in the
	 * title, and the plugin's own card template.
	 */
	public function test_card_matches_mustache_js() {
		$this->install_wploadmore();
		$out = $this->site->php(
			'$attachment = wp_insert_attachment( array( "post_mime_type" => "image/jpeg", "post_title" => "photo", "post_status" => "inherit" ), "2024/06/photo.jpg" );
update_post_meta( $attachment, "_wp_attached_file", "2024/06/photo.jpg" );
update_post_meta( $attachment, "_wp_attachment_image_alt", "A <b>bold</b> & \"quoted\" alt" );
$sizes = array();
foreach ( array( "thumbnail" => array( 150, 150 ), "medium" => array( 300, 200 ), "medium_large" => array( 768, 512 ), "large" => array( 1024, 683 ) ) as $name => $wh ) {
	$sizes[ $name ] = array( "file" => "photo-" . $wh[0] . "x" . $wh[1] . ".jpg", "width" => $wh[0], "height" => $wh[1], "mime-type" => "image/jpeg" );
}
wp_update_attachment_metadata( $attachment, array( "width" => 1536, "height" => 1024, "file" => "2024/06/photo.jpg", "sizes" => $sizes ) );
$ids = array();
$ids[] = wp_insert_post( array( "post_title" => "Fish &amp; <em>Chips</em> &#8211; \"x\" \'y\' `z` a=b", "post_content" => "<p>Caf&eacute; &amp; more</p>", "post_status" => "publish", "post_date" => "2024-02-29 23:59:59" ) );
set_post_thumbnail( $ids[0], $attachment );
$ids[] = wp_insert_post( array( "post_title" => "Secret", "post_content" => "hidden", "post_status" => "publish", "post_password" => "pw" ) );
set_post_thumbnail( $ids[1], $attachment );
$ids[] = wp_insert_post( array( "post_title" => "", "post_content" => "<!-- wp:spacer /-->", "post_status" => "publish" ) );
$template = WPLoadMore_Card::template()["text"];
$extra = array( "protected_excerpt" => "There is no excerpt because this is a protected post." );
$out = array();
foreach ( $ids as $id ) {
	$record = WPLoadMore_Card::record( get_post( $id ) );
	$out[] = array(
		"record" => $record,
		"json"   => wp_json_encode( array_merge( $record, $extra ) ),
		"html"   => WPLoadMore_Mustache::render( $template, WPLoadMore_Card::view( $record, $extra ) ),
		"wp"     => array(
			"src"    => wp_get_attachment_image_src( $attachment, "medium_large" ),
			"srcset" => wp_get_attachment_image_srcset( $attachment, "medium_large" ),
			"sizes"  => wp_get_attachment_image_sizes( $attachment, "medium_large" ),
		),
	);
}
echo json_encode( array( "template" => $template, "cards" => $out ) );'
		);
		$got      = json_decode( $out, true );
		$template = $got['template'];
		$cases    = array();
		foreach ( $got['cards'] as $card ) {
			$cases[] = array( $template, $card['json'] );
		}
		$this->assertSame( self::mustache_js( $cases ), array_column( $got['cards'], 'html' ) );

		list( $image, $protected, $empty ) = $got['cards'];
		$wp = $image['wp'];
		$this->assertSame(
			array(
				'src'    => $wp['src'][0],
				'width'  => $wp['src'][1],
				'height' => $wp['src'][2],
				'srcset' => $wp['srcset'],
				'sizes'  => $wp['sizes'],
				'alt'    => 'A bold & "quoted" alt',
			),
			$image['record']['image']
		);
		$this->assertSame( 768, $image['record']['image']['width'], 'not the medium_large size the server uses' );
		$this->assertStringContainsString( 'srcset="http:&#x2F;&#x2F;example.org&#x2F;wp-content&#x2F;uploads&#x2F;2024&#x2F;06&#x2F;photo-768x512.jpg 768w', $image['html'] );
		$this->assertSame( 'Fish & Chips – "x" \'y\' `z` a=b', $image['record']['title'] );
		$this->assertSame( 'Café & more...', $image['record']['post_content'] );
		$this->assertSame( '2024-02-29T23:59:59', $image['record']['datetime'] );
		$this->assertSame( 'February 29, 2024', $image['record']['date'] );
		$this->assertSame( array( 'ID', 'post_title', 'post_content', 'post_name', 'post_date', 'title', 'date', 'datetime', 'protected', 'link', 'image' ), array_keys( $image['record'] ), "not the server's record" );

		$this->assertTrue( $protected['record']['protected'] );
		$this->assertSame( 'Protected: Secret', $protected['record']['title'] );
		$this->assertSame( '...', $protected['record']['post_content'] );
		$this->assertArrayNotHasKey( 'image', $protected['record'], "a protected post's image is shown" );
		$this->assertStringContainsString( 'There is no excerpt because this is a protected post.', $protected['html'] );

		$this->assertSame( '...', $empty['record']['post_content'] );
		$this->assertArrayNotHasKey( 'image', $empty['record'] );
	}

	/**
	 * The plugin's mustache.js is npm's mustache 4.2.0 minified, as
	 * package-lock.json pins it, with its license header.
	 */
	public function test_vendored_mustache_js() {
		$root    = dirname( WPLOADMORE_TEST_PLUGIN, 2 );
		$shipped = file_get_contents( WPLOADMORE_TEST_PLUGIN . '/assets/vendor/mustache.min.js' );
		$lines   = explode( "\n", $shipped, 2 );
		$this->assertStringStartsWith( '/*! mustache.js 4.2.0 | MIT License', $lines[0] );
		$this->assertSame( file_get_contents( $root . '/node_modules/mustache/mustache.min.js' ), $lines[1], 'assets/vendor/mustache.min.js is not node_modules/mustache/mustache.min.js: copy it again' );
		$lock = json_decode( file_get_contents( $root . '/package-lock.json' ), true );
		$this->assertSame( '4.2.0', $lock['packages']['node_modules/mustache']['version'] );
	}
}
