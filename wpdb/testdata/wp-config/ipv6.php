<?php
define('DB_NAME', 'wordpress');
define('DB_USER', 'root');
define('DB_PASSWORD', '');
define('DB_HOST', '[::1]:3306');
define('DB_NAME', 'ignored: PHP keeps the first definition');
$table_prefix = 'wp_';
$table_prefix = 'wpv6_'; // the last assignment wins
