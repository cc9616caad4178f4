package media_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/wpdb/media"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// fixtures builds the attachments through WordPress's own functions, with
// metadata shaped as WordPress writes it, and prints their IDs by name.
const fixtures = `
function sizes($base, $ext, $mime, $list) {
	$out = array();
	foreach ($list as $name => $s) {
		$out[$name] = array('file' => isset($s[2]) ? $s[2] : "$base-{$s[0]}x{$s[1]}.$ext", 'width' => $s[0], 'height' => $s[1], 'mime-type' => $mime, 'filesize' => 1000 + $s[0]);
	}
	return $out;
}
function image_meta() {
	return array('aperture' => '0', 'credit' => '', 'camera' => '', 'caption' => '', 'created_timestamp' => '0', 'copyright' => '', 'focal_length' => '0', 'iso' => '0', 'shutter_speed' => '0', 'title' => '', 'orientation' => '0', 'keywords' => array());
}
function meta($file, $w, $h, $sizes, $extra = array()) {
	return array_merge(array('width' => $w, 'height' => $h, 'file' => $file, 'filesize' => 123456, 'sizes' => $sizes, 'image_meta' => image_meta()), $extra);
}
function attachment($mime, $file, $meta, $alt) {
	$id = wp_insert_attachment(array('post_title' => 'fixture', 'post_mime_type' => $mime, 'post_status' => 'inherit'), false, 0, true);
	if (is_wp_error($id)) {
		fwrite(STDERR, $id->get_error_message());
		exit(1);
	}
	if ($file !== null) {
		update_post_meta($id, '_wp_attached_file', wp_slash($file));
	}
	if ($meta !== null) {
		wp_update_attachment_metadata($id, wp_slash($meta));
	}
	if ($alt !== null) {
		update_post_meta($id, '_wp_attachment_image_alt', wp_slash($alt));
	}
	return $id;
}
$jpeg = 'image/jpeg';
$ids = array();
// A full set of sizes, and a cropped custom size of another ratio.
$ids['full-set'] = attachment($jpeg, '2024/06/photo.jpg', meta('2024/06/photo.jpg', 2400, 1600, sizes('photo', 'jpg', $jpeg, array(
	'thumbnail' => array(150, 150), 'medium' => array(300, 200), 'medium_large' => array(768, 512), 'large' => array(1024, 683),
	'1536x1536' => array(1536, 1024), '2048x2048' => array(2048, 1365), 'card' => array(600, 300)))),
	'<b>Tom</b> &amp; "Jerry" ' . "'x'" . ' & <');
// An original smaller than medium_large.
$ids['small'] = attachment($jpeg, '2024/05/small.jpg', meta('2024/05/small.jpg', 600, 400, sizes('small', 'jpg', $jpeg, array(
	'thumbnail' => array(150, 150), 'medium' => array(300, 200)))),
	"  A &lt;small&gt; one &hellip; &apos;quoted&apos; &bigstar; &#65;&#x42;&#0;&#x110000; &amp;#67; 5 < 6 \n");
// A big upload WordPress scaled down to 2560 wide.
$ids['scaled'] = attachment($jpeg, '2024/06/big-scaled.jpg', meta('2024/06/big-scaled.jpg', 2560, 1707, sizes('big', 'jpg', $jpeg, array(
	'thumbnail' => array(150, 150), 'medium' => array(300, 200), 'medium_large' => array(768, 512), 'large' => array(1024, 683),
	'1536x1536' => array(1536, 1024), '2048x2048' => array(2048, 1366))), array('original_image' => 'big.jpg')),
	'Big');
// No metadata at all.
$ids['no-meta'] = attachment($jpeg, '2024/06/nometa.jpg', null, 'Plain alt');
// Metadata WordPress cannot read as an array.
$ids['garbage-meta'] = attachment($jpeg, '2024/06/garbage.jpg', 'garbage', null);
// An animated GIF: WordPress keeps the full size out of the srcset.
$ids['gif'] = attachment('image/gif', '2024/06/anim.gif', meta('2024/06/anim.gif', 500, 500, sizes('anim', 'gif', 'image/gif', array(
	'thumbnail' => array(150, 150), 'medium' => array(300, 300)))), 'Animated');
// Edited in WordPress: the medium size is left from before the edit.
$ids['edited'] = attachment($jpeg, '2024/06/edit-e1718000000000.jpg', meta('2024/06/edit-e1718000000000.jpg', 1200, 800, sizes('edit-e1718000000000', 'jpg', $jpeg, array(
	'thumbnail' => array(150, 150), 'medium' => array(300, 200, 'edit-300x200.jpg'), 'medium_large' => array(768, 512), 'large' => array(1024, 683)))), '');
// Two sizes of one width: the later one takes the first one's place.
$ids['same-width'] = attachment($jpeg, '2024/06/twin.jpg', meta('2024/06/twin.jpg', 1200, 800, sizes('twin', 'jpg', $jpeg, array(
	'medium' => array(300, 200), 'medium_large' => array(768, 512), 'card' => array(768, 512, 'twin-card-768x512.jpg'), 'large' => array(1024, 683)))), null);
// Spaces in the file names.
$ids['spaces'] = attachment($jpeg, '2024/06/my photo.jpg', meta('2024/06/my photo.jpg', 1200, 800, sizes('my photo', 'jpg', $jpeg, array(
	'medium' => array(300, 200), 'large' => array(1024, 683)))), 'Spaced');
// Width and height stored as numeric strings.
$ids['string-dims'] = attachment($jpeg, '2024/06/strings.jpg', meta('2024/06/strings.jpg', '1200', '800', array(
	'medium' => array('file' => 'strings-300x200.jpg', 'width' => '300', 'height' => '200', 'mime-type' => $jpeg),
	'large' => array('file' => 'strings-1024x683.jpg', 'width' => '1024', 'height' => '683', 'mime-type' => $jpeg))), 'Strings');
// A PDF with the preview WordPress renders of its first page.
$ids['pdf'] = attachment('application/pdf', '2024/06/doc.pdf', array('sizes' => sizes('doc-pdf', 'jpg', $jpeg, array(
	'full' => array(1088, 1408, 'doc-pdf.jpg'), 'large' => array(791, 1024), 'medium' => array(232, 300), 'thumbnail' => array(116, 150))), 'filesize' => 5000), null);
// A PDF without one: no image.
$ids['pdf-bare'] = attachment('application/pdf', '2024/06/bare.pdf', array('filesize' => 5000), null);
// A pre-2.7 upload with its absolute path.
$ids['pre-2.7'] = attachment($jpeg, '/var/www/html/wp-content/uploads/2009/05/old.jpg', meta('/var/www/html/wp-content/uploads/2009/05/old.jpg', 640, 427, sizes('old', 'jpg', $jpeg, array(
	'thumbnail' => array(150, 150), 'medium' => array(300, 200)))), 'Old');
// The MIME type "import", which goes by the extension.
$ids['import-png'] = attachment('import', '2024/06/imp.png', meta('2024/06/imp.png', 500, 300, sizes('imp', 'png', 'image/png', array(
	'medium' => array(300, 180)))), null);
$ids['import-upper'] = attachment('import', '2024/06/imp2.JPG', meta('2024/06/imp2.JPG', 500, 300, array()), null);
// No attached file: not an image.
$ids['no-file'] = attachment($jpeg, null, null, 'No file');

// Meta values written straight to the database, as no WordPress function
// writes them (update_post_meta() serializes a value that looks serialized
// once more), but WordPress reads them.
function raw_meta($id, $key, $value) {
	global $wpdb;
	$wpdb->insert($wpdb->postmeta, array('post_id' => $id, 'meta_key' => $key, 'meta_value' => $value));
}
$size = function ($file, $w, $h) {
	return sprintf('a:4:{s:4:"file";s:%d:"%s";s:5:"width";i:%d;s:6:"height";i:%d;s:9:"mime-type";s:10:"image/jpeg";}', strlen($file), $file, $w, $h);
};
// Two equal keys: the last value in the first one's place.
$ids['raw-duplicates'] = attachment($jpeg, '2024/06/dup.jpg', null, null);
raw_meta($ids['raw-duplicates'], '_wp_attachment_metadata', 'a:5:{s:5:"width";i:999;s:6:"height";s:3:"800";s:4:"file";s:15:"2024/06/dup.jpg";s:5:"sizes";a:4:{'
	. 's:6:"medium";' . $size('dup-old.jpg', 300, 200) . 's:5:"large";' . $size('dup-1024x683.jpg', 1024, 683)
	. 's:6:"medium";' . $size('dup-300x200.jpg', 300, 200) . 's:5:"bogus";s:3:"xyz";}s:5:"width";i:1200;}');
// Bytes after the value, which unserialize() ignores.
$ids['raw-trailing'] = attachment($jpeg, '2024/06/trail.jpg', null, null);
raw_meta($ids['raw-trailing'], '_wp_attachment_metadata', serialize(meta('2024/06/trail.jpg', 1200, 800, sizes('trail', 'jpg', $jpeg, array('medium' => array(300, 200))))) . ' ;}');
// Width and height as floats.
$ids['raw-floats'] = attachment($jpeg, '2024/06/float.jpg', meta('2024/06/float.jpg', 1200.0, 800.0, sizes('float', 'jpg', $jpeg, array('medium' => array(300, 200)))), null);
// Serialized alt texts and a serialized file.
foreach (array('alt-bool' => 'b:1;', 'alt-string' => ' s:9:"<b>hi</b>"; ', 'alt-float' => 'd:0.5;', 'alt-int' => 'i:-7;', 'alt-null' => 'N;', 'alt-malformed' => 's:5:"abc";') as $name => $alt) {
	$ids[$name] = attachment($jpeg, '2024/06/photo.jpg', null, null);
	raw_meta($ids[$name], '_wp_attachment_image_alt', $alt);
}
$ids['file-serialized'] = attachment($jpeg, null, meta('2024/06/photo.jpg', 2400, 1600, array()), null);
raw_meta($ids['file-serialized'], '_wp_attached_file', 's:17:"2024/06/photo.jpg";');
echo json_encode($ids);
`

// answers prints, for every fixture and size, what WordPress shows:
// wp_get_attachment_image_src(), wp_get_attachment_image_srcset(),
// wp_get_attachment_image_sizes() and the attributes of
// wp_get_attachment_image() decoded as html_entity_decode() does.
const answers = `
$ids = json_decode(%s, true);
$sizes = json_decode(%s, true);
$out = array('baseurl' => wp_get_upload_dir()['baseurl'], 'images' => array());
foreach ($ids as $name => $id) {
	foreach ($sizes as $size) {
		$html = wp_get_attachment_image($id, $size);
		$attrs = array();
		preg_match_all('/ ([a-z-]+)="([^"]*)"/', $html, $m, PREG_SET_ORDER);
		foreach ($m as $a) {
			$attrs[$a[1]] = html_entity_decode($a[2], ENT_QUOTES | ENT_HTML5, 'UTF-8');
		}
		$out['images'][$name][$size] = array(
			'src' => wp_get_attachment_image_src($id, $size),
			'srcset' => wp_get_attachment_image_srcset($id, $size),
			'sizes' => wp_get_attachment_image_sizes($id, $size),
			'html' => $html,
			'attrs' => (object) $attrs,
		);
	}
}
echo json_encode($out);
`

// answer is what WordPress shows for one attachment in one size.
type answer struct {
	Src    []any             `json:"src"` // [url, width, height, resized] or false
	Srcset any               `json:"srcset"`
	Sizes  any               `json:"sizes"`
	HTML   string            `json:"html"`
	Attrs  map[string]string `json:"attrs"`
}

func (a *answer) UnmarshalJSON(b []byte) error {
	type plain answer
	var p struct {
		plain
		Src json.RawMessage `json:"src"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*a = answer(p.plain)
	if string(p.Src) == "false" {
		return nil
	}
	return json.Unmarshal(p.Src, &a.Src)
}

// TestImageMatchesWordPress builds attachments in a real WordPress and
// compares Settings.Image, fed from the database rows alone, with what
// WordPress shows for them, field by field, under several site settings.
func TestImageMatchesWordPress(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	var ids map[string]uint64
	if err := json.Unmarshal(wp.PHP(t, fixtures), &ids); err != nil {
		t.Fatalf("fixtures: %v", err)
	}
	db := openDB(t, wp)
	sizes := []string{"thumbnail", "thumb", "medium", "medium_large", "large", "1536x1536", "2048x2048", "full", "card", "nonexistent"}

	// Each site changes the one before it, as the options stay.
	sites := []struct {
		name    string
		setup   string // PHP run before the answers
		content string // WP_CONTENT_URL, if defined
	}{
		{name: "siteurl differs from home", setup: `update_option('siteurl', 'http://example.org/wp');`},
		{name: "WP_CONTENT_URL and other size limits", content: "https://static.example.net/content", setup: `
update_option('large_size_w', '800'); update_option('large_size_h', '800');
update_option('medium_large_size_w', '0');
update_option('thumbnail_size_w', '0'); update_option('thumbnail_size_h', '0');
update_option('medium_size_w', '250px');`},
		{name: "upload_url_path with a trailing slash", setup: `update_option('upload_url_path', 'https://cdn.example.com/media/');`},
		{name: "relative upload_path", setup: `update_option('upload_url_path', ''); update_option('upload_path', 'files');`},
		{name: "absolute upload_path", setup: `update_option('upload_path', '/srv/www/uploads');`},
	}
	for _, site := range sites {
		t.Run(site.name, func(t *testing.T) {
			delete(wp.Defines, "WP_CONTENT_URL")
			if site.content != "" {
				wp.Defines["WP_CONTENT_URL"] = site.content
			}
			wp.PHP(t, site.setup)
			settings := siteSettings(t, db, site.content)
			idsJSON, _ := json.Marshal(ids)
			sizesJSON, _ := json.Marshal(sizes)
			var got struct {
				BaseURL string                       `json:"baseurl"`
				Images  map[string]map[string]answer `json:"images"`
			}
			out := wp.PHP(t, fmt.Sprintf(answers, phpQuote(string(idsJSON)), phpQuote(string(sizesJSON))))
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("answers: %v\n%.2000s", err, out)
			}
			if settings.UploadsURL != got.BaseURL {
				t.Errorf("UploadsURL = %q, wp_get_upload_dir()['baseurl'] = %q", settings.UploadsURL, got.BaseURL)
			}
			for name, id := range ids {
				a := readAttachment(t, db, id)
				for _, size := range sizes {
					t.Run(name+"/"+size, func(t *testing.T) {
						compareImage(t, settings, a, size, got.Images[name][size], a.Meta == nil)
					})
				}
			}
		})
	}
}

// compareImage compares Settings.Image with WordPress's answer. unknown
// says the attachment has no readable metadata, where the product rule
// leaves the size out and WordPress prints 1x1 (0x0 for 'full').
func compareImage(t *testing.T, s media.Settings, a media.Attachment, size string, wp answer, unknown bool) {
	t.Helper()
	img, ok := s.Image(a, size)
	if wp.Src == nil {
		if ok {
			t.Errorf("Image = %+v, true; WordPress shows no image", img)
		}
		if wp.HTML != "" {
			t.Errorf("no image src, but wp_get_attachment_image() = %q", wp.HTML)
		}
		return
	}
	if !ok {
		t.Fatalf("Image = false; WordPress shows %q", wp.HTML)
	}
	want := media.Image{Src: wp.Src[0].(string), Width: phpInt(t, wp.Src[1]), Height: phpInt(t, wp.Src[2])}
	if unknown {
		if want.Width != want.Height || want.Width > 1 {
			t.Errorf("WordPress printed %dx%d for an image of no metadata, not 1x1 or 0x0", want.Width, want.Height)
		}
		want.Width, want.Height = 0, 0
	}
	// wp_get_attachment_image() prints srcset only with a sizes.
	want.Srcset, want.Sizes = phpString(wp.Srcset), phpString(wp.Sizes)
	if want.Srcset == "" || want.Sizes == "" {
		want.Srcset, want.Sizes = "", ""
	}
	want.Alt = wp.Attrs["alt"]
	if diff := cmp.Diff(want, img); diff != "" {
		t.Errorf("Image(%q) mismatch (-want +got):\n%s\nWordPress: %s", size, diff, wp.HTML)
	}
	// And the <img> itself, its attributes read back.
	rendered := media.Image{Src: wp.Attrs["src"], Srcset: wp.Attrs["srcset"], Sizes: wp.Attrs["sizes"], Alt: wp.Attrs["alt"]}
	if !unknown {
		rendered.Width, rendered.Height = atoi(wp.Attrs["width"]), atoi(wp.Attrs["height"])
	}
	if diff := cmp.Diff(rendered, img); diff != "" {
		t.Errorf("Image(%q) differs from the <img> (-want +got):\n%s\nWordPress: %s", size, diff, wp.HTML)
	}
}

// siteSettings reads the options as the server would, from wp_options.
func siteSettings(t *testing.T, db *sql.DB, contentURL string) media.Settings {
	t.Helper()
	names := media.OptionNames()
	query := "SELECT option_name, option_value FROM wp_options WHERE option_name IN (?" + strings.Repeat(", ?", len(names)-1) + ")"
	args := make([]any, len(names))
	for i, n := range names {
		args[i] = n
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		t.Fatalf("options: %v", err)
	}
	defer rows.Close()
	options := map[string]string{}
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			t.Fatalf("options: %v", err)
		}
		options[name] = value
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("options: %v", err)
	}
	return media.Settings{
		UploadsURL: media.UploadsURL(options["siteurl"], contentURL, options["upload_url_path"], options["upload_path"]),
		Limits:     media.LimitsFromOptions(options),
	}
}

// readAttachment reads an attachment's row and postmeta, the first row of
// each key as get_post_meta() takes it, and parses the metadata.
func readAttachment(t *testing.T, db *sql.DB, id uint64) media.Attachment {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a := media.Attachment{ID: id}
	err := db.QueryRowContext(ctx, "SELECT post_mime_type, guid FROM wp_posts WHERE ID = ? AND post_type = 'attachment'", id).Scan(&a.MimeType, &a.GUID)
	if err != nil {
		t.Fatalf("attachment %d: %v", id, err)
	}
	rows, err := db.QueryContext(ctx, `SELECT meta_key, meta_value FROM wp_postmeta WHERE post_id = ?
		AND meta_key IN ('_wp_attached_file', '_wp_attachment_metadata', '_wp_attachment_image_alt') ORDER BY meta_id DESC`, id)
	if err != nil {
		t.Fatalf("attachment %d: %v", id, err)
	}
	defer rows.Close()
	for rows.Next() { // the lowest meta_id last, so it wins
		var key, value string
		if err := rows.Scan(&key, &value); err != nil {
			t.Fatalf("attachment %d: %v", id, err)
		}
		switch key {
		case "_wp_attached_file":
			a.File = value
		case "_wp_attachment_metadata":
			if meta, err := media.ParseMetadata([]byte(value)); err == nil {
				a.Meta = meta
			} else if !errors.Is(err, media.ErrNoMetadata) {
				t.Errorf("ParseMetadata(%q): %v is no ErrNoMetadata", value, err)
			}
		case "_wp_attachment_image_alt":
			a.Alt = value
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("attachment %d: %v", id, err)
	}
	return a
}

func openDB(t *testing.T, wp *wpdbtest.WordPress) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", wp.Config.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// phpInt reads a PHP int or numeric string that json_encode() printed.
func phpInt(t *testing.T, v any) int {
	t.Helper()
	switch v := v.(type) {
	case nil:
		return 0
	case float64:
		return int(v)
	case string:
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("not a number: %q", v)
		}
		return n
	}
	t.Fatalf("not a number: %v", v)
	return 0
}

// phpString is a string, or "" for PHP's false.
func phpString(v any) string {
	s, _ := v.(string)
	return s
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// phpQuote quotes s as a PHP single-quoted string literal.
func phpQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
