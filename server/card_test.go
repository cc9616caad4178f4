package main

// The post card against WordPress itself: each post's link and featured
// image as the server lists them, compared with what WordPress's own
// functions give for the same rows.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/server/listing"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// cardSitePHP builds, through WordPress's own functions, posts as a real
// site holds them: categories with a child, an author with a nicename,
// featured images with a full set of sizes, a small original, a -scaled
// upload and no metadata, alt text with markup and entities, a non-ASCII
// slug, a protected post. It prints the posts' IDs, newest first.
const cardSitePHP = `
function card_sizes($base, $ext, $list) {
	$sizes = array();
	foreach ($list as $name => $wh) {
		$sizes[$name] = array('file' => "$base-{$wh[0]}x{$wh[1]}.$ext", 'width' => $wh[0], 'height' => $wh[1],
			'mime-type' => 'image/jpeg', 'filesize' => 1000);
	}
	return $sizes;
}
function card_image($file, $w, $h, $sizes, $alt, $extra = array()) {
	$id = wp_insert_attachment(array('post_mime_type' => 'image/jpeg', 'post_title' => basename($file),
		'post_status' => 'inherit', 'guid' => 'http://example.org/wp-content/uploads/' . $file), $file);
	if ($w) {
		wp_update_attachment_metadata($id, array_merge(array('width' => $w, 'height' => $h, 'file' => $file,
			'filesize' => 50000, 'sizes' => $sizes,
			'image_meta' => array('aperture' => '0', 'credit' => '', 'camera' => '', 'caption' => '', 'created_timestamp' => '0',
				'copyright' => '', 'focal_length' => '0', 'iso' => '0', 'shutter_speed' => '0', 'title' => '',
				'orientation' => '0', 'keywords' => array())), $extra));
	}
	if ($alt !== null) {
		update_post_meta($id, '_wp_attachment_image_alt', wp_slash($alt));
	}
	return $id;
}
wp_delete_post(1, true);
$news = wp_insert_term('News', 'category', array('slug' => 'news'))['term_id'];
$local = wp_insert_term('Local', 'category', array('slug' => 'local', 'parent' => $news))['term_id'];
$sport = wp_insert_term('Sport', 'category', array('slug' => 'sport'))['term_id'];
$bob = wp_insert_user(array('user_login' => 'bob', 'user_pass' => 'secret', 'user_nicename' => 'bob-smith', 'display_name' => 'Bob Smith'));

$full = card_image('2024/06/harbour.jpg', 1600, 1067, card_sizes('harbour', 'jpg', array(
	'thumbnail' => array(150, 150), 'medium' => array(300, 200), 'medium_large' => array(768, 512),
	'large' => array(1024, 683), '1536x1536' => array(1536, 1024))), '<b>The harbour</b> &amp; "boats" at dawn');
$small = card_image('2024/06/badge.jpg', 500, 333, card_sizes('badge', 'jpg', array(
	'thumbnail' => array(150, 150), 'medium' => array(300, 200))), 'A small badge');
$scaled = card_image('2024/06/panorama-scaled.jpg', 2560, 1707, card_sizes('panorama', 'jpg', array(
	'thumbnail' => array(150, 150), 'medium' => array(300, 200), 'medium_large' => array(768, 512),
	'large' => array(1024, 683), '1536x1536' => array(1536, 1024), '2048x2048' => array(2048, 1365))), '',
	array('original_image' => 'panorama.jpg'));
$bare = card_image('2024/06/no-metadata.jpg', 0, 0, array(), null);
$hidden = card_image('2024/06/hidden.jpg', 800, 600, card_sizes('hidden', 'jpg', array('medium' => array(300, 225))), 'Hidden');

$posts = array(
	array('Harbour at dawn', '2024-06-05 10:00:00', array($local), $full, ''),
	array('Two categories', '2024-06-04 10:00:00', array($sport, $news), $small, ''),
	array('Café über alles', '2024-06-03 10:00:00', array(), $scaled, ''),
	array('Members &amp; friends only', '2024-06-02 10:00:00', array($news), $hidden, 'hunter2'),
	array('No metadata', '2024-06-01 10:00:00', array($news), $bare, ''),
	array('No image', '2024-05-31 10:00:00', array($news), 0, ''),
);
// Pages, listed with -post-types post,page: a child page's link is its
// parents' path, and the front page's is the home URL.
$about = wp_insert_post(array('post_type' => 'page', 'post_title' => 'About us', 'post_status' => 'publish', 'post_date' => '2024-05-01 10:00:00'));
$team = wp_insert_post(array('post_type' => 'page', 'post_title' => 'Our team', 'post_status' => 'publish', 'post_parent' => $about, 'post_date' => '2024-05-02 10:00:00'));
$front = wp_insert_post(array('post_type' => 'page', 'post_title' => 'Welcome', 'post_status' => 'publish', 'post_date' => '2024-05-03 10:00:00'));
update_option('show_on_front', 'page');
update_option('page_on_front', $front);
$ids = array();
foreach ($posts as $p) {
	$id = wp_insert_post(array('post_title' => $p[0], 'post_date' => $p[1], 'post_status' => 'publish',
		'post_author' => $bob, 'post_category' => $p[2], 'post_password' => $p[4],
		'post_content' => '<p>Body of ' . $p[0] . '.</p>'), true);
	if (is_wp_error($id)) { fwrite(STDERR, $id->get_error_message()); exit(1); }
	if ($p[3]) { set_post_thumbnail($id, $p[3]); }
	$ids[] = $id;
}
echo json_encode($ids);
`

// cardWantPHP prints, for each published post, what WordPress shows of
// its card at the size in $size: get_permalink(), and for its featured
// image wp_get_attachment_image_src(), _srcset(), _sizes() and the alt
// attribute of wp_get_attachment_image() as a browser reads it.
const cardWantPHP = `
global $wp_rewrite;
$wp_rewrite->init();
$out = array();
foreach (get_posts(array('numberposts' => -1, 'post_status' => 'publish', 'post_type' => $types)) as $post) {
	$card = array('link' => get_permalink($post), 'protected' => post_password_required($post));
	$thumb = get_post_thumbnail_id($post);
	if ($thumb) {
		$src = wp_get_attachment_image_src($thumb, $size);
		$html = wp_get_attachment_image($thumb, $size);
		preg_match('/ alt="([^"]*)"/', $html, $alt);
		$card['image'] = array('src' => $src ? $src[0] : '', 'width' => $src ? $src[1] : 0, 'height' => $src ? $src[2] : 0,
			'srcset' => (string) wp_get_attachment_image_srcset($thumb, $size),
			'sizes' => (string) wp_get_attachment_image_sizes($thumb, $size),
			'alt' => html_entity_decode($alt[1] ?? '', ENT_QUOTES | ENT_HTML5),
			'has_metadata' => is_array(wp_get_attachment_metadata($thumb)));
	}
	$out[$post->ID] = $card;
}
echo json_encode($out);
`

type wordpressCard struct {
	Link      string `json:"link"`
	Protected bool   `json:"protected"`
	Image     *struct {
		listing.Image
		HasMetadata bool `json:"has_metadata"`
	} `json:"image"`
}

// cardSite installs a WordPress site holding cardSitePHP's posts, with
// permalink structure structure and, in its wp-config.php, WP_HOME home,
// which differs from siteurl. It returns the site, the path of a
// wp-config.php for the server, and the posts' IDs, newest first.
func cardSite(t *testing.T, structure, home string) (*wpdbtest.WordPress, string, []uint64) {
	t.Helper()
	wp := wpdbtest.NewWordPress(t)
	wp.Defines["WP_HOME"] = home
	var ids []uint64
	if err := json.Unmarshal(wp.PHP(t, cardSitePHP+fmt.Sprintf("\nupdate_option('permalink_structure', %q);", structure)), &ids); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	wpConfig := wpdbtest.WPConfig(t, wpdbtest.MySQLAddr, wpDatabase(t, wp))
	f, err := os.OpenFile(wpConfig, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "define( 'WP_HOME', '%s' );\n", home)
	f.Close()
	return wp, wpConfig, ids
}

// wpDatabase is the name of wp's database.
func wpDatabase(t *testing.T, wp *wpdbtest.WordPress) string {
	t.Helper()
	u := dbURL(t, wp.Config)
	return u[strings.LastIndex(u, "/")+1:]
}

// wordpressCards asks WordPress for every post's card at size.
func wordpressCards(t *testing.T, wp *wpdbtest.WordPress, size string, types ...string) map[uint64]wordpressCard {
	t.Helper()
	var want map[uint64]wordpressCard
	typesJSON, _ := json.Marshal(append([]string{"post"}, types...))
	php := fmt.Sprintf("$size = %q;\n$types = json_decode(%q);\n", size, typesJSON) + cardWantPHP
	if err := json.Unmarshal(wp.PHP(t, php), &want); err != nil {
		t.Fatalf("WordPress's cards: %v", err)
	}
	return want
}

// TestPostCardMatchesWordPress lists a real WordPress site's posts and
// compares each record's link and image with WordPress's own for two
// sizes and three permalink structures, with the cache on and off.
func TestPostCardMatchesWordPress(t *testing.T) {
	t.Parallel()
	tests := []struct {
		structure, size, ttl string
		pages                bool // -post-types post,page
	}{
		{"/%category%/%postname%/", "medium_large", "1s", false},
		{"/%year%/%monthnum%/%day%/%postname%/", "large", "0", false},
		{"/index.php/archives/%author%/%post_id%", "medium_large", "0", true},
		{"/%postname%/", "medium_large", "1s", true},
		{"", "large", "1s", true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/cache-ttl=%s/pages=%v", tt.structure, tt.size, tt.ttl, tt.pages), func(t *testing.T) {
			t.Parallel()
			wp, wpConfig, ids := cardSite(t, tt.structure, "https://example.com/blog")
			args := []string{"-image-size", tt.size, "-cache-ttl", tt.ttl}
			var types []string
			if tt.pages {
				types = []string{"page"}
				args = append(args, "-post-types", "post,page")
			}
			want := wordpressCards(t, wp, tt.size, types...)
			srv := startServer(t, map[string]string{"LOADMORE_WP_CONFIG": wpConfig}, args...)
			got := srv.get(t, jsonPath(0, 20)).posts(t)
			if len(got) != len(want) {
				t.Fatalf("%d records, WordPress lists %d", len(got), len(want))
			}
			if listed := postIDs(got); !tt.pages && !cmp.Equal(ids, listed) {
				t.Fatalf("posts listed (-want +got)\n%s", cmp.Diff(ids, listed))
			}
			for _, p := range got {
				w, ok := want[p.ID]
				if !ok {
					t.Fatalf("WordPress does not list post %d", p.ID)
				}
				if p.Link != w.Link {
					t.Errorf("post %d: link %q, WordPress %q", p.ID, p.Link, w.Link)
				}
				if p.Protected != w.Protected {
					t.Errorf("post %d: protected %v, WordPress %v", p.ID, p.Protected, w.Protected)
				}
				var wantImage *listing.Image
				if w.Image != nil && !w.Protected {
					img := w.Image.Image
					if !w.Image.HasMetadata {
						// WordPress says 1x1 (0x0 at full) for an image of
						// unknown size; the record leaves the size out.
						img.Width, img.Height = 0, 0
					}
					if img.Srcset == "" {
						// WordPress prints sizes only beside a srcset.
						img.Sizes = ""
					}
					wantImage = &img
				}
				if diff := cmp.Diff(wantImage, p.Image); diff != "" {
					t.Errorf("post %d image (-WordPress +server)\n%s", p.ID, diff)
				}
			}
			// The page's cards: each title links to its post, each image
			// has its size, and only the first is fetched eagerly.
			page := srv.get(t, fmt.Sprintf("/load-more.php?posts=%d", len(got))).Body
			for _, p := range got {
				if !strings.Contains(page, fmt.Sprintf(`<a href="%s">`, htmlAttr(p.Link))) {
					t.Errorf("the page does not link post %d to %s", p.ID, p.Link)
				}
				if p.Image != nil && !strings.Contains(page, fmt.Sprintf(`src="%s"`, htmlAttr(p.Image.Src))) {
					t.Errorf("the page does not show post %d's image %s", p.ID, p.Image.Src)
				}
			}
			eager := 0
			if got[0].Image != nil {
				eager = 1
			}
			if n := strings.Count(page, `fetchpriority="high"`); n != eager {
				t.Errorf("%d images with fetchpriority=high, want %d: the first card's, if it has one", n, eager)
			}
			if strings.Contains(page, "hunter2") {
				t.Error("the page holds the protected post's password")
			}
		})
	}
}

// htmlAttr escapes s as html/template and mustache escape an attribute.
func htmlAttr(s string) string {
	return strings.NewReplacer("&", "&amp;", `"`, "&#34;", "'", "&#39;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// TestPostCardFreshness changes what a card is built from, a featured
// image, its alt text, a post's category, under a running server: each
// shows within the freshness bound, as any change of a post does.
func TestPostCardFreshness(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out the options refresh")
	}
	t.Parallel()
	const ttl = time.Second
	wp, wpConfig, ids := cardSite(t, "/%category%/%postname%/", "https://example.com")
	srv := startServer(t, map[string]string{"LOADMORE_WP_CONFIG": wpConfig}, "-cache-ttl", ttl.String())
	first := func() listing.Post { return srv.get(t, jsonPath(0, 1)).posts(t)[0] }
	before := first()
	if before.ID != ids[0] || before.Image == nil {
		t.Fatalf("first post %+v, want %d with an image", before, ids[0])
	}
	tests := []struct {
		name    string
		php     string
		changed func(listing.Post) bool
	}{
		{"alt text", fmt.Sprintf("update_post_meta(get_post_thumbnail_id(%d), '_wp_attachment_image_alt', 'A new alt');", ids[0]),
			func(p listing.Post) bool { return p.Image != nil && p.Image.Alt == "A new alt" }},
		{"featured image", fmt.Sprintf("set_post_thumbnail(%d, get_post_thumbnail_id(%d));", ids[0], ids[1]),
			func(p listing.Post) bool { return p.Image != nil && strings.Contains(p.Image.Src, "badge") }},
		{"category", fmt.Sprintf("wp_set_post_categories(%d, array(get_term_by('slug', 'sport', 'category')->term_id));", ids[0]),
			func(p listing.Post) bool { return strings.HasPrefix(p.Link, "https://example.com/sport/") }},
		{"no image", fmt.Sprintf("delete_post_thumbnail(%d);", ids[0]),
			func(p listing.Post) bool { return p.Image == nil }},
	}
	for _, tt := range tests {
		// Not parallel: each changes the same post.
		t.Run(tt.name, func(t *testing.T) {
			wp.PHP(t, tt.php)
			changed := time.Now()
			for !tt.changed(first()) {
				if time.Since(changed) > ttl+testkit.Scale(500*time.Millisecond) {
					t.Fatalf("the change did not show within %v: %+v", ttl, first())
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
