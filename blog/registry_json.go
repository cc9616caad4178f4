package blog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The registry as JSON, read as PHP's json_encode writes it: an empty
// array as [] where a map is meant, a list with holes as an object, a
// flag a theme set to 1 or "1" instead of true.

type registryJSON struct {
	GeneratedGMT    string                  `json:"generated_gmt"`
	WordPress       string                  `json:"wordpress"`
	Plugin          string                  `json:"plugin"`
	Locale          string                  `json:"locale"`
	PostTypes       phpMap[postTypeJSON]    `json:"post_types"`
	Taxonomies      phpMap[taxonomyJSON]    `json:"taxonomies"`
	PublicQueryVars phpList[string]         `json:"public_query_vars"`
	HiddenTerms     phpList[hiddenTermJSON] `json:"hidden_terms"`
}

type postTypeJSON struct {
	Public            phpBool    `json:"public"`
	PubliclyQueryable phpBool    `json:"publicly_queryable"`
	ExcludeFromSearch phpBool    `json:"exclude_from_search"`
	Hierarchical      phpBool    `json:"hierarchical"`
	HasArchive        phpBool    `json:"has_archive"`
	ArchiveSlug       string     `json:"archive_slug"`
	Rewrite           rewriteArg `json:"rewrite"`
	Permastruct       string     `json:"permastruct"`
	QueryVar          queryVar   `json:"query_var"`
	Labels            labelsJSON `json:"labels"`
}

type taxonomyJSON struct {
	Public            phpBool         `json:"public"`
	PubliclyQueryable phpBool         `json:"publicly_queryable"`
	Hierarchical      phpBool         `json:"hierarchical"`
	Rewrite           rewriteArg      `json:"rewrite"`
	Permastruct       string          `json:"permastruct"`
	QueryVar          queryVar        `json:"query_var"`
	ObjectTypes       phpList[string] `json:"object_types"`
	Labels            labelsJSON      `json:"labels"`
}

type labelsJSON struct {
	Name         string `json:"name"`
	SingularName string `json:"singular_name"`
	Archives     string `json:"archives"`
}

type hiddenTermJSON struct {
	Taxonomy       string          `json:"taxonomy"`
	TermTaxonomyID phpInt          `json:"term_taxonomy_id"`
	Slug           string          `json:"slug"`
	PostTypes      phpList[string] `json:"post_types"`
	Contexts       phpList[string] `json:"contexts"`
}

func (r registryJSON) registry() (*Registry, error) {
	reg := &Registry{
		GeneratedGMT: r.GeneratedGMT, WordPress: r.WordPress, Plugin: r.Plugin, Locale: r.Locale,
		PostTypes:       make(map[string]PostType, len(r.PostTypes)),
		Taxonomies:      make(map[string]Taxonomy, len(r.Taxonomies)),
		PublicQueryVars: r.PublicQueryVars,
	}
	for name, t := range r.PostTypes {
		if name == "" {
			return nil, errors.New("a post type with no name")
		}
		reg.PostTypes[name] = PostType{
			Name: name, Public: bool(t.Public), PubliclyQueryable: bool(t.PubliclyQueryable),
			ExcludeFromSearch: bool(t.ExcludeFromSearch), Hierarchical: bool(t.Hierarchical),
			HasArchive: bool(t.HasArchive), ArchiveSlug: t.ArchiveSlug, Rewrite: t.Rewrite.r,
			Permastruct: t.Permastruct, QueryVar: string(t.QueryVar), Labels: Labels(t.Labels),
		}
	}
	for name, t := range r.Taxonomies {
		if name == "" {
			return nil, errors.New("a taxonomy with no name")
		}
		reg.Taxonomies[name] = Taxonomy{
			Name: name, Public: bool(t.Public), PubliclyQueryable: bool(t.PubliclyQueryable),
			Hierarchical: bool(t.Hierarchical), Rewrite: t.Rewrite.r, Permastruct: t.Permastruct,
			QueryVar: string(t.QueryVar), ObjectTypes: t.ObjectTypes, Labels: Labels(t.Labels),
		}
	}
	for _, h := range r.HiddenTerms {
		if h.Taxonomy == "" || h.TermTaxonomyID <= 0 {
			return nil, fmt.Errorf("hidden term %q: no taxonomy or term_taxonomy_id", h.Slug)
		}
		for _, c := range h.Contexts {
			if c != HiddenFromListing && c != HiddenFromSearch {
				return nil, fmt.Errorf("hidden term %q: unknown context %q", h.Slug, c)
			}
		}
		reg.HiddenTerms = append(reg.HiddenTerms, HiddenTerm{
			Taxonomy: h.Taxonomy, TermTaxonomyID: uint64(h.TermTaxonomyID), Slug: h.Slug,
			PostTypes: h.PostTypes, Contexts: h.Contexts,
		})
	}
	return reg, nil
}

// phpBool is a flag as PHP's truthiness reads it: true, 1, "1", "yes"…;
// false, null, 0, "" and "0" are false.
type phpBool bool

func (b *phpBool) UnmarshalJSON(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case nil:
		*b = false
	case bool:
		*b = phpBool(v)
	case float64:
		*b = v != 0
	case string:
		*b = v != "" && v != "0"
	default:
		return fmt.Errorf("flag %s is neither a bool, a number nor a string", data)
	}
	return nil
}

// phpInt is a whole number, or a string of one as a database row gives it.
type phpInt int64

func (n *phpInt) UnmarshalJSON(data []byte) error {
	s := strings.Trim(string(data), `"`)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%s is not a whole number", data)
	}
	*n = phpInt(v)
	return nil
}

// queryVar is a query_var: a string, or false for none.
type queryVar string

func (q *queryVar) UnmarshalJSON(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case nil:
		*q = ""
	case bool:
		if v {
			return errors.New("query_var true: the registered object holds its name")
		}
		*q = ""
	case string:
		*q = queryVar(v)
	default:
		return fmt.Errorf("query_var %s is neither a string nor false", data)
	}
	return nil
}

// rewriteArg is a rewrite argument: an object, or false (or null) for none.
type rewriteArg struct{ r *Rewrite }

func (a *rewriteArg) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch string(data) {
	case "false", "null", "[]":
		a.r = nil
		return nil
	}
	var v struct {
		Slug         string  `json:"slug"`
		WithFront    phpBool `json:"with_front"`
		Hierarchical phpBool `json:"hierarchical"`
		Pages        phpBool `json:"pages"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("rewrite: %w", err)
	}
	a.r = &Rewrite{Slug: v.Slug, WithFront: bool(v.WithFront), Hierarchical: bool(v.Hierarchical), Pages: bool(v.Pages)}
	return nil
}

// phpMap is a JSON object, or [] for an empty PHP array.
type phpMap[T any] map[string]T

func (m *phpMap[T]) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" || string(data) == "[]" {
		*m = nil
		return nil
	}
	var v map[string]T
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*m = v
	return nil
}

// phpList is a JSON array, or an object of its values by key in order,
// as json_encode writes a PHP list with holes in its keys.
type phpList[T any] []T

func (l *phpList[T]) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		var v []T
		if err := json.Unmarshal(data, &v); err != nil {
			return err
		}
		*l = v
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	var v []T
	for dec.More() {
		if _, err := dec.Token(); err != nil { // the key
			return err
		}
		var item T
		if err := dec.Decode(&item); err != nil {
			return err
		}
		v = append(v, item)
	}
	*l = v
	return nil
}
