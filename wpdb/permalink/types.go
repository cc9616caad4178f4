package permalink

import (
	"regexp"
	"strconv"
	"strings"
)

// PostType is what the links of a post type registered in PHP code
// (register_post_type) are built from: the values WordPress holds for it,
// which the site's registry carries.
type PostType struct {
	// Permastruct is $wp_rewrite->get_extra_permastruct() of the type: its
	// structure with the front or root already applied ("/books/%book%",
	// "/blog/books/%book%"), or "" when it has none: a type registered
	// with rewrite false, or a site on plain links.
	Permastruct string
	// QueryVar is the type's query_var ("book"), "" when it is false.
	QueryVar string
	// Hierarchical is the type's hierarchical: its posts' slugs are their
	// paths, Post.PagePath ("parent/child"), as get_page_uri() gives them.
	Hierarchical bool
}

// builtin are the post types WordPress 6.1 registers itself
// (create_initial_post_types). get_permalink() sends only the others to
// get_post_permalink(), so a PostType given for one of these is passed
// over: posts and pages keep their own links, the rest their ?p=ID.
var builtin = map[string]bool{
	"post": true, "page": true, "attachment": true, "revision": true, "nav_menu_item": true,
	"custom_css": true, "customize_changeset": true, "oembed_cache": true, "user_request": true,
	"wp_block": true, "wp_template": true, "wp_template_part": true, "wp_global_styles": true,
	"wp_navigation": true,
}

// postType returns the registered type typ, when get_permalink() sends its
// posts to get_post_permalink().
func (s Site) postType(typ string) (PostType, bool) {
	t, ok := s.Types[typ]
	return t, ok && !builtin[typ]
}

// NeedsPath reports whether Link needs Post.PagePath for a post of type
// typ: a page on a site whose links are not plain, or a post of a
// hierarchical registered type, whatever the links.
func (s Site) NeedsPath(typ string) bool {
	if typ == "page" {
		return !s.plain()
	}
	t, ok := s.postType(typ)
	return ok && t.Hierarchical
}

// typeLink is get_post_permalink() of a published post of the registered
// type t.
func (s Site) typeLink(p Post, t PostType) string {
	slug := p.Name
	if t.Hierarchical {
		slug = p.PagePath
	}
	// get_extra_permastruct() gives none on plain links, whatever the
	// type was registered with.
	if t.Permastruct != "" && !s.plain() {
		// Only the type's own tag is replaced: any other tag in the
		// structure is left for a plugin's post_type_link filter.
		path := strings.ReplaceAll(t.Permastruct, "%"+p.Type+"%", slug)
		return s.homeURL(s.userTrailingSlashIt(path))
	}
	if t.QueryVar != "" {
		return s.homeURL(addQueryArg(t.QueryVar, slug))
	}
	return s.homeURL(addQueryArg("post_type", p.Type, "p", strconv.FormatUint(p.ID, 10)))
}

// addQueryArg is add_query_arg() of name, value pairs on an empty URL: the
// query string build_query() writes, with no encoding (a slug is kept
// percent-encoded as stored, and a path keeps its slashes), and the
// tidying add_query_arg() does after it.
func addQueryArg(pairs ...string) string {
	parts := make([]string, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		parts = append(parts, pairs[i]+"="+pairs[i+1])
	}
	query := emptyValue.ReplaceAllString(strings.Trim(strings.Join(parts, "&"), "?"), "$1")
	return strings.ReplaceAll(strings.TrimRight("?"+query, "?"), "?#", "#")
}

// emptyValue is add_query_arg()'s '#=(&|$)#': a name with an empty value
// is written without its "=".
var emptyValue = regexp.MustCompile(`=(&|$)`)
