package listing

import (
	"reflect"
	"strings"
)

// templateData is posts as the template's {{#data}} section reads them.
// mustache looks values up by name and cannot see a Go field under its JSON
// name, so each post becomes a map keyed by the JSON names, nested values
// too, without the fields the JSON leaves out: the server then renders
// exactly what the browser renders from the JSON.
func templateData(posts []Post) map[string]any {
	items := make([]map[string]any, len(posts))
	for i := range posts {
		items[i] = jsonFields(reflect.ValueOf(posts[i]))
	}
	return map[string]any{"data": items}
}

// jsonFields is the struct v as a map of its JSON names.
func jsonFields(v reflect.Value) map[string]any {
	typ := v.Type()
	item := make(map[string]any, typ.NumField())
	for f := range typ.NumField() {
		name, opts, _ := strings.Cut(typ.Field(f).Tag.Get("json"), ",")
		field := v.Field(f)
		if name == "-" || opts == "omitempty" && field.IsZero() {
			continue
		}
		if field.Kind() == reflect.Pointer && field.Type().Elem().Kind() == reflect.Struct {
			item[name] = jsonFields(field.Elem())
			continue
		}
		item[name] = field.Interface()
	}
	return item
}

// feedData is posts as the template reads them, each with its place in the
// feed (aria-posinset, from first), the feed's size (aria-setsize, -1
// while unknown) and whether its image loads eagerly, as load-more.js adds
// them to the posts it fetches.
func feedData(posts []Post, first, setSize int) map[string]any {
	data := templateData(posts)
	for i, item := range data["data"].([]map[string]any) {
		item["posinset"] = first + i
		item["setsize"] = setSize
		// The first card's image is the page's largest paint: fetched
		// first, never lazily, as WordPress marks its first content image.
		item["eager"] = first+i == 1
	}
	return data
}
