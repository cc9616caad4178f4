<?php
/**
 * Plugin Name:       wploadmore
 * Plugin URI:        https://github.com/wploadmore/wploadmore
 * Description:       Tells the wploadmore server what only PHP knows about the site: its post types and taxonomies, their archives, permalinks and labels, the public query vars, the terms whose posts listings leave out (WooCommerce's catalogue visibility); and a [wploadmore] shortcode and block that list posts in the theme's own cards, loading more from the server.
 * Version:           1.0.0
 * Requires at least: 6.1
 * Requires PHP:      7.4
 * Author:            The wploadmore authors
 * License:           GPL-2.0-or-later
 * License URI:       https://www.gnu.org/licenses/gpl-2.0.html
 * Text Domain:       wploadmore
 *
 * @package wploadmore
 */

/*
 * This program is free software; you can redistribute it and/or modify it
 * under the terms of the GNU General Public License as published by the Free
 * Software Foundation; either version 2 of the License, or (at your option)
 * any later version.
 */

defined( 'ABSPATH' ) || exit;

// Loaded twice (a copy in mu-plugins and one in plugins): the first wins.
if ( defined( 'WPLOADMORE_VERSION' ) ) {
	return;
}

define( 'WPLOADMORE_VERSION', '1.0.0' );
define( 'WPLOADMORE_FILE', __FILE__ );

require_once __DIR__ . '/includes/class-wploadmore-labels.php';
require_once __DIR__ . '/includes/class-wploadmore-registry.php';
require_once __DIR__ . '/includes/class-wploadmore-site-health.php';
require_once __DIR__ . '/includes/woocommerce.php';
require_once __DIR__ . '/includes/class-wploadmore-redis.php';
require_once __DIR__ . '/includes/class-wploadmore-events.php';
require_once __DIR__ . '/includes/class-wploadmore-events-media.php';
require_once __DIR__ . '/includes/class-wploadmore-events-health.php';
require_once __DIR__ . '/includes/class-wploadmore-events-heartbeat.php';
require_once __DIR__ . '/includes/class-wploadmore-mustache.php';
require_once __DIR__ . '/includes/class-wploadmore-html-references.php';
require_once __DIR__ . '/includes/class-wploadmore-html-tokens.php';
require_once __DIR__ . '/includes/class-wploadmore-text.php';
require_once __DIR__ . '/includes/class-wploadmore-card.php';
require_once __DIR__ . '/includes/class-wploadmore-listing.php';
require_once __DIR__ . '/includes/class-wploadmore-load-more.php';
require_once __DIR__ . '/includes/class-wploadmore-pagination.php';
require_once __DIR__ . '/includes/class-wploadmore-settings.php';

WPLoadMore_Labels::hook();
WPLoadMore_Registry::hook();
WPLoadMore_Site_Health::hook();
add_filter( 'wploadmore_hidden_terms', 'wploadmore_woocommerce_hidden_terms' );
WPLoadMore_Events::hook();
WPLoadMore_Events_Media::hook();
WPLoadMore_Events_Health::hook();
WPLoadMore_Events_Heartbeat::hook();
WPLoadMore_Load_More::hook();
WPLoadMore_Pagination::hook();
WPLoadMore_Settings::hook();

register_activation_hook( __FILE__, array( 'WPLoadMore_Registry', 'activate' ) );
register_activation_hook( __FILE__, array( 'WPLoadMore_Events', 'activate' ) );
register_deactivation_hook( __FILE__, array( 'WPLoadMore_Events', 'deactivate' ) );
