<?php
/**
 * Removes the plugin's options when the plugin is deleted.
 *
 * @package wploadmore
 */

defined( 'WP_UNINSTALL_PLUGIN' ) || exit;

delete_option( 'wploadmore_registry' );
delete_option( 'wploadmore_registry_hash' );
delete_option( 'wploadmore_server' );
delete_option( 'wploadmore_replace_pagination' );
