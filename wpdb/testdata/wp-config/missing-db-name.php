<?php
// DB_NAME was deleted by mistake.
define( 'DB_USER', 'wp_user' );
define( 'DB_PASSWORD', 'secret' );
define( 'DB_HOST', 'localhost' );
$table_prefix = 'wp_';
