<?php
const DB_NAME = 'constdb';
const DB_USER = 'u';
const DB_PASSWORD = "pa\$\$word";
const DB_HOST = '10.0.0.5';
define('DB_CHARSET', 'latin1');
