<?php
/**
 * The Redis change events go to: where it is, and the one write.
 *
 * @package wploadmore
 */

defined( 'ABSPATH' ) || exit;

/**
 * Finds the site's Redis (WPLOADMORE_REDIS, else phpredis's session
 * save_path) and sends an event there: the counter INCRed and the event
 * published, in one script so that events reach subscribers in the order
 * of their numbers.
 */
class WPLoadMore_Redis {

	/**
	 * The channel's default name; WPLOADMORE_REDIS_CHANNEL changes it.
	 */
	const CHANNEL = 'wploadmore:events';

	/**
	 * What the counter key's name adds to the channel's.
	 */
	const COUNTER_SUFFIX = ':seq';

	/**
	 * Seconds to connect and to wait for an answer: a down Redis must not
	 * hold the saving request for long.
	 */
	const TIMEOUT = 0.5;

	/**
	 * INCRs the counter (KEYS[1]) and publishes the event on the channel
	 * (ARGV[1]) with the new number as its seq: ARGV[2] is the event's
	 * JSON object after its opening brace.
	 */
	const SCRIPT = "local n = redis.call('INCR', KEYS[1])\nredis.call('PUBLISH', ARGV[1], '{\"seq\":' .. n .. ',' .. ARGV[2])\nreturn n";

	/**
	 * The channel's name.
	 *
	 * @return string
	 */
	public static function channel() {
		return defined( 'WPLOADMORE_REDIS_CHANNEL' ) ? (string) WPLOADMORE_REDIS_CHANNEL : self::CHANNEL;
	}

	/**
	 * The counter key's name: the channel's with ":seq".
	 *
	 * @return string
	 */
	public static function counter() {
		return self::channel() . self::COUNTER_SUFFIX;
	}

	/**
	 * The Redis URL in the server's -redis form: WPLOADMORE_REDIS, else
	 * the session save_path when phpredis keeps sessions, else ''.
	 *
	 * @return string
	 */
	public static function url() {
		if ( defined( 'WPLOADMORE_REDIS' ) ) {
			return (string) WPLOADMORE_REDIS;
		}
		return self::url_from_save_path( (string) ini_get( 'session.save_handler' ), (string) ini_get( 'session.save_path' ) );
	}

	/**
	 * The URL phpredis's session save_path names, in the -redis form:
	 * tcp://host:port?auth=…&database=… (the first of a list) for the redis
	 * handler, seed[]=host:port&… for rediscluster; '' for other handlers.
	 *
	 * @param string $handler session.save_handler.
	 * @param string $path    session.save_path.
	 * @return string
	 */
	public static function url_from_save_path( $handler, $path ) {
		if ( 'rediscluster' === $handler ) {
			parse_str( $path, $q );
			$seeds = isset( $q['seed'] ) ? (array) $q['seed'] : array();
			if ( ! $seeds ) {
				return '';
			}
			$auth = isset( $q['auth'] ) && is_string( $q['auth'] ) ? ':' . rawurlencode( $q['auth'] ) . '@' : '';
			return 'redis+cluster://' . $auth . implode( ',', $seeds ) . '/';
		}
		if ( 'redis' !== $handler ) {
			return '';
		}
		$first = trim( explode( ',', $path )[0] );
		$u     = parse_url( $first );
		if ( ! $u || empty( $u['host'] ) ) {
			return '';
		}
		parse_str( isset( $u['query'] ) ? $u['query'] : '', $q );
		$scheme = isset( $u['scheme'] ) && 'tls' === $u['scheme'] ? 'rediss' : 'redis';
		$auth   = isset( $q['auth'] ) && is_string( $q['auth'] ) ? ':' . rawurlencode( $q['auth'] ) . '@' : '';
		$port   = isset( $u['port'] ) ? $u['port'] : 6379;
		$db     = isset( $q['database'] ) ? (int) $q['database'] : 0;
		return "$scheme://$auth{$u['host']}:$port/$db";
	}

	/**
	 * Connects to the Redis at $url.
	 *
	 * @param string $url A URL in the server's -redis form.
	 * @return Redis|RedisCluster
	 * @throws RedisException|RedisClusterException|InvalidArgumentException When it cannot.
	 */
	public static function connect( $url ) {
		$u = parse_url( $url );
		if ( ! $u || empty( $u['scheme'] ) ) {
			throw new InvalidArgumentException( 'WPLOADMORE_REDIS is not a Redis URL' );
		}
		$user = isset( $u['user'] ) ? rawurldecode( $u['user'] ) : '';
		$pass = isset( $u['pass'] ) ? rawurldecode( $u['pass'] ) : '';
		$auth = '' === $pass ? null : ( '' === $user ? $pass : array( $user, $pass ) );
		switch ( strtolower( $u['scheme'] ) ) {
			case 'redis':
			case 'rediss':
				$host = ( 'rediss' === strtolower( $u['scheme'] ) ? 'tls://' : '' ) . $u['host'];
				$port = isset( $u['port'] ) ? $u['port'] : 6379;
				return self::single( $host, $port, $auth, (int) trim( isset( $u['path'] ) ? $u['path'] : '', '/' ) );
			case 'redis+sentinel':
				return self::via_sentinel( $u, $auth );
			case 'redis+cluster':
			case 'rediss+cluster':
				$seeds = explode( ',', preg_replace( '#^[a-z+]+://([^@/]*@)?([^/?]*).*$#i', '$2', $url ) );
				return new RedisCluster( null, $seeds, self::TIMEOUT, self::TIMEOUT, false, $auth );
		}
		throw new InvalidArgumentException( 'WPLOADMORE_REDIS: scheme must be redis://, rediss://, redis+sentinel:// or redis+cluster://' );
	}

	/**
	 * Connects to one Redis.
	 *
	 * @param string            $host Its host.
	 * @param int               $port Its port.
	 * @param string|array|null $auth AUTH's arguments.
	 * @param int               $db   The database.
	 * @return Redis
	 * @throws RedisException When it cannot.
	 */
	private static function single( $host, $port, $auth, $db ) {
		$r = new Redis();
		if ( ! $r->connect( $host, (int) $port, self::TIMEOUT, null, 0, self::TIMEOUT ) ) {
			throw new RedisException( "cannot connect to $host:$port" );
		}
		if ( null !== $auth && ! $r->auth( $auth ) ) {
			throw new RedisException( 'AUTH refused' );
		}
		if ( $db && ! $r->select( $db ) ) {
			throw new RedisException( "SELECT $db refused" );
		}
		return $r;
	}

	/**
	 * Connects to the master the sentinels of a redis+sentinel:// URL name:
	 * redis+sentinel://[user:password@]host[:port],…/master[/db], with
	 * sentinel_user and sentinel_password for the sentinels' own AUTH.
	 *
	 * @param array             $u    The parsed URL.
	 * @param string|array|null $auth The master's AUTH.
	 * @return Redis
	 * @throws RedisException When no sentinel names a master.
	 */
	private static function via_sentinel( array $u, $auth ) {
		$parts = explode( '/', trim( isset( $u['path'] ) ? $u['path'] : '', '/' ) );
		$hosts = explode( ',', $u['host'] . ( isset( $u['port'] ) ? ':' . $u['port'] : '' ) );
		parse_str( isset( $u['query'] ) ? $u['query'] : '', $q );
		$s_auth = null;
		if ( isset( $q['sentinel_password'] ) && is_string( $q['sentinel_password'] ) && '' !== $q['sentinel_password'] ) {
			$s_auth = isset( $q['sentinel_user'] ) && is_string( $q['sentinel_user'] ) && '' !== $q['sentinel_user'] ? array( $q['sentinel_user'], $q['sentinel_password'] ) : $q['sentinel_password'];
		}
		foreach ( $hosts as $hostport ) {
			list( $host, $port ) = array_pad( explode( ':', $hostport, 2 ), 2, '26379' );
			try {
				// A plain connection: RedisSentinel takes no password before phpredis 6.
				$s    = self::single( $host, (int) $port, $s_auth, 0 );
				$addr = $s->rawCommand( 'SENTINEL', 'get-master-addr-by-name', $parts[0] );
				$s->close();
			} catch ( RedisException $e ) {
				continue;
			}
			if ( is_array( $addr ) && 2 === count( $addr ) ) {
				return self::single( $addr[0], (int) $addr[1], $auth, isset( $parts[1] ) ? (int) $parts[1] : 0 );
			}
		}
		throw new RedisException( 'no sentinel names the master ' . $parts[0] );
	}

	/**
	 * Sends an event: INCRs the counter and publishes $event with the
	 * counter's new value as its seq.
	 *
	 * @param array $event The event, without seq.
	 * @return int The event's seq.
	 * @throws RedisException|RedisClusterException|InvalidArgumentException When Redis fails.
	 */
	public static function send( array $event ) {
		$r    = self::connect( self::url() );
		$body = substr( wp_json_encode( $event, JSON_UNESCAPED_SLASHES ), 1 );
		$n    = $r->eval( self::SCRIPT, array( self::counter(), self::channel(), $body ), 1 );
		$r->close();
		if ( ! is_int( $n ) ) {
			throw new RedisException( 'the event script failed: ' . (string) $r->getLastError() );
		}
		return $n;
	}
}
