package main

import (
	"net/url"
	"slices"
	"strings"

	"github.com/wploadmore/wploadmore/blog"
)

// registry is the registry the archives are looked up with, nil when the
// site has none.
func (a *archiveTerms) registry() *blog.Registry { return a.terms.Load().Registry() }

// withRegistryVars adds to vars the query vars of reg's post types and
// taxonomies (blog.Registry.ArchiveVars) that the raw query string names,
// decoded, as PHP reads them: post_type[]= as a list under
// blog.PostTypesVar, which a later post_type= replaces, as it replaces
// it; any other array as "[]", which blog.ParseArchiveIn refuses. A value
// that is not URL-encoded is a 400 naming the var. raw is within the
// query's bounds (see queryTooLong).
func withRegistryVars(vars url.Values, raw string, reg *blog.Registry) (url.Values, error) {
	names := reg.ArchiveVars()
	var types []string
	array := false
	for pair := range strings.SplitSeq(raw, "&") {
		rawKey, rawValue, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(rawKey)
		if err != nil {
			continue
		}
		name, _, isArray := strings.Cut(key, "[")
		if !slices.Contains(names, name) {
			continue
		}
		value, err := url.QueryUnescape(rawValue)
		if err != nil {
			return nil, badRequest("%s is not URL-encoded", name)
		}
		if vars == nil {
			vars = url.Values{}
		}
		switch {
		case name == "post_type" && isArray:
			if !array {
				types, array = nil, true
			}
			types = append(types, value)
		case name == "post_type":
			types, array = []string{value}, false
		case isArray:
			vars[name] = append(vars[name], "[]")
		default:
			vars[name] = append(vars[name], value)
		}
	}
	switch {
	case array:
		vars[blog.PostTypesVar] = types
	case len(types) > 0:
		vars["post_type"] = types
	}
	return vars, nil
}
