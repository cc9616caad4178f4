<?php
/**
 * Labels in the site's locale, whoever triggers the write.
 *
 * @package wploadmore
 */

/**
 * An admin whose profile language differs from the site's triggers the
 * write: the registry's labels are still the site's.
 */
class LabelsTest extends WPLoadMore_Test_Case {

	/**
	 * Installs German: Debian's wordpress-l10n catalogues and the test
	 * types' own, compiled with msgfmt.
	 */
	protected function setUp(): void {
		parent::setUp();
		foreach ( array( 'de_DE.mo', 'admin-de_DE.mo' ) as $file ) {
			if ( ! file_exists( WPLOADMORE_TEST_LANGUAGES . '/' . $file ) ) {
				$this->fail( "needs Debian's wordpress-l10n package (" . WPLOADMORE_TEST_LANGUAGES . "/$file is missing): apt-get install wordpress-l10n" );
			}
			copy( WPLOADMORE_TEST_LANGUAGES . '/' . $file, $this->site->content . '/languages/' . $file );
		}
		$po  = dirname( WPLOADMORE_TEST_PLUGINS ) . '/languages/wploadmore-test-types-de_DE.po';
		$mo  = $this->site->content . '/languages/plugins/wploadmore-test-types-de_DE.mo';
		$cmd = 'msgfmt -o ' . escapeshellarg( $mo ) . ' ' . escapeshellarg( $po ) . ' 2>&1';
		exec( $cmd, $output, $status );
		if ( 0 !== $status ) {
			$this->fail( "needs Debian's gettext package (msgfmt failed: " . implode( "\n", $output ) . '): apt-get install gettext' );
		}
		$this->install_wploadmore();
		$this->install_test_plugin( 'wploadmore-test-types.php' );
	}

	/**
	 * Labels the registry holds and the labels the request itself showed.
	 *
	 * @return array array( request result, labels WordPress showed the admin ).
	 */
	private function admin_request() {
		// No registry yet: the admin's next request writes it.
		$this->site->php( "delete_option( 'wploadmore_registry' ); delete_option( 'wploadmore_registry_hash' );" );
		$result = $this->site->request(
			"echo json_encode( array( get_user_locale(), get_post_type_object( 'post' )->labels->name, get_post_type_object( 'book' )->labels->name, __( 'Books', 'wploadmore-test-types' ) ) );",
			array(
				'admin' => true,
				'user'  => 1,
			)
		);
		$this->assertCount( 2, self::registry_writes( $result ), 'the admin request did not write' );
		$this->assertIntact( $result );
		return array( $result, json_decode( $result['printed'], true ) );
	}

	/**
	 * The labels of a registry as "kind/name/label" => value.
	 *
	 * @param array $registry The registry.
	 * @return array
	 */
	private static function labels( array $registry ) {
		return array(
			'post_types/post/name'          => $registry['post_types']['post']['labels']['name'],
			'post_types/book/name'          => $registry['post_types']['book']['labels']['name'],
			'post_types/book/singular_name' => $registry['post_types']['book']['labels']['singular_name'],
			'post_types/book/archives'      => $registry['post_types']['book']['labels']['archives'],
			'post_types/event/archives'     => $registry['post_types']['event']['labels']['archives'],
			'taxonomies/genre/name'         => $registry['taxonomies']['genre']['labels']['name'],
			'taxonomies/category/name'      => $registry['taxonomies']['category']['labels']['name'],
		);
	}

	/**
	 * An English site, an admin in German: the registry is English, the
	 * admin still sees German for the rest of the request, and a visitor's
	 * request, in the site's locale, finds the registry current.
	 */
	public function test_english_site_german_admin() {
		$this->site->php( "update_user_meta( 1, 'locale', 'de_DE' );" );
		list( $result, $shown ) = $this->admin_request();
		$this->assertSame( array( 'de_DE', 'Beiträge', 'Bücher', 'Bücher' ), $shown, 'the admin request was not in German, or not after the write' );
		$this->assertSame( 'en_US', $result['registry']['locale'] );
		$this->assertSame(
			array(
				'post_types/post/name'          => 'Posts',
				'post_types/book/name'          => 'Books',
				'post_types/book/singular_name' => 'Book',
				'post_types/book/archives'      => 'Book Archives',
				'post_types/event/archives'     => 'Events',
				'taxonomies/genre/name'         => 'Genres',
				'taxonomies/category/name'      => 'Categories',
			),
			self::labels( $result['registry'] )
		);
		$this->assertSame( array(), self::registry_writes( $this->site->request() ), 'a visitor rewrote what the admin wrote' );
	}

	/**
	 * A German site, an admin in English: the registry is German.
	 */
	public function test_german_site_english_admin() {
		$this->site->php( "update_option( 'WPLANG', 'de_DE' ); update_user_meta( 1, 'locale', 'en_US' );" );
		list( $result, $shown ) = $this->admin_request();
		$this->assertSame( array( 'en_US', 'Posts', 'Books', 'Books' ), $shown, 'the admin request was not in English, or not after the write' );
		$this->assertSame( 'de_DE', $result['registry']['locale'] );
		$this->assertSame(
			array(
				'post_types/post/name'          => 'Beiträge',
				'post_types/book/name'          => 'Bücher',
				'post_types/book/singular_name' => 'Buch',
				'post_types/book/archives'      => 'Buch-Archiv',
				'post_types/event/archives'     => 'Veranstaltungen',
				'taxonomies/genre/name'         => 'Gattungen',
				'taxonomies/category/name'      => 'Kategorien',
			),
			self::labels( $result['registry'] )
		);
		$this->assertSame( array(), self::registry_writes( $this->site->request() ), 'a visitor rewrote what the admin wrote' );
	}

	/**
	 * An admin in another locale writes only a flagged change: building the
	 * registry there needs switching locales. An unflagged change (a query
	 * var a plugin adds) is left to the next request in the site's locale.
	 */
	public function test_admin_in_other_locale_writes_only_a_flagged_change() {
		$this->site->php( "update_user_meta( 1, 'locale', 'de_DE' );" );
		file_put_contents( $this->site->content . '/mu-plugins/query-var.php', "<?php add_filter( 'query_vars', function ( \$vars ) { \$vars[] = 'wploadmore_test_var'; return \$vars; } );\n" );
		$admin = array(
			'admin' => true,
			'user'  => 1,
		);
		$this->assertSame( array(), self::registry_writes( $this->site->request( '', $admin ) ), 'an unflagged admin request in another locale wrote' );
		$visitor = $this->site->request();
		$this->assertCount( 2, self::registry_writes( $visitor ), 'the next front-end request did not write the change' );
		$this->assertContains( 'wploadmore_test_var', $visitor['registry']['public_query_vars'] );
		$this->assertSame( 'Books', $visitor['registry']['post_types']['book']['labels']['name'] );

		$this->site->php( "update_option( 'wploadmore_registry_hash', '' );" );
		$flagged = $this->site->request( '', $admin );
		// The registry itself is rewritten only when its generated_gmt moved.
		$this->assertContains( 'update wploadmore_registry_hash', self::registry_writes( $flagged ), 'the admin did not write a flagged change' );
		$this->assertSame( $visitor['hash'], $flagged['hash'], 'the admin wrote another registry than the front end' );
	}
}
