<?php
// Runs the WordPress plugin's excerpt and plain-text title
// (WPLoadMore_Text::excerpt and ::plain) over a JSON list of base64
// contents on stdin, with WordPress's own
// strip_shortcodes (Debian's wordpress package) and core's seven
// shortcodes registered, and prints a JSON list of [excerpt, title].
define('ABSPATH', '/usr/share/wordpress/');
define('WPINC', 'wp-includes');
// The plugin API is not loaded: no filter changes anything.
function apply_filters($hook, $value) { return $value; }
function _doing_it_wrong() {}
function __($text) { return $text; }
require ABSPATH . 'wp-includes/formatting.php';
require ABSPATH . 'wp-includes/kses.php';
require ABSPATH . 'wp-includes/shortcodes.php';
foreach (['html-references', 'html-tokens', 'text'] as $file) {
	require __DIR__ . "/../../../wordpress-plugin/wploadmore/includes/class-wploadmore-$file.php";
}
foreach (['wp_caption', 'caption', 'gallery', 'playlist', 'audio', 'video', 'embed'] as $tag) {
	add_shortcode($tag, '__return_empty_string');
}
$out = [];
foreach (json_decode(stream_get_contents(STDIN)) as $content) {
	$html = base64_decode($content);
	$out[] = [WPLoadMore_Text::excerpt($html), WPLoadMore_Text::plain($html)];
}
echo json_encode($out, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR);
