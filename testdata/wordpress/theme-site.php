<?php
// A small news site, built through WordPress's own functions, for the
// theme tests in Chromium: 14 posts in News and 4 in Sport, three a page,
// each with a featured image that WordPress cut into its sizes, and pages
// holding the [wploadmore] shortcode and the wploadmore/load-more block.
// It prints the IDs the tests need as JSON.
require_once ABSPATH . 'wp-admin/includes/image.php';

update_option('posts_per_page', 3);
update_option('date_format', 'F j, Y');
$news = wp_insert_term('News', 'category', array('slug' => 'news'));
$sport = wp_insert_term('Sport', 'category', array('slug' => 'sport'));
if (is_wp_error($news) || is_wp_error($sport)) { fwrite(STDERR, 'terms'); exit(1); }

// theme_site_image writes a JPEG of one colour and makes it an attachment
// with WordPress's metadata and sizes, as an upload in Media does.
function theme_site_image($n, $rgb) {
	$upload = wp_upload_dir('2024/06');
	$file = $upload['path'] . "/photo-$n.jpg";
	$img = imagecreatetruecolor(1200, 800);
	imagefill($img, 0, 0, imagecolorallocate($img, $rgb[0], $rgb[1], $rgb[2]));
	imagefilledrectangle($img, 100, 500, 1100, 700, imagecolorallocate($img, 255, 255, 255));
	imagejpeg($img, $file, 70);
	imagedestroy($img);
	$id = wp_insert_attachment(array('post_mime_type' => 'image/jpeg', 'post_title' => "Photo $n", 'post_status' => 'inherit'), $file);
	wp_update_attachment_metadata($id, wp_generate_attachment_metadata($id, $file));
	update_post_meta($id, '_wp_attachment_image_alt', "Photograph number $n");
	return $id;
}

$colours = array(array(32, 74, 135), array(130, 40, 40), array(30, 110, 60), array(120, 90, 20));
$ids = array('news' => array(), 'sport' => array());
for ($i = 1; $i <= 18; $i++) {
	$cat = $i <= 14 ? 'news' : 'sport';
	$term = $cat === 'news' ? $news['term_id'] : $sport['term_id'];
	$id = wp_insert_post(array(
		'post_title' => ($cat === 'news' ? 'News story ' : 'Match report ') . $i,
		'post_content' => "<!-- wp:paragraph -->\n<p>Story $i opens with a sentence about the harbour &amp; the town, then a second one that runs on past where an excerpt stops, so that the card shows only its start and the reader follows the link for the rest of it.</p>\n<!-- /wp:paragraph -->",
		'post_status' => 'publish',
		'post_date' => sprintf('2024-06-%02d 09:00:00', $i),
		'post_category' => array($term),
	), true);
	if (is_wp_error($id)) { fwrite(STDERR, $id->get_error_message()); exit(1); }
	set_post_thumbnail($id, theme_site_image($i, $colours[$i % 4]));
	$ids[$cat][] = $id;
}
// WordPress's own first post is in Uncategorized; it stays.

$pages = array();
foreach (array(
	'shortcode' => array('Latest news', '[wploadmore category="news"]'),
	'six' => array('News, six first', '[wploadmore category="news" first="6"]'),
	'block' => array('News in a block', '<!-- wp:wploadmore/load-more {"category":"news"} /-->'),
) as $key => $page) {
	$pages[$key] = wp_insert_post(array('post_type' => 'page', 'post_title' => $page[0], 'post_content' => $page[1], 'post_status' => 'publish'), true);
	if (is_wp_error($pages[$key])) { fwrite(STDERR, $pages[$key]->get_error_message()); exit(1); }
}
echo wp_json_encode(array('news' => $news['term_id'], 'pages' => $pages, 'ids' => $ids));
