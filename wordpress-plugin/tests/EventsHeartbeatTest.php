<?php
/**
 * The heartbeat, as a throwaway Redis receives it.
 *
 * @package wploadmore
 */

/**
 * Activation schedules the heartbeat once a minute in WP-Cron; a run of
 * wp-cron.php sends it as one event naming nothing, through the script;
 * deactivation removes it.
 */
class EventsHeartbeatTest extends WPLoadMore_Test_Case {

	/**
	 * The throwaway redis-server's process.
	 *
	 * @var resource|null
	 */
	private $redis_server = null;

	/**
	 * The redis-cli SUBSCRIBE process and its stdout.
	 *
	 * @var array
	 */
	private $sub = array();

	/**
	 * Stops the subscriber and the redis-server.
	 */
	protected function tearDown(): void {
		foreach ( array( $this->sub ? $this->sub[0] : null, $this->redis_server ) as $proc ) {
			if ( $proc ) {
				proc_terminate( $proc );
				proc_close( $proc );
			}
		}
		parent::tearDown();
	}

	/**
	 * Starts a redis-server of the test's own, so that its keys and
	 * command counts are the plugin's alone.
	 *
	 * @return Redis A connection to it.
	 */
	private function start_redis() {
		$probe = stream_socket_server( 'tcp://127.0.0.1:0' );
		$port  = (int) substr( strrchr( stream_socket_get_name( $probe, false ), ':' ), 1 );
		fclose( $probe );
		$this->redis_server = proc_open( array( 'redis-server', '--port', (string) $port, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no' ), array( 1 => array( 'file', '/dev/null', 'w' ), 2 => array( 'file', '/dev/null', 'w' ) ), $pipes );
		$r = new Redis();
		for ( $i = 0; $i < 200; $i++ ) {
			try {
				if ( @$r->connect( '127.0.0.1', $port, 0.1 ) ) { // phpcs:ignore WordPress.PHP.NoSilencedErrors
					return $r;
				}
			} catch ( RedisException $e ) {
				usleep( 10000 );
			}
		}
		$this->fail( "redis-server did not start on port $port" );
	}

	/**
	 * Subscribes to the channel with redis-cli, once Redis counts it.
	 *
	 * @param Redis  $r       The Redis.
	 * @param string $channel The channel.
	 */
	private function listen( Redis $r, $channel ) {
		$proc = proc_open( array( 'redis-cli', '-h', $r->getHost(), '-p', (string) $r->getPort(), '--raw', 'SUBSCRIBE', $channel ), array( 1 => array( 'pipe', 'w' ), 2 => array( 'pipe', 'w' ) ), $pipes );
		stream_set_blocking( $pipes[1], false );
		$this->sub = array( $proc, $pipes[1] );
		for ( $i = 0; $i < 200 && 1 !== $r->pubsub( 'numsub', array( $channel ) )[ $channel ]; $i++ ) {
			usleep( 10000 );
		}
		usleep( 100000 );
		stream_get_contents( $pipes[1] ); // the subscription's own reply
	}

	/**
	 * The messages received, read until the subscriber is quiet for 300 ms.
	 *
	 * @return string[]
	 */
	private function received() {
		$out   = '';
		$quiet = microtime( true ) + 0.3;
		while ( microtime( true ) < $quiet ) {
			$chunk = stream_get_contents( $this->sub[1] );
			if ( '' !== $chunk && false !== $chunk ) {
				$out  .= $chunk;
				$quiet = microtime( true ) + 0.3;
			}
			usleep( 5000 );
		}
		$lines  = explode( "\n", rtrim( $out, "\n" ) );
		$events = array();
		for ( $i = 0; $i + 2 < count( $lines ); $i += 3 ) {
			if ( 'message' === $lines[ $i ] ) {
				$events[] = $lines[ $i + 2 ];
			}
		}
		return $events;
	}

	/**
	 * The heartbeat's schedule as WP-Cron holds it: the next run (false
	 * when none), its schedule's name and interval.
	 *
	 * @return array
	 */
	private function scheduled() {
		return json_decode(
			$this->site->php(
				"\$s = wp_get_schedule( 'wploadmore_heartbeat' );
\$all = wp_get_schedules();
echo json_encode( array( wp_next_scheduled( 'wploadmore_heartbeat' ), \$s, isset( \$all[ \$s ] ) ? \$all[ \$s ]['interval'] : null ) );"
			),
			true
		);
	}

	/**
	 * Scheduled once a minute at activation; wp-cron.php run when it is
	 * due (as the system cron docs/push.md advises does) sends one event
	 * of kind heartbeat naming nothing, the counter one more; the beat
	 * writes no option, and Redis sees only the script (EVAL, INCR,
	 * PUBLISH) and no key but the counter; a schedule lost is made again
	 * by wp-admin; deactivation removes it, and only "deactivated" is sent.
	 */
	public function test_heartbeat() {
		$r       = $this->start_redis();
		$channel = 'wploadmore-phpunit-' . bin2hex( random_bytes( 4 ) ) . ':events';
		file_put_contents( $this->site->content . '/mu-plugins/wploadmore-redis.php', "<?php\ndefine( 'WPLOADMORE_REDIS', 'redis://127.0.0.1:" . $r->getPort() . "/0' );\ndefine( 'WPLOADMORE_REDIS_CHANNEL', " . var_export( $channel, true ) . " );\n" );
		$before = time();
		$this->install_wploadmore();
		list( $next, $schedule, $interval ) = $this->scheduled();
		$this->assertIsInt( $next, 'no heartbeat scheduled at activation' );
		$this->assertGreaterThanOrEqual( $before, $next );
		$this->assertSame( array( 'wploadmore_minute', 60 ), array( $schedule, $interval ) );
		$this->assertSame( '1', $r->get( $channel . ':seq' ), 'activation sent not one event' );

		$this->listen( $r, $channel );
		$r->rawCommand( 'CONFIG', 'RESETSTAT' );
		$beat = $this->site->request( "do_action( 'wploadmore_heartbeat' );" );
		$this->assertSame( array(), $beat['writes'], 'the beat wrote options' );
		$this->site->php( "require ABSPATH . 'wp-cron.php';" ); // due since activation
		$got = $this->received();
		$this->assertCount( 2, $got, "not one event a beat:\n" . implode( "\n", $got ) );
		foreach ( $got as $i => $payload ) {
			$event = json_decode( $payload, true );
			$this->assertSame( $i + 2, $event['seq'] );
			$this->assertSame( array( 'heartbeat' ), $event['kinds'] );
			foreach ( array( 'posts', 'post_types', 'terms', 'taxonomies', 'authors', 'dates', 'options' ) as $field ) {
				$this->assertSame( array(), $event[ $field ], "a heartbeat names $field" );
			}
		}
		$this->assertSame( '3', $r->get( $channel . ':seq' ) );
		$this->assertSame( array( $channel . ':seq' ), $r->keys( '*' ) );
		$stats = array_keys( array_filter( $r->info( 'commandstats' ), 'is_string' ) );
		sort( $stats );
		$this->assertSame( array( 'cmdstat_config|resetstat', 'cmdstat_eval', 'cmdstat_get', 'cmdstat_incr', 'cmdstat_keys', 'cmdstat_publish' ), $stats, 'the plugin ran commands besides its script (config, get and keys are the test\'s)' );
		$this->assertGreaterThan( time(), $this->scheduled()[0], 'the run did not schedule the next beat' );

		// Lost (an update runs no activation): wp-admin schedules it again.
		$this->site->php( "wp_clear_scheduled_hook( 'wploadmore_heartbeat' );" );
		$this->assertFalse( $this->scheduled()[0] );
		$this->site->php( "require_once ABSPATH . 'wp-admin/includes/admin.php'; do_action( 'admin_init' );", array( 'admin' => true, 'user' => 1 ) );
		$this->assertSame( array( 'wploadmore_minute', 60 ), array_slice( $this->scheduled(), 1 ), 'wp-admin did not schedule the missing heartbeat' );

		$this->site->deactivate( 'wploadmore/wploadmore.php' );
		$this->assertSame( array( false, false, null ), $this->scheduled(), 'the heartbeat is still scheduled after deactivation' );
		$got = $this->received();
		$this->assertCount( 1, $got );
		$this->assertSame( array( 'deactivated' ), json_decode( $got[0], true )['kinds'] );
	}
}
