<?php
define( 'DB_NAME', 'wordpress' );
/* a comment that never ends
define( 'DB_USER', 'wp' );
