package blog

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// RegistrySchema is the newest registry schema the server reads.
const RegistrySchema = 1

// RegistryOption is the option the plugin writes the registry to.
const RegistryOption = "wploadmore_registry"

// ErrBadRegistry is wrapped by the errors of [ParseRegistry] for an option
// that is not a registry: malformed or truncated JSON, a field of the
// wrong kind, a schema below 1.
var ErrBadRegistry = errors.New("bad registry")

// ErrNewerRegistry is wrapped by the errors of [ParseRegistry] for a
// registry of a schema newer than [RegistrySchema]: a plugin newer than
// the server wrote it.
var ErrNewerRegistry = errors.New("registry schema newer than this server reads")

// Registry is what the site registers in PHP and only PHP knows, as the
// plugin writes it to the wploadmore_registry option: every post type and
// taxonomy with the flags WP_Query obeys, the public query vars, and the
// terms whose posts listings leave out. It is never changed after
// [ParseRegistry] returns it, so it is safe for concurrent use.
type Registry struct {
	Schema       int
	GeneratedGMT string // when the plugin built it, "2026-11-28 04:00:00"
	WordPress    string // the WordPress version that built it
	Plugin       string // the plugin's version
	Locale       string // the site's locale, which the labels are in
	// PostTypes and Taxonomies are every registered one, by name, the
	// built-ins too.
	PostTypes  map[string]PostType
	Taxonomies map[string]Taxonomy
	// PublicQueryVars are WP's public_query_vars after filters.
	PublicQueryVars []string
	HiddenTerms     []HiddenTerm
}

// PostType is a registered post type, as get_post_types() holds it.
type PostType struct {
	Name              string // the type's key, e.g. "book"
	Public            bool
	PubliclyQueryable bool // post_type= and its archive list it
	ExcludeFromSearch bool // a search ("any") leaves it out
	Hierarchical      bool
	HasArchive        bool
	// ArchiveSlug is the archive's slug, as get_post_type_archive_link
	// computes it, "" when the type has no archive.
	ArchiveSlug string
	Rewrite     *Rewrite // nil when the type has rewrite false
	Permastruct string   // the extra permastruct, front applied; "" when none
	QueryVar    string   // "" when the type has none (query_var false)
	Labels      Labels
}

// Taxonomy is a registered taxonomy, as get_taxonomies() holds it.
type Taxonomy struct {
	Name              string // the taxonomy's key, e.g. "genre"
	Public            bool
	PubliclyQueryable bool
	Hierarchical      bool // a term's archive includes its children's posts
	Rewrite           *Rewrite
	Permastruct       string
	QueryVar          string   // "" when the taxonomy has none
	ObjectTypes       []string // the post types it is registered for
	Labels            Labels
}

// Rewrite is a type's or taxonomy's rewrite argument.
type Rewrite struct {
	Slug         string
	WithFront    bool
	Hierarchical bool
	Pages        bool // post types only
}

// Labels are a type's or taxonomy's labels, in the site's locale.
type Labels struct {
	Name         string
	SingularName string
	Archives     string // post types only
}

// Contexts a [HiddenTerm] hides its posts from.
const (
	HiddenFromListing = "listing" // every listing but search
	HiddenFromSearch  = "search"
)

// HiddenTerm is a term whose posts listings leave out, as the
// wploadmore_hidden_terms filter declares it.
type HiddenTerm struct {
	Taxonomy       string
	TermTaxonomyID uint64
	Slug           string
	PostTypes      []string // the types it hides posts of; empty for all
	Contexts       []string // HiddenFromListing and/or HiddenFromSearch
}

// Hides reports whether h hides posts of postType from a listing of
// context (HiddenFromListing or HiddenFromSearch).
func (h HiddenTerm) Hides(postType, context string) bool {
	return slices.Contains(h.Contexts, context) &&
		(len(h.PostTypes) == 0 || slices.Contains(h.PostTypes, postType))
}

// PostType returns the registered type name, and whether there is one.
func (r *Registry) PostType(name string) (PostType, bool) {
	if r == nil {
		return PostType{}, false
	}
	t, ok := r.PostTypes[name]
	return t, ok
}

// Taxonomy returns the registered taxonomy name, and whether there is one.
func (r *Registry) Taxonomy(name string) (Taxonomy, bool) {
	if r == nil {
		return Taxonomy{}, false
	}
	t, ok := r.Taxonomies[name]
	return t, ok
}

// ParseRegistry reads the wploadmore_registry option's value. It returns
// an error wrapping [ErrNewerRegistry] for a schema above
// [RegistrySchema], and one wrapping [ErrBadRegistry] for anything else
// that is not a registry of schema 1 (malformed or truncated JSON, a
// field of the wrong kind, a type with no name). Values are read as PHP
// writes them: false for a missing query_var or rewrite, [] for an empty
// map, 0/1 for a flag.
func ParseRegistry(data []byte) (*Registry, error) {
	var head struct {
		Schema json.RawMessage `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("blog: registry: %w: %v", ErrBadRegistry, err)
	}
	var schema phpInt
	if err := json.Unmarshal(head.Schema, &schema); err != nil || len(head.Schema) == 0 {
		return nil, fmt.Errorf("blog: registry: %w: no schema number", ErrBadRegistry)
	}
	switch {
	case schema > RegistrySchema:
		return nil, fmt.Errorf("blog: registry schema %d: %w (%d): update the server", schema, ErrNewerRegistry, RegistrySchema)
	case schema < 1:
		return nil, fmt.Errorf("blog: registry: %w: schema %d", ErrBadRegistry, schema)
	}
	var raw registryJSON
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("blog: registry: %w: %v", ErrBadRegistry, err)
	}
	r, err := raw.registry()
	if err != nil {
		return nil, fmt.Errorf("blog: registry: %w: %v", ErrBadRegistry, err)
	}
	r.Schema = int(schema)
	return r, nil
}
