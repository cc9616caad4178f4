<?php
/**
 * Change events for featured images: which posts they name.
 *
 * @package wploadmore
 */

/**
 * A featured image's change names the published posts whose card it
 * changes, with their types, authors, dates and terms: a post's own
 * `_thumbnail_id`, or an attachment's file, metadata or alt text, which
 * name every published post featuring it; an image featured by nothing
 * sends nothing; more posts than the bound name the attachment alone,
 * with no post types (unknown scope). Each request's event is read as the
 * plugin would send it at shutdown (WPLoadMore_Events::pending()).
 */
class EventsMediaTest extends WPLoadMore_Test_Case {

	/**
	 * What setUp made: categories alpha and beta, published posts one (in
	 * alpha, by user 1) and two (in beta, by user 2), a draft, an image
	 * featured by the three, and a lone image featured by none.
	 *
	 * @var array
	 */
	private $ids;

	/**
	 * Installs wploadmore (no Redis: nothing is sent) and the posts.
	 */
	protected function setUp(): void {
		parent::setUp();
		$this->install_wploadmore();
		$this->ids = json_decode(
			$this->site->php(
				"\$two_user = wp_insert_user( array( 'user_login' => 'two', 'user_pass' => 'x', 'role' => 'author' ) );
\$alpha = wp_insert_term( 'Alpha', 'category' )['term_id'];
\$beta  = wp_insert_term( 'Beta', 'category' )['term_id'];
\$one   = wp_insert_post( array( 'post_title' => 'one', 'post_status' => 'publish', 'post_author' => 1, 'post_date' => '2026-01-02 03:04:05', 'post_category' => array( \$alpha ) ) );
\$two   = wp_insert_post( array( 'post_title' => 'two', 'post_status' => 'publish', 'post_author' => \$two_user, 'post_date' => '2026-02-03 04:05:06', 'post_category' => array( \$beta ) ) );
\$draft = wp_insert_post( array( 'post_title' => 'draft', 'post_status' => 'draft', 'post_category' => array( \$beta ) ) );
\$image = wp_insert_attachment( array( 'post_title' => 'img', 'post_mime_type' => 'image/png' ), 'img.png' );
\$lone  = wp_insert_attachment( array( 'post_title' => 'lone', 'post_mime_type' => 'image/png' ), 'lone.png' );
foreach ( array( \$one, \$two, \$draft ) as \$id ) {
	set_post_thumbnail( \$id, \$image );
}
echo json_encode( compact( 'alpha', 'beta', 'one', 'two', 'draft', 'image', 'lone', 'two_user' ) );"
			),
			true
		);
		$this->assertIsArray( $this->ids );
	}

	/**
	 * Runs $code as one request and returns the event it would send, or
	 * null for none.
	 *
	 * @param string $code PHP after WordPress loaded.
	 * @return array|null
	 */
	private function event( $code ) {
		$out = $this->site->php( $code . "\necho json_encode( WPLoadMore_Events::pending() );" );
		return json_decode( $out, true );
	}

	/**
	 * Asserts that $event is a media event naming posts one and two, with
	 * their types, authors, dates and categories, and nothing else.
	 *
	 * @param array|null $event The event.
	 * @param string     $what  What made it.
	 */
	private function assertNamesBoth( $event, $what ) {
		$this->assertIsArray( $event, "$what sent no event" );
		$this->assertSame( array( 'media' ), $event['kinds'], $what );
		$this->assertSame( array( $this->ids['one'], $this->ids['two'] ), $event['posts'], "$what: not the two published posts featuring it" );
		$this->assertSame( array( 'post' ), $event['post_types'], $what );
		$this->assertSame( array( 1, $this->ids['two_user'] ), $event['authors'], $what );
		$this->assertSame( array( '2026-01-02', '2026-02-03' ), $event['dates'], $what );
		$this->assertSame( array( $this->ids['alpha'], $this->ids['beta'] ), $event['terms'], $what );
	}

	/**
	 * Setting and removing a published post's featured image names that
	 * post; a draft's names nothing.
	 */
	public function test_featured_image_set_and_removed() {
		$one  = $this->ids['one'];
		$lone = $this->ids['lone'];
		foreach ( array(
			'set'     => "set_post_thumbnail( $one, $lone );",
			'removed' => "delete_post_thumbnail( $one );",
		) as $what => $code ) {
			$event = $this->event( $code );
			$this->assertIsArray( $event, "featured image $what: no event" );
			$this->assertSame( array( 'media' ), $event['kinds'] );
			$this->assertSame( array( $one ), $event['posts'], "featured image $what" );
			$this->assertSame( array( 'post' ), $event['post_types'] );
			$this->assertSame( array( $this->ids['alpha'] ), $event['terms'], "featured image $what" );
			$this->assertSame( array( '2026-01-02' ), $event['dates'] );
		}
		$this->assertNull( $this->event( 'set_post_thumbnail( ' . $this->ids['draft'] . ", $lone );" ), "a draft's featured image sent an event" );
	}

	/**
	 * An image featured by two published posts and a draft: its metadata,
	 * its file and its alt text each name the two posts with their terms,
	 * never the draft or the image itself; a key the server does not show
	 * sends nothing.
	 */
	public function test_attachment_featured_by_two() {
		$image = $this->ids['image'];
		foreach ( array(
			'metadata'      => "wp_update_attachment_metadata( $image, array( 'width' => 10, 'height' => 10, 'file' => 'img.png' ) );",
			'file'          => "update_attached_file( $image, 'other.png' );",
			'alt text'      => "update_post_meta( $image, '_wp_attachment_image_alt', 'An alt' );",
			'alt text gone' => "delete_post_meta( $image, '_wp_attachment_image_alt' );",
		) as $what => $code ) {
			$this->assertNamesBoth( $this->event( $code ), $what );
		}
		$this->assertNull( $this->event( "update_post_meta( $image, '_edit_lock', '1:1' );" ), 'a key the server does not show sent an event' );
	}

	/**
	 * An image featured by no post: its alt text and metadata send
	 * nothing, as no card shows them.
	 */
	public function test_image_featured_by_nothing() {
		$lone = $this->ids['lone'];
		$this->assertNull( $this->event( "update_post_meta( $lone, '_wp_attachment_image_alt', 'An alt' ); wp_update_attachment_metadata( $lone, array( 'width' => 1, 'height' => 1 ) );" ) );
	}

	/**
	 * An image deleted: WordPress deletes every post's `_thumbnail_id`
	 * pointing at it at once (delete_all, object ID 0); the event names
	 * the two published posts, and not the request's global post, which
	 * get_post( 0 ) would return.
	 */
	public function test_attachment_deleted() {
		$image = $this->ids['image'];
		$other = (int) $this->site->php( "echo wp_insert_post( array( 'post_title' => 'other', 'post_status' => 'publish', 'post_date' => '2025-05-05 05:05:05' ) );" );
		$event = $this->event( "\$GLOBALS['post'] = get_post( $other ); wp_delete_attachment( $image, true );" );
		$this->assertNamesBoth( $event, 'the image deleted' );
		$this->assertSame( '', $this->site->php( "echo get_post_meta( {$this->ids['one']}, '_thumbnail_id', true );" ), 'WordPress left the featured image' );
	}

	/**
	 * An attachment's key deleted from every post at once names no post
	 * and no post types: unknown scope.
	 */
	public function test_key_deleted_from_every_post() {
		$event = $this->event( "delete_metadata( 'post', null, '_wp_attached_file', '', true );" );
		$this->assertIsArray( $event, 'no event' );
		$this->assertSame( array( 'media' ), $event['kinds'] );
		$this->assertSame( array(), $event['posts'] );
		$this->assertSame( array(), $event['post_types'] );
	}

	/**
	 * More than 256 published posts featuring an image: its alt text names
	 * the attachment alone, and no post types even beside a publish in the
	 * same request, which the server takes as unknown scope.
	 */
	public function test_more_than_the_bound() {
		$image = $this->ids['image'];
		$this->site->php(
			"global \$wpdb;
for ( \$i = 0; \$i < 256; \$i++ ) {
	\$wpdb->insert( \$wpdb->posts, array( 'post_title' => \"many \$i\", 'post_status' => 'publish', 'post_type' => 'post', 'post_date' => '2024-01-01 00:00:00', 'post_content' => '', 'post_excerpt' => '', 'to_ping' => '', 'pinged' => '', 'post_content_filtered' => '' ) );
	\$wpdb->insert( \$wpdb->postmeta, array( 'post_id' => \$wpdb->insert_id, 'meta_key' => '_thumbnail_id', 'meta_value' => (string) $image ) );
}"
		);
		$event = $this->event( "update_post_meta( $image, '_wp_attachment_image_alt', 'Many' ); wp_insert_post( array( 'post_title' => 'new', 'post_status' => 'publish' ) );" );
		$this->assertIsArray( $event );
		$this->assertContains( 'media', $event['kinds'] );
		$this->assertContains( $image, $event['posts'] );
		$this->assertCount( 2, $event['posts'], 'the attachment and the new post' );
		$this->assertSame( array(), $event['post_types'], 'post types named: the server would take it as scoped' );
	}
}
