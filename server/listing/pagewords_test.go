package listing

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/server/listing/pagewords"
	"github.com/wploadmore/wploadmore/templates"
)

// localWords are the shipped words of locale for testSettings' sizes.
func localWords(t *testing.T, locale string) *pagewords.Words {
	t.Helper()
	w, err := pagewords.Load(templates.FS, "", pagewords.Language{Locale: locale, ThousandsSep: ","},
		pagewords.Sizes{Batch: testSettings.Batch, MaxPosts: testSettings.MaxPagePosts})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

var wordsScript = regexp.MustCompile(`<script type="application/json" id="load-more-words">([^<]*)</script>`)

// TestPageWords renders one view in English, German and Arabic: each page
// says its own words, the no-JavaScript parts included, carries the
// widget's words for load-more.js, and is kept apart from the others.
func TestPageWords(t *testing.T) {
	t.Parallel()
	r := testRenderer(t)
	var stored []blog.Post
	for i := range 5 {
		stored = append(stored, blog.Post{ID: uint64(10 - i), Title: "T", Excerpt: "Text...", Date: "2024-01-01 00:00:00"})
	}
	posts := mustPosts(t, stored, testFormat(t))
	batch := testSettings.Batch
	view := PageView{PostsStart: 2 * batch, Posts: posts[:2*batch], Next: &posts[2*batch], MaxPosts: 2 * batch, AtCap: true}
	for _, tc := range []struct {
		locale string
		words  *pagewords.Words
		want   []string // in the page, as text
		script map[string]any
	}{
		{locale: "en_US", want: []string{"Posts shown", "More posts", "Posts 3 to 4", "Without JavaScript this page shows at most 4 posts."},
			script: map[string]any{"noMore": "No more data", "loaded": []any{"%s more post loaded.", "%s more posts loaded."}, "loadedForm": []any{0.0, 1.0}}},
		{locale: "de_DE", words: localWords(t, "de_DE"),
			want:   []string{"Angezeigte Beiträge", "Weitere Beiträge", "Beiträge 3 bis 4", "Ohne JavaScript zeigt diese Seite höchstens 4 Beiträge."},
			script: map[string]any{"noMore": "Keine weiteren Beiträge", "loaded": []any{"%s weiterer Beitrag geladen.", "%s weitere Beiträge geladen."}, "loadedForm": []any{0.0, 1.0}}},
		{locale: "ar", words: localWords(t, "ar"),
			want:   []string{"المقالات المعروضة", "مزيد من المقالات", "المقالات من 3 إلى 4", "بدون JavaScript تعرض هذه الصفحة %s مقالات على الأكثر."},
			script: map[string]any{"noMore": "لا توجد مقالات أخرى", "loaded": []any{"تم تحميل مقالة إضافية واحدة.", "تم تحميل مقالتين إضافيتين."}, "loadedForm": []any{0.0, 1.0}}},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			v := view
			v.Words = tc.words
			page, err := r.Render(context.Background(), v, nil)
			if err != nil {
				t.Fatal(err)
			}
			text := html.UnescapeString(string(page.HTML()))
			for _, want := range tc.want {
				want = strings.ReplaceAll(want, "%s", "4")
				if !strings.Contains(text, want) {
					t.Errorf("the page lacks %q", want)
				}
			}
			if tc.locale != "en_US" && strings.Contains(text, "More posts") {
				t.Errorf("the %s page says More posts", tc.locale)
			}
			m := wordsScript.FindSubmatch(page.HTML())
			if m == nil {
				t.Fatal("no words for the widget in the page")
			}
			var got map[string]any
			if err := json.Unmarshal(m[1], &got); err != nil {
				t.Fatalf("the widget's words: %v\n%s", err, m[1])
			}
			for k, want := range tc.script {
				if diff := cmp.Diff(want, got[k]); diff != "" {
					t.Errorf("%s (-want +got)\n%s", k, diff)
				}
			}
		})
	}
	// Three languages, three pages kept; the same words prepared again
	// find theirs.
	if n := keptCount(r.rendered); n != 3 {
		t.Errorf("%d pages kept for one view in three languages, want 3", n)
	}
	v := view
	v.Words = localWords(t, "de_DE")
	again, err := r.Render(context.Background(), v, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := keptCount(r.rendered); n != 3 || !bytes.Contains(again.HTML(), []byte("Weitere Beiträge")) {
		t.Errorf("the German words prepared again: %d pages kept, want the German one found", n)
	}

	// No posts: the mustache template says so in the page's language.
	empty, err := r.Render(context.Background(), PageView{PostsStart: 2, MaxPosts: 4, Words: localWords(t, "ja")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(empty.HTML(), []byte(`<p class="no-posts">投稿はまだありません。</p>`)) {
		t.Errorf("an empty page in Japanese:\n%s", empty.HTML())
	}
}
