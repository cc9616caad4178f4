<?php
/**
 * The editor script's dependencies, as a build would write them.
 *
 * @package wploadmore
 */

return array(
	'dependencies' => array( 'wp-blocks', 'wp-element', 'wp-components', 'wp-block-editor', 'wp-server-side-render', 'wp-i18n' ),
	'version'      => '1.0.0',
);
