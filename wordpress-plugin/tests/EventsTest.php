<?php
/**
 * Change events, as a subscriber on the real Redis receives them.
 *
 * @package wploadmore
 */

/**
 * Each change a request makes reaches the channel as one event naming it,
 * without content; the counter key follows; no Redis, nothing is sent.
 */
class EventsTest extends WPLoadMore_Test_Case {

	/**
	 * The test's channel.
	 *
	 * @var string
	 */
	private $channel;

	/**
	 * The redis-cli SUBSCRIBE process and its pipes.
	 *
	 * @var array
	 */
	private $sub = array();

	/**
	 * A throwaway redis-server's process, if the test started one.
	 *
	 * @var resource|null
	 */
	private $redis_server = null;

	/**
	 * Installs wploadmore (once) with a mu-plugin that points it at the local
	 * Redis and at a channel of the test's own.
	 *
	 * @param string $url WPLOADMORE_REDIS, or null for none.
	 */
	private function install( $url = 'redis://127.0.0.1:6379/0' ) {
		$this->channel = 'wploadmore-phpunit-' . bin2hex( random_bytes( 4 ) ) . ':events';
		$config        = "<?php\ndefine( 'WPLOADMORE_REDIS_CHANNEL', " . var_export( $this->channel, true ) . " );\n";
		if ( null !== $url ) {
			$config .= 'define( ' . var_export( 'WPLOADMORE_REDIS', true ) . ', ' . var_export( $url, true ) . " );\n";
		}
		file_put_contents( $this->site->content . '/mu-plugins/wploadmore-redis.php', $config );
		if ( ! is_dir( $this->site->content . '/plugins/wploadmore' ) ) {
			$this->install_wploadmore();
		}
	}

	/**
	 * Subscribes to the test's channel with redis-cli, and waits until
	 * Redis counts the subscriber.
	 */
	private function listen() {
		$this->redis();
		$proc = proc_open( array( 'redis-cli', '-h', '127.0.0.1', '-p', '6379', '--raw', 'SUBSCRIBE', $this->channel ), array( 1 => array( 'pipe', 'w' ), 2 => array( 'pipe', 'w' ) ), $pipes );
		stream_set_blocking( $pipes[1], false );
		$this->sub = array( $proc, $pipes, '' );
		for ( $i = 0; $i < 200 && 1 !== $this->redis()->pubsub( 'numsub', array( $this->channel ) )[ $this->channel ]; $i++ ) {
			usleep( 10000 );
		}
		$this->sub[2] = '';
	}

	/**
	 * A connection to the local Redis; fails the test when it is down.
	 *
	 * @return Redis
	 */
	private function redis() {
		$r = new Redis();
		if ( ! @$r->connect( '127.0.0.1', 6379, 1 ) ) { // phpcs:ignore WordPress.PHP.NoSilencedErrors
			$this->fail( 'Redis is unreachable at 127.0.0.1:6379: start it with `make services`' );
		}
		return $r;
	}

	/**
	 * The events received since the last call: the raw payloads, read
	 * until the subscriber has been quiet for 300 ms.
	 *
	 * @return string[]
	 */
	private function received() {
		$quiet = microtime( true ) + 0.3;
		while ( microtime( true ) < $quiet ) {
			$chunk = stream_get_contents( $this->sub[1][1] );
			if ( '' !== $chunk && false !== $chunk ) {
				$this->sub[2] .= $chunk;
				$quiet         = microtime( true ) + 0.3;
			}
			usleep( 5000 );
		}
		$lines        = explode( "\n", rtrim( $this->sub[2], "\n" ) );
		$this->sub[2] = '';
		$events       = array();
		for ( $i = 0; $i + 2 < count( $lines ); $i += 3 ) {
			if ( 'message' === $lines[ $i ] ) {
				$events[] = $lines[ $i + 2 ];
			}
		}
		return $events;
	}

	/**
	 * Runs $code as one request and returns the one event it sent,
	 * decoded; fails unless exactly one arrived.
	 *
	 * @param string $code PHP after WordPress loaded.
	 * @return array
	 */
	private function one_event( $code ) {
		$this->site->php( $code );
		$got = $this->received();
		$this->assertCount( 1, $got, "the request sent not one event:\n" . implode( "\n", $got ) );
		$this->assertStringNotContainsString( 'SECRET', $got[0], 'the event carries content' );
		$event = json_decode( $got[0], true );
		$this->assertIsArray( $event, 'the event is not JSON: ' . $got[0] );
		$this->assertSame( 1, $event['v'] );
		$this->assertSame( (string) $event['seq'], $this->redis()->get( $this->channel . ':seq' ), 'the counter key is not the event\'s seq' );
		return $event;
	}

	/**
	 * Stops the subscriber and removes the counter key.
	 */
	protected function tearDown(): void {
		if ( $this->sub ) {
			proc_terminate( $this->sub[0] );
			proc_close( $this->sub[0] );
		}
		if ( $this->channel ) {
			$this->redis()->del( $this->channel . ':seq' );
		}
		if ( $this->redis_server ) {
			proc_terminate( $this->redis_server );
			proc_close( $this->redis_server );
		}
		parent::tearDown();
	}

	/**
	 * Publish, edit, a move to another category, trash, a term, a featured
	 * image and an option: each request sends one event naming the IDs it
	 * touched, numbered one after the other; a draft sends none.
	 */
	public function test_each_change_one_event() {
		$this->install();
		$ids = json_decode( $this->site->php( "echo json_encode( array( wp_insert_term( 'Alpha', 'category' )['term_id'], wp_insert_term( 'Beta', 'category' )['term_id'] ) );" ), true );
		list( $alpha, $beta ) = $ids;
		$this->listen();

		$published = $this->one_event( "\$GLOBALS['id'] = wp_insert_post( array( 'post_title' => 'SECRET title', 'post_content' => 'SECRET body', 'post_status' => 'publish', 'post_author' => 1, 'post_date' => '2026-03-04 05:06:07', 'post_category' => array( $alpha ) ) );" );
		$id        = $published['posts'][0];
		$this->assertSame( array( $id ), $published['posts'] );
		$this->assertSame( array( 'post' ), $published['post_types'] );
		$this->assertSame( array( 1 ), $published['authors'] );
		$this->assertSame( array( '2026-03-04' ), $published['dates'] );
		$this->assertContains( $alpha, $published['terms'] );
		$this->assertNotContains( $beta, $published['terms'], 'a publish in Alpha names Beta' );
		$this->assertSame( array( 'post' ), $published['kinds'], 'a publish names its terms and changes none: no term kind, which has the server read every term' );

		$edited = $this->one_event( "wp_update_post( array( 'ID' => $id, 'post_title' => 'SECRET new title' ) );" );
		$this->assertSame( array( $id ), $edited['posts'] );
		$this->assertSame( $published['seq'] + 1, $edited['seq'] );

		$moved = $this->one_event( "wp_set_post_terms( $id, array( $beta ), 'category' );" );
		$this->assertSame( array( 'post' ), $moved['kinds'] );
		$this->assertContains( $alpha, $moved['terms'] );
		$this->assertContains( $beta, $moved['terms'] );
		$this->assertSame( array( 'category' ), $moved['taxonomies'] );
		$this->site->php( "wp_set_post_terms( $id, array( $alpha ), 'category' );" );
		$this->received();

		$this->site->php( "wp_update_post( array( 'ID' => $id, 'post_title' => 'SECRET new title' ) ); wp_insert_post( array( 'post_title' => 'draft', 'post_status' => 'draft' ) );" );
		$this->assertSame( array(), $this->received(), 'an unchanged save or a draft sent an event' );

		$term = $this->one_event( "wp_update_term( $beta, 'category', array( 'name' => 'SECRET Beta' ) );" );
		$this->assertSame( array( 'term' ), $term['kinds'] );
		$this->assertSame( array( $beta ), $term['terms'] );
		$this->assertSame( array( 'category' ), $term['taxonomies'] );

		$attachment = (int) $this->site->php( "echo wp_insert_attachment( array( 'post_title' => 'img', 'post_mime_type' => 'image/png' ), 'img.png' );" );
		$this->received();
		$image = $this->one_event( "set_post_thumbnail( $id, $attachment );" );
		$this->assertSame( array( 'media' ), $image['kinds'] );
		$this->assertSame( array( $id ), $image['posts'] );

		$option = $this->one_event( "update_option( 'blogname', 'SECRET name' ); update_option( 'admin_email', 'x@example.org' );" );
		$this->assertSame( array( 'option' ), $option['kinds'] );
		$this->assertSame( array( 'blogname' ), $option['options'] );

		$trashed = $this->one_event( "wp_trash_post( $id );" );
		$this->assertSame( array( $id ), $trashed['posts'] );
		$this->assertContains( $alpha, $trashed['terms'] );
	}

	/**
	 * An attachment's metadata names the published post it features; a
	 * user's display name names the author; sticking a post names it and
	 * the option; a user's unrelated field sends nothing.
	 */
	public function test_media_user_sticky() {
		$this->install();
		$id         = (int) $this->site->php( "echo wp_insert_post( array( 'post_title' => 'a', 'post_status' => 'publish', 'post_author' => 1 ) );" );
		$attachment = (int) $this->site->php( "echo \$a = wp_insert_attachment( array( 'post_title' => 'img', 'post_mime_type' => 'image/png' ), 'img.png', $id ); set_post_thumbnail( $id, \$a );" );
		$this->listen();

		$media = $this->one_event( "wp_update_attachment_metadata( $attachment, array( 'width' => 10, 'height' => 10, 'file' => 'SECRET.png' ) );" );
		$this->assertSame( array( 'media' ), $media['kinds'] );
		$this->assertSame( array( $id ), $media['posts'] );
		$this->assertSame( array( 'post' ), $media['post_types'] );

		$user = $this->one_event( "wp_update_user( array( 'ID' => 1, 'display_name' => 'SECRET Name' ) );" );
		$this->assertSame( array( 'user' ), $user['kinds'] );
		$this->assertSame( array( 1 ), $user['authors'] );
		$this->site->php( "wp_update_user( array( 'ID' => 1, 'user_url' => 'https://example.org/me' ) );" );
		$this->assertSame( array(), $this->received(), 'a field the server does not show sent an event' );

		$sticky = $this->one_event( "stick_post( $id );" );
		$this->assertSame( array( 'option' ), $sticky['kinds'] );
		$this->assertSame( array( 'sticky_posts' ), $sticky['options'] );
		$this->assertSame( array( $id ), $sticky['posts'] );
	}

	/**
	 * Two publishes and a term edit in one request are one event naming
	 * both posts; deactivating the plugin sends "deactivated".
	 */
	public function test_coalesced_and_deactivated() {
		$this->install();
		$this->listen();
		$event = $this->one_event( "wp_insert_post( array( 'post_title' => 'a', 'post_status' => 'publish' ) ); wp_insert_post( array( 'post_title' => 'b', 'post_status' => 'publish' ) ); wp_update_term( 1, 'category', array( 'name' => 'Renamed' ) );" );
		$this->assertCount( 2, $event['posts'] );
		$this->assertSame( array( 'post', 'term' ), $event['kinds'] );
		$this->assertContains( 1, $event['terms'] );

		$this->site->deactivate( 'wploadmore/wploadmore.php' );
		$got = $this->received();
		$this->assertCount( 1, $got );
		$this->assertSame( array( 'deactivated' ), json_decode( $got[0], true )['kinds'] );
	}

	/**
	 * With no WPLOADMORE_REDIS, phpredis's session save_path names the
	 * Redis, here a throwaway redis-server; after a publish, an edit, a
	 * term and an option there, the only key is the counter, and the only
	 * commands run are the script's (EVAL, and INCR and PUBLISH inside).
	 */
	public function test_save_path_and_only_two_writes() {
		$port = $this->start_redis();
		$this->install( null );
		file_put_contents(
			$this->site->content . '/mu-plugins/wploadmore-redis.php',
			"<?php\nini_set( 'session.save_handler', 'redis' );\nini_set( 'session.save_path', 'tcp://127.0.0.1:$port?database=0&timeout=1' );\ndefine( 'WPLOADMORE_REDIS_CHANNEL', " . var_export( $this->channel, true ) . " );\n"
		);
		$r = new Redis();
		$r->connect( '127.0.0.1', $port, 1 );
		$r->rawCommand( 'CONFIG', 'RESETSTAT' );
		$id = (int) $this->site->php( "echo wp_insert_post( array( 'post_title' => 'a', 'post_status' => 'publish' ) );" );
		$this->site->php( "wp_update_post( array( 'ID' => $id, 'post_title' => 'b' ) ); wp_update_term( 1, 'category', array( 'name' => 'c' ) ); update_option( 'blogname', 'd' );" );
		$this->assertSame( array( $this->channel . ':seq' ), $r->keys( '*' ) );
		$this->assertSame( '2', $r->get( $this->channel . ':seq' ) );
		$stats = array_keys( array_filter( $r->info( 'commandstats' ), 'is_string' ) );
		sort( $stats );
		$this->assertSame( array( 'cmdstat_config|resetstat', 'cmdstat_eval', 'cmdstat_get', 'cmdstat_incr', 'cmdstat_keys', 'cmdstat_publish' ), $stats, 'the plugin ran commands besides its script (config, get and keys are the test\'s)' );
	}

	/**
	 * Starts a throwaway redis-server, stopped when the test ends.
	 *
	 * @return int Its port.
	 */
	private function start_redis() {
		$probe = stream_socket_server( 'tcp://127.0.0.1:0' );
		$port  = (int) substr( strrchr( stream_socket_get_name( $probe, false ), ':' ), 1 );
		fclose( $probe );
		$proc = proc_open( array( 'redis-server', '--port', (string) $port, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no' ), array( 1 => array( 'file', '/dev/null', 'w' ), 2 => array( 'file', '/dev/null', 'w' ) ), $pipes );
		$this->redis_server = $proc;
		$r                  = new Redis();
		for ( $i = 0; $i < 200; $i++ ) {
			try {
				if ( @$r->connect( '127.0.0.1', $port, 0.1 ) ) { // phpcs:ignore WordPress.PHP.NoSilencedErrors
					return $port;
				}
			} catch ( RedisException $e ) {
				usleep( 10000 );
			}
		}
		$this->fail( "redis-server did not start on port $port" );
	}

	/**
	 * Runs Site Health's events test and returns its status and label.
	 *
	 * @return array
	 */
	private function site_health() {
		$out = $this->site->php(
			"require_once ABSPATH . 'wp-admin/includes/class-wp-site-health.php';
\$test = WP_Site_Health::get_tests()['direct']['wploadmore_events'];
\$got  = call_user_func( \$test['test'] );
echo json_encode( array( \$got['status'], \$got['label'], wp_strip_all_tags( \$got['description'] ) ) );",
			array(
				'admin' => true,
				'user'  => 1,
			)
		);
		return json_decode( $out, true );
	}

	/**
	 * Site Health: good with Redis; a Redis that does not answer or none
	 * configured is said, and a publish then sends nothing and prints
	 * nothing.
	 */
	public function test_no_redis() {
		$this->install();
		$this->assertSame( array( 'good', 'wploadmore sends change events' ), array_slice( $this->site_health(), 0, 2 ) );

		$this->install( 'redis://:hunter2@127.0.0.1:1/0' );
		$this->listen();
		$this->site->php( "wp_insert_post( array( 'post_title' => 'a', 'post_status' => 'publish' ) );" );
		$this->assertSame( array(), $this->received() );
		$down = $this->site_health();
		$this->assertSame( array( 'recommended', 'wploadmore sends no change events' ), array_slice( $down, 0, 2 ) );
		$this->assertStringContainsString( 'Redis does not answer', $down[2] );
		$this->assertStringNotContainsString( 'hunter2', $down[2] );

		$this->install( null );
		$none = $this->site_health();
		$this->assertSame( 'recommended', $none[0] );
		$this->assertStringContainsString( 'No Redis is configured', $none[2] );
	}

	/**
	 * Without phpredis (PHP's scan dir without redis.ini) a publish sends
	 * nothing, and Site Health says why.
	 */
	public function test_no_phpredis() {
		$dir = sys_get_temp_dir() . '/wploadmore-ini-' . bin2hex( random_bytes( 4 ) );
		mkdir( $dir );
		foreach ( glob( PHP_CONFIG_FILE_SCAN_DIR . '/*.ini' ) as $ini ) {
			if ( false === strpos( basename( $ini ), 'redis' ) ) {
				copy( $ini, $dir . '/' . basename( $ini ) );
			}
		}
		$this->install();
		$this->listen();
		putenv( "PHP_INI_SCAN_DIR=$dir" );
		try {
			$this->assertSame( 'false', $this->site->php( "var_export( extension_loaded( 'redis' ) );" ) );
			$this->site->php( "wp_insert_post( array( 'post_title' => 'a', 'post_status' => 'publish' ) );" );
			$health = $this->site_health();
		} finally {
			putenv( 'PHP_INI_SCAN_DIR' );
			array_map( 'unlink', glob( "$dir/*" ) );
			rmdir( $dir );
		}
		$this->assertSame( array(), $this->received() );
		$this->assertSame( 'recommended', $health[0] );
		$this->assertStringContainsString( 'phpredis', $health[2] );
	}
}
