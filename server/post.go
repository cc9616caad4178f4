package main

import (
	"reflect"
	"strings"

	"github.com/wploadmore/wploadmore/wpdb"
)

// postView is one post as readers get it: the JSON endpoint encodes it as
// one record, and the mustache template renders it, on the page and in the
// browser, under the same names.
//
// The first five fields are the PHP script's record. Their names, order and
// values are the drop-in promise to old clients and never change; fields
// added later go after them.
type postView struct {
	ID      uint64 `json:"ID"`
	Title   string `json:"post_title"`
	Excerpt string `json:"post_content"` // the PHP script's 200-character text
	Name    string `json:"post_name"`
	Date    string `json:"post_date"` // as stored
}

func newPostViews(posts []wpdb.Post) []postView {
	views := make([]postView, len(posts))
	for i, p := range posts {
		views[i] = postView{ID: p.ID, Title: p.Title, Excerpt: p.Excerpt, Name: p.Name, Date: p.Date}
	}
	return views
}

// templateData is views as the template's {{#data}} section reads them.
// mustache looks values up by name and cannot see a Go field under its JSON
// name, so each view becomes a map keyed by the JSON names: the server then
// renders exactly what the browser renders from the JSON.
func templateData(views []postView) map[string]any {
	typ := reflect.TypeFor[postView]()
	items := make([]map[string]any, len(views))
	for i := range views {
		v := reflect.ValueOf(views[i])
		item := make(map[string]any, typ.NumField())
		for f := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(f).Tag.Get("json"), ",")
			item[name] = v.Field(f).Interface()
		}
		items[i] = item
	}
	return map[string]any{"data": items}
}
