<?php
# Written by a hosting panel: double quotes, odd spacing, comments between lines.
define("DB_NAME","shop_wp");   // the shop
define ( "DB_USER" , "shop" ) ;
/* the password contains quotes and a backslash */
define(   'DB_PASSWORD'   ,   'it\'s "quoted" \\ back'   );
// define('DB_HOST', 'wrong.example.com');
# define('DB_HOST', 'wrong-too.example.com');
/*
define('DB_HOST', 'also-wrong.example.com');
*/
define("DB_HOST",
       "db.example.com:3307");
define("DB_CHARSET", "utf8mb4");
$table_prefix="shop_";
