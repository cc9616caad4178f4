package listing

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wploadmore/wploadmore/blog"
)

// TestPostTitles checks titles read as plain text: references decoded
// once, tags and comments removed, script and style content dropped, and
// the stored post_title left as it was.
func TestPostTitles(t *testing.T) {
	t.Parallel()
	tests := []struct{ stored, want string }{
		{"Hello World", "Hello World"},
		{"Fish &amp; Chips &#8211; a &#8220;menu&#8221;", "Fish & Chips – a “menu”"},
		{"Hello <b>World</b>", "Hello World"},
		{"<em>Tags</em> at the ends <br>", "Tags at the ends"},
		{"Safe<script>alert(1)</script><style>h2{color:red}</style> title", "Safe title"},
		{"<!-- wp:heading -->Commented<!-- /wp:heading -->", "Commented"},
		{"&lt;b&gt; is a tag", "<b> is a tag"},
		{"&amp;amp; once", "&amp; once"},
		{"R&D, 5 < 6 & \"quotes\" 'too'", "R&D, 5 < 6 & \"quotes\" 'too'"},
		{"Non&nbsp;breaking", "Non\u00a0breaking"},
		{"", ""},
	}
	format := testFormat(t)
	for _, tt := range tests {
		posts := mustPosts(t, []blog.Post{{ID: 1, Title: tt.stored, Date: "2024-06-30 18:00:00"}}, format)
		if got := posts[0].TitleText; got != tt.want {
			t.Errorf("title of %q = %q, want %q", tt.stored, got, tt.want)
		}
		if posts[0].Title != tt.stored {
			t.Errorf("post_title %q changed to %q", tt.stored, posts[0].Title)
		}
	}
}

// TestPostFields checks the JSON record and what the template renders see
// the same fields: first the five of the PHP script, unchanged and in its
// order, with the excerpt as post_content, then the added ones.
func TestPostFields(t *testing.T) {
	t.Parallel()
	stored := []blog.Post{{ID: 2, Title: "Post 2", Name: "post-2", Excerpt: "Text 2...", Date: "2024-01-01 00:00:00", Type: "post"}}
	posts := mustPosts(t, stored, testFormat(t))
	var body bytes.Buffer
	if err := WriteJSON(&body, posts); err != nil {
		t.Fatal(err)
	}
	want := `[{"ID":2,"post_title":"Post 2","post_content":"Text 2...","post_name":"post-2","post_date":"2024-01-01 00:00:00"` +
		`,"title":"Post 2","date":"January 1, 2024","datetime":"2024-01-01T00:00:00","protected":false}]` + "\n"
	if diff := cmp.Diff(want, body.String()); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
	twice := append(posts, posts...)
	body.Reset()
	if err := WriteJSON(&body, twice); err != nil || JSONSize(twice) != body.Len() {
		t.Errorf("JSONSize of two posts = %d, WriteJSON wrote %d bytes (%v)", JSONSize(twice), body.Len(), err)
	}

	data := templateData(posts)
	wantData := map[string]any{"data": []map[string]any{{
		"ID": uint64(2), "post_title": "Post 2", "post_content": "Text 2...", "post_name": "post-2", "post_date": "2024-01-01 00:00:00",
		"title": "Post 2", "date": "January 1, 2024", "datetime": "2024-01-01T00:00:00", "protected": false,
	}}}
	if diff := cmp.Diff(wantData, data); diff != "" {
		t.Errorf("template data (-want +got):\n%s", diff)
	}
}

// TestWriteJSONEmpty: no posts is an empty array, as the endpoint answers
// past the end of the listing.
func TestWriteJSONEmpty(t *testing.T) {
	t.Parallel()
	var body bytes.Buffer
	if err := WriteJSON(&body, nil); err != nil || body.String() != "[]\n" {
		t.Errorf("WriteJSON(nil) = %q, %v; want \"[]\\n\"", body.String(), err)
	}
	if n := JSONSize(nil); n != body.Len() {
		t.Errorf("JSONSize(nil) = %d, want %d", n, body.Len())
	}
}
