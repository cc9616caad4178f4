<?php
// Makes the changes a test asks for on its standard input, one JSON
// object a line, each as a request of its own would: the change through
// WordPress's own function, then the plugin's send, which a request runs
// at shutdown. Answers a line per change: what changed, and `returned`,
// microtime(true) once WordPress's function returned.
//
// Before the first line it makes what the changes use: categories A and B
// with a post each, two images, and prints the categories' term and
// term_taxonomy IDs as a line.

function push_image( $file ) {
	$id = wp_insert_attachment( array( 'post_mime_type' => 'image/jpeg', 'post_title' => $file, 'post_status' => 'inherit' ), "2026/11/$file" );
	wp_update_attachment_metadata( $id, array( 'width' => 800, 'height' => 600, 'file' => "2026/11/$file", 'sizes' => array() ) );
	return $id;
}

$term_a = wp_insert_term( 'Category A', 'category', array( 'slug' => 'cat-a' ) );
$term_b = wp_insert_term( 'Category B', 'category', array( 'slug' => 'cat-b' ) );
$cat_a  = $term_a['term_id'];
$cat_b  = $term_b['term_id'];
foreach ( array( $cat_a, $cat_b ) as $cat ) {
	wp_insert_post( array( 'post_title' => "Resident of $cat", 'post_content' => 'x', 'post_status' => 'publish', 'post_date' => '2020-01-01 00:00:00', 'post_category' => array( $cat ) ) );
}
$images = array( 'a' => push_image( 'img-a.jpg' ), 'b' => push_image( 'img-b.jpg' ) );
// A date format with a day's name, which each language spells its own way.
update_option( 'date_format', 'l, j. F Y' );
WPLoadMore_Events::send();
echo json_encode( array( 'cat_a' => $cat_a, 'cat_b' => $cat_b, 'tt_a' => $term_a['term_taxonomy_id'], 'tt_b' => $term_b['term_taxonomy_id'] ) ), "\n";

// push_date is post $id's date as WordPress shows it in the site's
// language now: this process loaded WordPress in the language it had then,
// so it switches to the option's.
function push_date( $id ) {
	$switched = switch_to_locale( get_option( 'WPLANG' ) ? get_option( 'WPLANG' ) : 'en_US' );
	$date     = get_the_date( '', $id );
	if ( $switched ) {
		restore_previous_locale();
	}
	return $date;
}

// push_cron runs post $id's due publish_future_post event as wp-cron.php
// runs a due event: unscheduled, then its hook's action.
function push_cron( $id ) {
	foreach ( _get_cron_array() as $ts => $hooks ) {
		if ( $ts > time() || empty( $hooks['publish_future_post'] ) ) {
			continue;
		}
		foreach ( $hooks['publish_future_post'] as $event ) {
			if ( $event['args'] === array( $id ) ) {
				wp_unschedule_event( $ts, 'publish_future_post', $event['args'] );
				do_action_ref_array( 'publish_future_post', $event['args'] );
				return true;
			}
		}
	}
	return false;
}

add_filter( 'wp_untrash_post_status', 'wp_untrash_post_set_previous_status', 10, 3 );
while ( false !== ( $line = fgets( STDIN ) ) ) {
	$c   = json_decode( $line, true );
	$id  = isset( $c['id'] ) ? (int) $c['id'] : 0;
	$out = array();
	switch ( $c['op'] ) {
		case 'publish':
			$cats = isset( $c['term'] ) ? array( (int) $c['term'] ) : array();
			$id   = wp_insert_post( array( 'post_title' => $c['title'], 'post_content' => 'x', 'post_status' => 'publish', 'post_category' => $cats ) );
			break;
		case 'update':
			wp_update_post( array( 'ID' => $id, 'post_title' => $c['title'] ) );
			break;
		case 'trash':
			wp_trash_post( $id );
			break;
		case 'untrash':
			wp_untrash_post( $id );
			break;
		case 'schedule':
			// Scheduled as near as WordPress lets (a minute ahead, or it
			// publishes at once), in the site's time: future, so no event.
			$date = wp_date( 'Y-m-d H:i:s', time() + 62 );
			$cats = isset( $c['term'] ) ? array( (int) $c['term'] ) : array();
			$id   = wp_insert_post( array( 'post_title' => $c['title'], 'post_content' => 'x', 'post_status' => 'future', 'post_date' => $date, 'post_category' => $cats ) );
			break;
		case 'cron':
			$out['ran'] = push_cron( $id );
			break;
		case 'terms':
			wp_set_post_terms( $id, array( (int) $c['term'] ), 'category' );
			break;
		case 'image':
			set_post_thumbnail( $id, $images[ $c['image'] ] );
			break;
		case 'alt':
			update_post_meta( $images[ $c['image'] ], '_wp_attachment_image_alt', $c['title'] );
			break;
		case 'tag':
			wp_set_post_tags( $id, $c['title'], true );
			break;
		case 'blogname':
			update_option( 'blogname', $c['title'] );
			break;
		case 'language':
			update_option( 'WPLANG', $c['title'] );
			break;
	}
	$out['returned'] = microtime( true );
	$out['id']       = $id;
	$out['status']   = $id ? get_post_status( $id ) : '';
	WPLoadMore_Events::send();
	if ( 'language' === $c['op'] ) {
		$out['date'] = push_date( $id );
	}
	echo json_encode( $out ), "\n";
}
