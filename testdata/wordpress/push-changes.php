<?php
// Makes the changes a test asks for on its standard input, one JSON
// object a line, each as a request of its own would: the change through
// WordPress's own function, then the plugin's send, which a request runs
// at shutdown. Answers a line per change: what changed, and `returned`,
// microtime(true) once WordPress's function returned.
//
// Before the first line it makes what the changes use: categories A and B
// with a post each, two images, and prints them as a line.

function push_image( $file ) {
	$id = wp_insert_attachment( array( 'post_mime_type' => 'image/jpeg', 'post_title' => $file, 'post_status' => 'inherit' ), "2026/11/$file" );
	wp_update_attachment_metadata( $id, array( 'width' => 800, 'height' => 600, 'file' => "2026/11/$file", 'sizes' => array() ) );
	return $id;
}

$cat_a = wp_insert_term( 'Category A', 'category', array( 'slug' => 'cat-a' ) )['term_id'];
$cat_b = wp_insert_term( 'Category B', 'category', array( 'slug' => 'cat-b' ) )['term_id'];
foreach ( array( $cat_a, $cat_b ) as $cat ) {
	wp_insert_post( array( 'post_title' => "Resident of $cat", 'post_content' => 'x', 'post_status' => 'publish', 'post_date' => '2020-01-01 00:00:00', 'post_category' => array( $cat ) ) );
}
$images = array( 'a' => push_image( 'img-a.jpg' ), 'b' => push_image( 'img-b.jpg' ) );
WPLoadMore_Events::send();
echo json_encode( array( 'cat_a' => $cat_a, 'cat_b' => $cat_b ) ), "\n";

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
			$id = wp_insert_post( array( 'post_title' => $c['title'], 'post_content' => 'x', 'post_status' => 'publish' ) );
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
			$id   = wp_insert_post( array( 'post_title' => $c['title'], 'post_content' => 'x', 'post_status' => 'future', 'post_date' => $date ) );
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
		case 'blogname':
			update_option( 'blogname', $c['title'] );
			break;
	}
	$out['returned'] = microtime( true );
	$out['id']       = $id;
	$out['status']   = $id ? get_post_status( $id ) : '';
	WPLoadMore_Events::send();
	echo json_encode( $out ), "\n";
}
