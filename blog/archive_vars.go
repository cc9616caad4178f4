package blog

import (
	"net/url"
	"slices"
	"strings"
)

// ReadVars adds to vars the query vars of r's post types and taxonomies
// (ArchiveVars) that the raw query string names, decoded, as PHP reads
// them: post_type[]= as a list under [PostTypesVar], which a later
// post_type= replaces, as it replaces it; any other array as "[]", which
// [ParseArchiveIn] refuses. It returns a [*QueryVarError] for a value
// that is not URL-encoded. The caller bounds raw's length.
func (r *Registry) ReadVars(raw string, vars url.Values) (url.Values, error) {
	names := r.ArchiveVars()
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
			return nil, &QueryVarError{Var: name, Value: rawValue, Reason: "not URL-encoded"}
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
		vars[PostTypesVar] = types
	case len(types) > 0:
		vars["post_type"] = types
	}
	return vars, nil
}
