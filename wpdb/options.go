package wpdb

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/wploadmore/wploadmore/blog"
)

// optionNames are the rows Options reads, by option_name.
var optionNames = []string{"blogname", "date_format", "timezone_string", "gmt_offset",
	"permalink_structure", "home", "siteurl", "category_base", "default_category", "show_on_front", "page_on_front",
	"upload_url_path", "upload_path",
	"thumbnail_size_w", "thumbnail_size_h", "medium_size_w", "medium_size_h",
	"medium_large_size_w", "medium_large_size_h", "large_size_w", "large_size_h",
	"sticky_posts", "WPLANG", blog.RegistryOption}

// Options reads the site's settings the server shows posts with from
// <prefix>options. The server reads them at start and again in the
// background; the Store keeps the last read to know which rows the
// posts' links need (see cards.go).
// When the table does not exist (a posts table copied on its own, or the
// embedded demo database) it returns zero Options and no error.
//
// It returns an error wrapping [ErrUnavailable] when the database fails
// the queries or they run past the query timeout.
func (s *Store) Options(ctx context.Context) (blog.Options, error) {
	return read(ctx, s, s.readOptions)
}

// readOptions is Options on t.
func (s *Store) readOptions(ctx context.Context, t *target) (blog.Options, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	exists := "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
	if s.driver == DriverMySQL {
		exists = "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?"
	}
	var n int
	if err := t.db.QueryRowContext(ctx, exists, s.options).Scan(&n); err != nil {
		return blog.Options{}, fmt.Errorf("wpdb: look for table %s: %w", s.options, unavailable(err))
	}
	if n == 0 {
		return s.keep(blog.Options{}), nil
	}
	// option_name is the table's unique key: one index lookup a name.
	names := optionNames
	query := "SELECT option_name, option_value FROM " + quoteIdent(s.driver, s.options) +
		" WHERE option_name IN (?" + strings.Repeat(", ?", len(names)-1) + ")"
	args := make([]any, len(names))
	for i, name := range names {
		args[i] = name
	}
	rows, err := t.db.QueryContext(ctx, query, args...)
	if err != nil {
		return blog.Options{}, fmt.Errorf("wpdb: read %s: %w", s.options, unavailable(err))
	}
	defer rows.Close()
	var o blog.Options
	var registry *string // nil: no such row
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return blog.Options{}, fmt.Errorf("wpdb: read %s: %w", s.options, unavailable(err))
		}
		switch name {
		case "blogname":
			o.BlogName = value
		case "date_format":
			o.DateFormat = value
		case "timezone_string":
			o.TimezoneString = value
		case "gmt_offset":
			o.GMTOffset = value
		case "permalink_structure":
			o.PermalinkStructure = value
		case "home":
			o.Home = value
		case "siteurl":
			o.SiteURL = value
		case "category_base":
			o.CategoryBase = value
		case "default_category":
			o.DefaultCategory = optionID(value)
		case "show_on_front":
			o.ShowOnFront = value
		case "page_on_front":
			o.PageOnFront = optionID(value)
		case "upload_url_path":
			o.UploadURLPath = value
		case "upload_path":
			o.UploadPath = value
		case "sticky_posts":
			o.StickyPosts = stickyIDs(value)
		case "WPLANG":
			o.WPLang, o.HasWPLang = value, true
		case blog.RegistryOption:
			registry = &value
		default: // the image size limits, <size>_size_w and _h
			if o.ImageSizes == nil {
				o.ImageSizes = map[string]string{}
			}
			o.ImageSizes[name] = value
		}
	}
	if err := rows.Err(); err != nil {
		return blog.Options{}, fmt.Errorf("wpdb: read %s: %w", s.options, unavailable(err))
	}
	o.Registry = s.registry.use(ctx, s.logger, registry)
	return s.keep(o), nil
}

// keep puts wp-config.php's addresses in place of the options, as
// WordPress's option_home and option_siteurl filters do (without their
// trailing slash), and keeps the result as the options last read.
func (s *Store) keep(o blog.Options) blog.Options {
	if a := s.addresses; a.Home != "" {
		o.Home = strings.TrimRight(a.Home, `/\`)
	}
	if a := s.addresses; a.SiteURL != "" {
		o.SiteURL = strings.TrimRight(a.SiteURL, `/\`)
	}
	o.ContentURL = s.addresses.ContentURL
	o.Language = s.language
	s.site.Store(&o)
	return o
}

// optionID reads an option holding a post or term ID; anything else is 0,
// none.
func optionID(value string) uint64 {
	id, err := strconv.ParseUint(strings.TrimSpace(value), 10, 64)
	if err != nil {
		return 0
	}
	return id
}
