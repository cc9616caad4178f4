package blog

// MaxStickyPosts is the most sticky post IDs read from the option: a site
// sticks a handful, and each one is a bound parameter of the query that
// reads them.
const MaxStickyPosts = 100

// Options are the site settings the server shows readers with, as
// WordPress stores them in <prefix>options. An empty field means the
// option is not set (or the table does not exist); the caller chooses
// the fallback.
type Options struct {
	// BlogName is blogname: the site title, as stored. WordPress stores it
	// escaped (esc_html), so it may hold character references: "Fish &amp;
	// Chips".
	BlogName string
	// DateFormat is date_format, in PHP date() letters ("F j, Y").
	DateFormat string
	// TimezoneString is timezone_string: an IANA name ("Europe/Paris"), or
	// empty when the site chose a UTC offset instead.
	TimezoneString string
	// GMTOffset is gmt_offset as stored: hours, possibly fractional and
	// negative ("5.75", "-3.5", "0").
	GMTOffset string

	// What each post's link is built from (see package permalink).
	PermalinkStructure string // permalink_structure: "" for plain ?p=ID links
	Home               string // home: the site's address
	SiteURL            string // siteurl: where WordPress, and so the uploads, live
	CategoryBase       string // category_base: "" for WordPress's "category"
	DefaultCategory    uint64 // default_category: a post with no category is filed there
	ShowOnFront        string // show_on_front: "page" when a page is the front page
	PageOnFront        uint64 // page_on_front: that page

	// What each featured image is built from (see package media).
	ContentURL    string // WP_CONTENT_URL when wp-config.php defines it
	UploadURLPath string // upload_url_path: the uploads' URL when set
	UploadPath    string // upload_path: their folder, relative to the site, when set
	// ImageSizes are the options that bound WordPress's own image sizes,
	// thumbnail_size_w, thumbnail_size_h, medium_size_w…, as stored, by
	// option_name (package media reads them as WordPress does).
	ImageSizes map[string]string

	// StickyPosts is sticky_posts: the IDs of the posts stuck to the top
	// of the blog's home, in the option's order.
	StickyPosts []uint64

	// WPLang is the WPLANG option, the site's language; HasWPLang says
	// the option exists, as an empty one still overrides wp-config.php's
	// constant (see [Options.Locale]).
	WPLang    string
	HasWPLang bool
	// Language is wp-config.php's, as the store was configured with.
	Language Language
	// Registry is the plugin's wploadmore_registry, the last one
	// understood; nil when the site has none.
	Registry *Registry
}
