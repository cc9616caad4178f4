package wpdb_test

import (
	"slices"
	"strings"

	"github.com/wploadmore/wploadmore/wpdb/wpsite"
)

// fixture is a small WordPress database with every kind of row the page
// query must skip and every kind of content the excerpt must get right.
// IDs are fixed so both drivers produce the same golden JSON.
func fixture() []wpsite.Post {
	// 199 ASCII bytes then a 2-byte "é": a 200-byte cut (PHP's substr)
	// would split it; a 200-character cut keeps it whole.
	accent := strings.Repeat("a", 199) + "été à Noël, déjà vu."
	cjk := strings.Repeat("日本語のテキスト。", 30)            // 3-byte characters, 270 of them
	emoji := strings.Repeat("Party 🎉 time 👩‍💻! ", 20) // 4-byte characters and a ZWJ sequence
	return []wpsite.Post{
		{ID: 1, Date: "2024-01-10 09:00:00", Type: "post", Status: "publish", Name: "hello-world", Title: "Hello world!",
			Content: "<!-- wp:paragraph -->\n<p>Welcome to WordPress. This is your first post. Edit or delete it, then start writing!</p>\n<!-- /wp:paragraph -->"},
		{ID: 2, Date: "2024-03-01 10:00:00", Status: "draft", Name: "", Title: "A draft", Content: "not yet"},
		{ID: 3, Date: "2024-03-02 10:00:00", Status: "pending", Name: "pending-review", Title: "Pending", Content: "waiting"},
		{ID: 4, Date: "2024-03-03 10:00:00", Status: "private", Name: "private-notes", Title: "Private: notes", Content: "secret"},
		{ID: 5, Date: "2030-01-01 00:00:00", Status: "future", Name: "scheduled", Title: "Scheduled", Content: "later"},
		{ID: 6, Date: "2024-03-04 10:00:00", Status: "trash", Name: "old__trashed", Title: "Trashed", Content: "gone"},
		{ID: 7, Date: "2024-03-05 10:00:00", Type: "page", Name: "about", Title: "About", Content: "<p>About us</p>"},
		{ID: 8, Date: "2024-03-06 10:00:00", Type: "attachment", Status: "inherit", Name: "photo", Title: "photo.jpg", MimeType: "image/jpeg", Parent: 1},
		{ID: 9, Date: "2024-03-07 10:00:00", Type: "revision", Status: "inherit", Name: "1-revision-v1", Title: "Hello world!", Content: "old text", Parent: 1},
		{ID: 10, Date: "2024-03-08 10:00:00", Type: "nav_menu_item", Name: "10", Title: "Home"},
		{ID: 11, Date: "2024-02-01 12:00:00", Name: "same-time-a", Title: "Same time A", Content: "<p>First of three posts sharing one post_date.</p>"},
		{ID: 12, Date: "2024-02-01 12:00:00", Name: "same-time-b", Title: "Same time B", Content: "<p>Second of three.</p>"},
		{ID: 13, Date: "2024-02-01 12:00:00", Name: "same-time-c", Title: "Same time C", Content: "<p>Third of three.</p>"},
		{ID: 14, Date: "2024-02-10 08:30:00", Name: "accents", Title: "Été à Noël", Content: "<p>" + accent + "</p>"},
		{ID: 15, Date: "2024-02-11 08:30:00", Name: "%e6%97%a5%e6%9c%ac%e8%aa%9e", Title: "日本語の投稿", Content: "<p>" + cjk + "</p>"},
		{ID: 16, Date: "2024-02-12 08:30:00", Name: "emoji", Title: "Emoji 🎉", Content: emoji},
		{ID: 17, Date: "2024-02-13 08:30:00", Name: "entities", Title: "Fish &amp; Chips",
			Content: "<p>Fish &amp; chips&nbsp;&#8212; it&#8217;s &quot;great&quot; &lt;really&gt;</p>"},
		{ID: 18, Date: "2024-02-14 08:30:00", Name: "script", Title: `<script>alert("title")</script> Tips & Tricks`,
			Content: `<p>Before</p><script>alert("content")</script><style>p{color:red}</style><p>After <a href="javascript:alert(1)">link</a></p>`},
		{ID: 19, Date: "2024-02-15 08:30:00", Name: "short", Title: "Short", Content: "Short."},
		{ID: 20, Date: "2024-02-16 08:30:00", Name: "empty", Title: "Empty", Content: ""},
		{ID: 21, Date: "2024-02-17 08:30:00", Status: "auto-draft", Title: "Auto Draft"},
		{ID: 22, Date: "2024-02-18 08:30:00", Type: "product", Name: "widget", Title: "Widget", Content: "a custom post type"},
		{ID: 23, Date: "2024-02-19 08:30:00", Type: "wp_block", Name: "reusable", Title: "Reusable block", Content: "<p>block</p>"},
		{ID: 24, Date: "0000-00-00 00:00:00", Name: "zero-date", Title: "Zero date", Content: "WordPress's zero date, returned as stored."},
		{ID: 25, Date: "2024-02-20 08:30:00", Type: "page", Name: "contact", Title: "Contact", Content: "<p>Write to us</p>"},
		{ID: 26, Date: "2024-02-21 08:30:00", Name: "long-block", Title: "A long block post",
			Content: "<!-- wp:heading -->\n<h2 class=\"wp-block-heading\">Heading</h2>\n<!-- /wp:heading -->\n\n<!-- wp:paragraph -->\n<p>" +
				strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 8) + "</p>\n<!-- /wp:paragraph -->"},
	}
}

// publishedIDs is what the page query must return for rows and post types:
// published rows of those types, post_date then ID descending.
func publishedIDs(rows []wpsite.Post, types ...string) []uint64 {
	var want []wpsite.Post
	for _, r := range rows {
		typ := r.Type
		if typ == "" {
			typ = "post"
		}
		if (r.Status == "" || r.Status == "publish") && slices.Contains(types, typ) {
			want = append(want, r)
		}
	}
	slices.SortFunc(want, func(a, b wpsite.Post) int {
		if c := strings.Compare(b.Date, a.Date); c != 0 {
			return c
		}
		return int(b.ID) - int(a.ID)
	})
	ids := make([]uint64, len(want))
	for i, r := range want {
		ids[i] = r.ID
	}
	return ids
}
