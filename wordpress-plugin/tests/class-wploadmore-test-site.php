<?php
/**
 * A WordPress site for one test: its own table prefix in the run's
 * database, its own WP_CONTENT_DIR, and requests run as php child
 * processes.
 *
 * @package wploadmore
 */

/**
 * A real WordPress site (Debian's WordPress, installed with wp_install()).
 */
class WPLoadMore_Test_Site {

	/**
	 * The site's table prefix.
	 *
	 * @var string
	 */
	public $prefix;

	/**
	 * The site's WP_CONTENT_DIR.
	 *
	 * @var string
	 */
	public $content;

	/**
	 * Sequence for table prefixes.
	 *
	 * @var int
	 */
	private static $count = 0;

	/**
	 * Installs a site: "wploadmore test", home http://example.org, plain
	 * permalinks, user 1 the admin.
	 */
	public function __construct() {
		self::$count++;
		$this->prefix  = 's' . self::$count . '_';
		$this->content = sys_get_temp_dir() . '/wploadmore-phpunit-' . bin2hex( random_bytes( 4 ) );
		foreach ( array( 'plugins', 'mu-plugins', 'themes', 'languages/plugins', 'uploads' ) as $dir ) {
			mkdir( $this->content . '/' . $dir, 0755, true );
		}
		$this->php(
			"require_once ABSPATH . 'wp-admin/includes/upgrade.php';
wp_install( 'wploadmore test', 'admin', 'admin@example.org', false, '', 'password' );
update_option( 'siteurl', 'http://example.org' );
update_option( 'home', 'http://example.org' );
update_option( 'permalink_structure', '' );",
			array( 'installing' => true )
		);
	}

	/**
	 * Removes the site's content folder.
	 */
	public function remove() {
		self::remove_tree( $this->content );
	}

	/**
	 * Removes a folder and what it holds.
	 *
	 * @param string $path The folder.
	 */
	private static function remove_tree( $path ) {
		if ( is_link( $path ) || ! is_dir( $path ) ) {
			@unlink( $path ); // phpcs:ignore WordPress.PHP.NoSilencedErrors
			return;
		}
		foreach ( scandir( $path ) as $name ) {
			if ( '.' !== $name && '..' !== $name ) {
				self::remove_tree( $path . '/' . $name );
			}
		}
		rmdir( $path );
	}

	/**
	 * Copies the file or folder $src to $dst.
	 *
	 * @param string $src The source.
	 * @param string $dst The destination.
	 */
	public static function copy( $src, $dst ) {
		if ( ! is_dir( $src ) ) {
			if ( ! is_dir( dirname( $dst ) ) ) {
				mkdir( dirname( $dst ), 0755, true );
			}
			copy( $src, $dst );
			return;
		}
		mkdir( $dst, 0755, true );
		foreach ( scandir( $src ) as $name ) {
			if ( '.' !== $name && '..' !== $name ) {
				self::copy( $src . '/' . $name, $dst . '/' . $name );
			}
		}
	}

	/**
	 * Copies a plugin into the plugins folder and activates it with
	 * activate_plugin(), as Plugins › Activate does.
	 *
	 * @param string $src  The plugin's folder or file.
	 * @param string $main Its main file, relative to the plugins folder.
	 * @param array  $opts Options for php().
	 * @return string What the request printed.
	 */
	public function install_plugin( $src, $main, array $opts = array() ) {
		self::copy( $src, $this->content . '/plugins/' . basename( $src ) );
		return $this->activate( $main, $opts );
	}

	/**
	 * Activates an installed plugin.
	 *
	 * @param string $main Its main file, relative to the plugins folder.
	 * @param array  $opts Options for php().
	 * @return string What the request printed.
	 */
	public function activate( $main, array $opts = array() ) {
		return $this->php(
			"require_once ABSPATH . 'wp-admin/includes/plugin.php';
\$result = activate_plugin( " . var_export( $main, true ) . ' );
if ( is_wp_error( $result ) ) {
	fwrite( STDERR, $result->get_error_message() );
}',
			$opts
		);
	}

	/**
	 * Deactivates a plugin, as Plugins › Deactivate does.
	 *
	 * @param string $main Its main file, relative to the plugins folder.
	 */
	public function deactivate( $main ) {
		$this->php( "require_once ABSPATH . 'wp-admin/includes/plugin.php'; deactivate_plugins( " . var_export( $main, true ) . ' );' );
	}

	/**
	 * Runs a request: php loads WordPress on the site and runs $code.
	 *
	 * Options: 'admin' (bool) loads it as wp-admin does (is_admin());
	 * 'user' (int) is the logged-in user; 'installing' (bool) runs the
	 * installer's way.
	 *
	 * Besides what $code prints, the request records which options it
	 * wrote: $GLOBALS['wploadmore_test_writes'] lists "add name" and
	 * "update name", from WordPress's added_option and updated_option
	 * actions.
	 *
	 * @param string $code PHP statements.
	 * @param array  $opts Options.
	 * @return string What the request printed.
	 * @throws RuntimeException When php fails or prints to stderr.
	 */
	public function php( $code, array $opts = array() ) {
		$script = $this->preamble( $opts ) . "require ABSPATH . 'wp-settings.php';\n" . $code . "\n";
		$file   = tempnam( sys_get_temp_dir(), 'wploadmore-run-' );
		file_put_contents( $file, $script );
		$cmd  = array( PHP_BINARY, '-d', 'display_errors=stderr', '-d', 'error_reporting=E_ALL & ~E_DEPRECATED', '-d', 'log_errors=0', $file );
		$proc = proc_open( $cmd, array( 1 => array( 'pipe', 'w' ), 2 => array( 'pipe', 'w' ) ), $pipes );
		$out  = stream_get_contents( $pipes[1] );
		$err  = stream_get_contents( $pipes[2] );
		fclose( $pipes[1] );
		fclose( $pipes[2] );
		$status = proc_close( $proc );
		unlink( $file );
		if ( 0 !== $status || '' !== $err ) {
			throw new RuntimeException( "php (WordPress) exited $status\nstderr: $err\nstdout: " . substr( $out, 0, 2000 ) );
		}
		return $out;
	}

	/**
	 * The script's lines before WordPress loads: wp-config's constants and
	 * the request.
	 *
	 * @param array $opts Options of php().
	 * @return string
	 */
	private function preamble( array $opts ) {
		$constants = array(
			'DB_NAME'                    => WPLOADMORE_TEST_DB_NAME,
			'DB_USER'                    => 'root',
			'DB_PASSWORD'                => '',
			'DB_HOST'                    => WPLOADMORE_TEST_DB_HOST,
			'DB_CHARSET'                 => 'utf8mb4',
			'DB_COLLATE'                 => '',
			'ABSPATH'                    => WPLOADMORE_TEST_ABSPATH,
			'WP_CONTENT_DIR'             => $this->content,
			'WP_HTTP_BLOCK_EXTERNAL'     => true,
			'DISABLE_WP_CRON'            => true,
			'AUTOMATIC_UPDATER_DISABLED' => true,
		);
		if ( ! empty( $opts['admin'] ) ) {
			$constants['WP_ADMIN'] = true;
		}
		$php = "<?php\n";
		foreach ( $constants as $name => $value ) {
			$php .= 'define( ' . var_export( $name, true ) . ', ' . var_export( $value, true ) . " );\n";
		}
		$php .= '$table_prefix = ' . var_export( $this->prefix, true ) . ";\n";
		$php .= "\$_SERVER['HTTP_HOST'] = 'example.org';
\$_SERVER['SERVER_NAME'] = 'example.org';
\$_SERVER['SERVER_PORT'] = '80';
\$_SERVER['REQUEST_URI'] = " . ( empty( $opts['admin'] ) ? "'/'" : "'/wp-admin/index.php'" ) . ";
\$_SERVER['REQUEST_METHOD'] = 'GET';
\$_SERVER['SERVER_PROTOCOL'] = 'HTTP/1.1';
\$GLOBALS['wploadmore_test_writes'] = array();
\$GLOBALS['wp_filter']['added_option'][10][] = array( 'function' => function ( \$name ) { \$GLOBALS['wploadmore_test_writes'][] = 'add ' . \$name; }, 'accepted_args' => 1 );
\$GLOBALS['wp_filter']['updated_option'][10][] = array( 'function' => function ( \$name ) { \$GLOBALS['wploadmore_test_writes'][] = 'update ' . \$name; }, 'accepted_args' => 1 );
";
		if ( ! empty( $opts['user'] ) ) {
			// As a login cookie would: the user is known from WP::init() on.
			$php .= "\$GLOBALS['wp_filter']['determine_current_user'][PHP_INT_MAX][] = array( 'function' => function () { return " . (int) $opts['user'] . "; }, 'accepted_args' => 1 );\n";
		}
		if ( ! empty( $opts['installing'] ) ) {
			// The installer mails the admin; there is no mail here.
			$php .= "define( 'WP_INSTALLING', true );\nfunction wp_new_blog_notification() {}\n";
		}
		return $php;
	}

	/**
	 * Runs a request and returns what the plugin left: the options it
	 * wrote, the stored registry (decoded) and its hash, and what $code
	 * printed.
	 *
	 * @param string $code PHP statements to run after WordPress loaded.
	 * @param array  $opts Options of php().
	 * @return array array( 'writes' => string[], 'registry' => array|null,
	 *               'json' => string|false, 'hash' => string|false,
	 *               'printed' => string ).
	 */
	public function request( $code = '', array $opts = array() ) {
		$out = $this->php(
			"ob_start();\n$code\n\$printed = ob_get_clean();
echo json_encode( array(
	'writes'  => \$GLOBALS['wploadmore_test_writes'],
	'json'    => get_option( 'wploadmore_registry' ),
	'hash'    => get_option( 'wploadmore_registry_hash' ),
	'printed' => \$printed,
) );",
			$opts
		);
		$result = json_decode( $out, true );
		if ( ! is_array( $result ) ) {
			throw new RuntimeException( 'request printed no JSON: ' . substr( $out, 0, 2000 ) );
		}
		$result['registry'] = is_string( $result['json'] ) ? json_decode( $result['json'], true ) : null;
		return $result;
	}
}
