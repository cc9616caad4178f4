// Package permalink builds post links as WordPress 6.1's get_permalink()
// does, from the rows of the WordPress database alone, so a listed post
// links where the site's own theme would link it. It does no I/O: the
// caller reads the options into a [Site] and each post's row into a [Post],
// with [CategoryPath] and [PagePath] for the category and page trees, and
// the post types registered in PHP code into Site.Types.
//
// Filters plugins may add (post_link, page_link, home_url, …) live in PHP
// code and are not followed. Links are those of published posts, all the
// server lists; WordPress gives drafts the plain ?p=ID form instead.
package permalink

import (
	"regexp"
	"strconv"
	"strings"
)

// Site holds the options that shape every link of a site.
type Site struct {
	// Structure is the option permalink_structure: empty for plain
	// links (?p=ID), else a path with structure tags such as
	// "/%year%/%monthnum%/%day%/%postname%/". A structure that starts
	// with index.php ("/index.php/%postname%/") is a PATHINFO one: pages
	// get index.php/ before their path too.
	Structure string
	// Home is the option home, or the constant WP_HOME when wp-config.php
	// defines it (the caller applies WP_HOME). Trailing slashes and
	// backslashes are dropped, as get_option() drops them from the option
	// and _config_wp_home() from WP_HOME. When the option is empty,
	// WordPress uses siteurl: the caller applies that too.
	//
	// Home's scheme is kept, as WordPress keeps it for a request it sees
	// over plain HTTP; for a request it sees over HTTPS (is_ssl()) it
	// switches it to https, so a caller serving such requests sets
	// Home's scheme to https itself.
	Home string
	// ShowOnFront is the option show_on_front: "posts", or "page" when
	// the front page is the page PageOnFront.
	ShowOnFront string
	// PageOnFront is the option page_on_front: the ID of the page shown
	// as the front page when ShowOnFront is "page". Its link is Home
	// followed by "/".
	PageOnFront uint64
	// Types are the post types the site registers in PHP code, by name,
	// as its registry lists them: their posts link as
	// get_post_permalink() links them. A type not in Types, or one of
	// WordPress's own, links as before (see Post.Type).
	Types map[string]PostType
}

// Post is what a post's link is built from: its row in the posts table,
// and the category, author and page paths its structure tags need.
type Post struct {
	// ID is the post's ID.
	ID uint64
	// Type is post_type: "post" links by the structure, "page" as
	// get_page_link() does, a type in Site.Types as get_post_permalink()
	// does. Any other type (an attachment, a custom type the caller has
	// no registry entry for) gets home_url('?p=ID'), which WordPress
	// answers with a redirect to the canonical link
	// (redirect_canonical()). That is also the link WordPress itself
	// gives a type nobody registered, an empty one included
	// (wp_force_plain_post_permalink).
	Type string
	// Name is post_name as stored, the %postname% and %pagename% tags:
	// WordPress keeps a non-ASCII slug percent-encoded with lower-case
	// hex ("caf%c3%a9"), and links carry it so.
	Name string
	// Date is post_date as stored, "YYYY-MM-DD HH:MM:SS" in the site's
	// time zone: the date and time tags are its fields, as written.
	Date string
	// Category is the %category% tag: CategoryPath of the post's
	// categories. Only needed when Site.NeedsCategory.
	Category string
	// Author is the post author's user_nicename, the %author% tag. Only
	// needed when Site.NeedsAuthor.
	Author string
	// PagePath is get_page_uri(), PagePath of the post, for a page or a
	// post of a hierarchical type in Site.Types: see Site.NeedsPath.
	PagePath string
}

// Link returns the post's permalink, as WordPress 6.1's get_permalink()
// returns it.
func (s Site) Link(p Post) string {
	id := strconv.FormatUint(p.ID, 10)
	switch p.Type {
	case "post":
	case "page":
		return s.pageLink(p)
	default:
		if t, ok := s.postType(p.Type); ok {
			return s.typeLink(p, t)
		}
		return s.homeURL("?p=" + id)
	}
	if s.plain() {
		return s.homeURL("?p=" + id)
	}
	var category, author string
	if s.NeedsCategory() {
		category = p.Category
	}
	if s.NeedsAuthor() {
		author = p.Author
	}
	// WordPress splits post_date on "-", ":" and " ", and a missing field
	// is PHP's null: empty.
	date := strings.Split(strings.NewReplacer("-", " ", ":", " ").Replace(p.Date), " ")
	field := func(i int) string {
		if i < len(date) {
			return date[i]
		}
		return ""
	}
	// PHP's str_replace with arrays replaces each tag in turn over what
	// the earlier ones left, so a value holding a later tag would have
	// it replaced too; doing the same keeps even that case exact.
	path := s.Structure
	for _, r := range [...]struct{ tag, value string }{
		{"%year%", field(0)},
		{"%monthnum%", field(1)},
		{"%day%", field(2)},
		{"%hour%", field(3)},
		{"%minute%", field(4)},
		{"%second%", field(5)},
		{"%postname%", p.Name},
		{"%post_id%", id},
		{"%category%", category},
		{"%author%", author},
		{"%pagename%", p.Name},
	} {
		path = strings.ReplaceAll(path, r.tag, r.value)
	}
	return s.userTrailingSlashIt(s.homeURL(path))
}

// NeedsCategory reports whether the structure uses %category%, that is
// whether Link needs Post.Category.
func (s Site) NeedsCategory() bool {
	return strings.Contains(s.Structure, "%category%")
}

// NeedsAuthor reports whether the structure uses %author%, that is
// whether Link needs Post.Author.
func (s Site) NeedsAuthor() bool {
	return strings.Contains(s.Structure, "%author%")
}

// pageLink is get_page_link(): the front page is the home page, any other
// page is at its path (_get_page_link).
func (s Site) pageLink(p Post) string {
	if s.ShowOnFront == "page" && s.PageOnFront == p.ID {
		return s.homeURL("/")
	}
	if s.plain() {
		return s.homeURL("?page_id=" + strconv.FormatUint(p.ID, 10))
	}
	// WP_Rewrite::get_page_permastruct(): the root, then %pagename%.
	root := ""
	if indexPermalinks.MatchString(s.Structure) {
		root = "index.php/"
	}
	return s.userTrailingSlashIt(s.homeURL(root + p.PagePath))
}

// indexPermalinks is WP_Rewrite::using_index_permalinks(): a structure
// that starts with index.php (the regular expression's unescaped dot is
// WordPress's).
var indexPermalinks = regexp.MustCompile(`^/*index.php`)

// plain reports whether the site uses plain links: WordPress tests the
// structure for PHP truth, and "0" is false in PHP.
func (s Site) plain() bool {
	return s.Structure == "" || s.Structure == "0"
}

// homeURL is home_url(path) for a request over plain HTTP.
func (s Site) homeURL(path string) string {
	// get_option() and _config_wp_home() take off trailing slashes;
	// set_url_scheme() then trims the URL and gives a scheme-relative one
	// http:, and sets every other URL's scheme to the one it has.
	url := strings.Trim(strings.TrimRight(s.Home, `/\`), " \t\n\r\x00\x0B")
	if strings.HasPrefix(url, "//") {
		url = "http:" + url
	}
	// get_home_url() tests the path for PHP truth.
	if path != "" && path != "0" {
		url += "/" + strings.TrimLeft(path, "/")
	}
	return url
}

// userTrailingSlashIt is user_trailingslashit(): a link ends with one
// slash when the structure does, else with none; like WordPress's
// untrailingslashit() it takes off backslashes too.
func (s Site) userTrailingSlashIt(link string) string {
	link = strings.TrimRight(link, `/\`)
	if strings.HasSuffix(s.Structure, "/") {
		link += "/"
	}
	return link
}
