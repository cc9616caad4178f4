package listing

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
)

// TestRegistryLabels picks the labels WordPress titles an archive by: a
// post type's only when it has an archive, a term's taxonomy's only for
// taxonomies other than category and post_tag, a post format's even with
// no registry.
func TestRegistryLabels(t *testing.T) {
	t.Parallel()
	reg := &blog.Registry{
		PostTypes: map[string]blog.PostType{
			"book":   {Name: "book", HasArchive: true, Labels: blog.Labels{Name: "Books", SingularName: "Book"}},
			"recipe": {Name: "recipe", Labels: blog.Labels{Name: "Recipes"}},
		},
		Taxonomies: map[string]blog.Taxonomy{
			"genre":    {Name: "genre", Labels: blog.Labels{Name: "Genres", SingularName: "Genre"}},
			"category": {Name: "category", Labels: blog.Labels{Name: "Categories", SingularName: "Category"}},
		},
	}
	jazz := &blog.ArchiveTerm{Taxonomy: "genre", Name: "Jazz", Slug: "jazz"}
	news := &blog.ArchiveTerm{Taxonomy: "category", Name: "News", Slug: "news"}
	quote := &blog.ArchiveTerm{Taxonomy: "post_format", Name: "post-format-quote", Slug: "post-format-quote"}
	tests := []struct {
		name     string
		reg      *blog.Registry
		postType string
		term     *blog.ArchiveTerm
		want     ArchiveLabels
	}{
		{"post type archive", reg, "book", nil, ArchiveLabels{PostType: "Books"}},
		{"no archive", reg, "recipe", nil, ArchiveLabels{}},
		{"unknown type", reg, "ghost", nil, ArchiveLabels{}},
		{"term", reg, "", jazz, ArchiveLabels{Term: jazz, TaxonomySingular: "Genre"}},
		{"type and term", reg, "book", jazz, ArchiveLabels{PostType: "Books", Term: jazz, TaxonomySingular: "Genre"}},
		{"category", reg, "", news, ArchiveLabels{}},
		{"post format", reg, "", quote, ArchiveLabels{Term: quote}},
		{"no registry", nil, "book", jazz, ArchiveLabels{}},
		{"no registry, post format", nil, "", quote, ArchiveLabels{Term: quote}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, RegistryLabels(tt.reg, tt.postType, tt.term)); diff != "" {
				t.Errorf("RegistryLabels (-want +got):\n%s", diff)
			}
		})
	}
	if LinkTypes(nil) != nil {
		t.Error("LinkTypes(nil) is not nil")
	}
}
