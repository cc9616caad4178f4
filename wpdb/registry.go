package wpdb

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/wploadmore/wploadmore/blog"
)

// registryState is the registry the plugin wrote, as last understood:
// read with the options, parsed only when the option's text changed, and
// kept when the option turns malformed or of a newer schema, so a bad
// edit or a plugin newer than the server costs one log line, not the
// site's types.
type registryState struct {
	mu   sync.Mutex
	good *blog.Registry
	// seen is the option's text last read, present whether it was there.
	seen    string
	present bool
}

// use takes the option's value as read (nil: no such row) and returns the
// registry to use. It logs once per change of the option.
func (rs *registryState) use(ctx context.Context, logger *slog.Logger, option *string) *blog.Registry {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	value, present := "", option != nil
	if present {
		value = *option
	}
	if value == rs.seen && present == rs.present {
		return rs.good
	}
	rs.seen, rs.present = value, present
	if !present {
		if rs.good != nil {
			logger.InfoContext(ctx, "database: the "+blog.RegistryOption+" option is gone; listing the configured post types only, as without the plugin")
		}
		rs.good = nil
		return nil
	}
	r, err := blog.ParseRegistry([]byte(value))
	if err != nil {
		kept := "none is used"
		if rs.good != nil {
			kept = "the last one understood stays in use"
		}
		if errors.Is(err, blog.ErrNewerRegistry) {
			logger.WarnContext(ctx, "database: the "+blog.RegistryOption+" option is of a newer schema than this server reads; "+kept, "err", err)
		} else {
			logger.WarnContext(ctx, "database: the "+blog.RegistryOption+" option is not a registry; "+kept, "err", err, "bytes", len(value))
		}
		return rs.good
	}
	for name := range r.PostTypes {
		if ValidatePostType(name) != nil {
			logger.WarnContext(ctx, "database: the "+blog.RegistryOption+" option names a post type WordPress cannot have; "+
				"the last registry understood stays in use", "post_type", name)
			return rs.good
		}
	}
	rs.good = r
	logger.InfoContext(ctx, "database: site registry read", "schema", r.Schema, "generated_gmt", r.GeneratedGMT,
		"post_types", len(r.PostTypes), "taxonomies", len(r.Taxonomies), "hidden_terms", len(r.HiddenTerms))
	return r
}

// current is the registry in use, nil for none.
func (rs *registryState) current() *blog.Registry {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.good
}

// registryTaxonomies are the taxonomies whose terms a snapshot reads
// besides category and post_tag: the publicly queryable ones reg lists.
func registryTaxonomies(reg *blog.Registry) []string {
	var names []string
	if reg == nil {
		return nil
	}
	for name, t := range reg.Taxonomies {
		if t.PubliclyQueryable && name != "category" && name != "post_tag" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// countedTypes are the types a snapshot counts the published posts of:
// the store's own, and the registry's publicly queryable or searchable
// ones, each a valid name (see registryState.use).
func (s *Store) countedTypes(reg *blog.Registry) []string {
	types := slices.Clone(s.types)
	if reg != nil {
		for name, t := range reg.PostTypes {
			if (t.PubliclyQueryable || !t.ExcludeFromSearch) && !slices.Contains(types, name) {
				types = append(types, name)
			}
		}
	}
	slices.Sort(types)
	return types
}

// listTypes writes types as an SQL list: each is a valid post type name
// (ValidatePostType), checked at Open or when the registry was read.
func listTypes(types []string) string {
	quoted := make([]string, len(types))
	for i, pt := range types {
		quoted[i] = "'" + pt + "'"
	}
	return "(" + strings.Join(quoted, ", ") + ")"
}

// LogUnknownTypes logs, once at start, the post types that have
// published rows the registry in use does not list or, with none, other
// than WordPress's post, page and attachment: types the server cannot
// tell public from private, and does not list. The distinct values are a
// scan of type_status_date's published ranges. It only informs: a failed
// read is logged too, and no reason not to start.
func (s *Store) LogUnknownTypes(ctx context.Context) {
	reg := s.registry.current()
	types, err := read(ctx, s, func(ctx context.Context, t *target) ([]string, error) {
		ctx, cancel := context.WithTimeout(ctx, s.timeout)
		defer cancel()
		var types []string
		query := "SELECT DISTINCT post_type FROM " + quoteIdent(s.driver, s.table) + " WHERE post_status = 'publish' ORDER BY post_type"
		return types, unavailable(t.db.SelectContext(ctx, &types, query))
	})
	if err != nil {
		s.logger.WarnContext(ctx, "database: reading the published post types failed", "err", err)
		return
	}
	var unknown []string
	for _, pt := range types {
		if _, ok := reg.PostType(pt); !ok && (reg != nil || !slices.Contains([]string{"post", "page", "attachment"}, pt)) {
			unknown = append(unknown, pt)
		}
	}
	switch {
	case len(unknown) == 0:
	case reg == nil:
		s.logger.InfoContext(ctx, "database: published posts of post types this server cannot classify without the wploadmore plugin, "+
			"which lists the site's types; they are not listed", "post_types", unknown)
	default:
		s.logger.InfoContext(ctx, "database: published posts of post types the wploadmore plugin's registry does not list "+
			"(a plugin that registered them is off, or the registry is stale); they are not listed", "post_types", unknown)
	}
}

// homeHidden are the registry's terms hidden from listings that hide posts
// of the store's own types: nil on most sites, whose blog is read as
// always.
func (s *Store) homeHidden() []blog.HiddenGroup {
	var out []blog.HiddenGroup
	for _, h := range s.registry.current().HiddenGroups(blog.HiddenFromListing) {
		if len(h.PostTypes) == 0 || slices.ContainsFunc(h.PostTypes, func(pt string) bool { return slices.Contains(s.types, pt) }) {
			out = append(out, h)
		}
	}
	return out
}

// Registry returns the registry in use: the last one the options read
// understood, nil when the site has none.
func (s *Store) Registry() *blog.Registry { return s.registry.current() }
