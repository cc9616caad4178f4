<?php
// A plain site whose settings are set twice, as happens when a host's
// panel appends its own block: PHP keeps the first define() or const of
// each name (the second only raises a warning), so the later ones must
// not be read.
define( 'DB_NAME', 'firstdb' );
define( 'DB_USER', 'first_user' );
define( 'DB_PASSWORD', 'first-pass' );
define( 'DB_HOST', 'db.example.com' );
define( 'DB_CHARSET', 'utf8' );
const DB_COLLATE = '';

define( 'DB_NAME', 'seconddb' );
define( 'DB_USER', 'second_user' );
define( 'DB_PASSWORD', 'second-pass' );
define( 'DB_HOST', 'other.example.com:3307' );
define( 'DB_CHARSET', 'latin1' );
const DB_NAME = 'constdb';
const DB_HOST = '10.0.0.9';

$table_prefix = 'wp_';
