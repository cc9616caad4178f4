<?php
// Connects to MySQL for each DB_HOST given as an argument exactly as
// WordPress does (wpdb::parse_db_host, then mysqli_real_connect with its
// pieces) and prints one JSON object: DB_HOST => the server's
// @@skip_networking ("0" or "1"), or "error" when the connection fails.
// Run it with -d mysqli.default_socket=PATH; the user is root, no password.
//
// Usage: php dbhost.php HOST...

define('ABSPATH', '/usr/share/wordpress/');
function absint($n) { return abs((int) $n); } // wp-includes/functions.php
require ABSPATH . 'wp-includes/class-wpdb.php';

$wpdb = (new ReflectionClass('wpdb'))->newInstanceWithoutConstructor();
mysqli_report(MYSQLI_REPORT_OFF);
$out = [];
foreach (array_slice($argv, 1) as $dbhost) {
	// As wpdb::db_connect does.
	$host = $dbhost;
	$port = null;
	$socket = null;
	$is_ipv6 = false;
	$host_data = $wpdb->parse_db_host($dbhost);
	if ($host_data) {
		list($host, $port, $socket, $is_ipv6) = $host_data;
	}
	if ($is_ipv6 && extension_loaded('mysqlnd')) {
		$host = "[$host]";
	}
	$dbh = mysqli_init();
	mysqli_options($dbh, MYSQLI_OPT_CONNECT_TIMEOUT, 3);
	if (!@mysqli_real_connect($dbh, $host, 'root', '', null, $port, $socket)) {
		$out[$dbhost] = 'error';
		continue;
	}
	$out[$dbhost] = (string) mysqli_query($dbh, 'SELECT @@skip_networking')->fetch_row()[0];
	mysqli_close($dbh);
}
echo json_encode($out, JSON_UNESCAPED_SLASHES), "\n";
