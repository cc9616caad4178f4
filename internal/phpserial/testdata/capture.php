<?php
// Writes the golden files of package phpserial: what real PHP's
// serialize() stores. Run by: go test ./internal/phpserial -run Golden -update
//
// attachment_metadata.golden is what wp_generate_attachment_metadata()
// (WordPress 5.3 and later) stores in _wp_attachment_metadata for a large
// JPEG it scaled down, written with PHP 5's serialize_precision of 17 (so
// the aperture is 2.7999999999999998) and with one width stored as a
// string, as some plugins do.
ini_set('serialize_precision', '17');
$sizes = [];
foreach ([['medium', 300, 200], ['large', 1024, 683], ['thumbnail', 150, 150], ['medium_large', 768, 512], ['1536x1536', 1536, 1024]] as [$name, $w, $h]) {
    $sizes[$name] = ['file' => "photo-{$w}x{$h}.jpg", 'width' => $w, 'height' => $h, 'mime-type' => 'image/jpeg', 'filesize' => 1000 + $w];
}
$sizes['medium_large']['width'] = '768';
$meta = [
    'width' => 2560,
    'height' => 1707,
    'file' => '2024/06/photo-scaled.jpg',
    'filesize' => 589123,
    'sizes' => $sizes,
    'image_meta' => [
        'aperture' => 2.8,
        'credit' => 'Zoë "Z" Ó\'Brien',
        'camera' => 'Canon EOS R5',
        'caption' => "Café ☕; {ok} \"quoted\"\nline 2",
        'created_timestamp' => '1717236000',
        'copyright' => '© 2024; all rights reserved}',
        'focal_length' => '35',
        'iso' => '100',
        'shutter_speed' => '0.004',
        'title' => 's:5:"trick";',
        'orientation' => '1',
        'keywords' => [],
    ],
    'original_image' => 'photo.jpg',
];
$dir = $argv[1] ?? '.';
file_put_contents("$dir/attachment_metadata.golden", serialize($meta));
file_put_contents("$dir/PHP_VERSION", PHP_VERSION . "\n");
