package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/internal/testkit"
)

// TestArchiveETagCoversLink: an archive's last batch, then a post
// published into the archive after every post it had. The same batch then
// has the same body but a Link to the new post's batch, so its ETag
// changes, and a client holding the old one gets the new answer, not a
// 304 that would keep it from ever asking for more.
func TestArchiveETagCoversLink(t *testing.T) {
	t.Parallel()
	const ttl = time.Second
	wp, _, srv := archiveSite(t, "-cache-ttl", ttl.String())
	// News and its child World hold eight posts: the second batch of four
	// is the last.
	const path = "/load-more.php?start=4&desiredPosts=4&category_name=news"
	before := srv.get(t, path)
	if n := len(before.posts(t)); n != 4 || before.Header.Get("Link") != "" {
		t.Fatalf("before: %d posts, Link %q; want the last batch, 4 posts and no Link", n, before.Header.Get("Link"))
	}
	oldTag := before.Header.Get("ETag")

	// Older than any: it comes after the batch, which stays as it was.
	wp.PHP(t, `wp_insert_post(array('post_title' => 'Old news', 'post_status' => 'publish', 'post_date' => '2001-01-01 00:00:00',
	'post_category' => array(get_term_by('slug', 'news', 'category')->term_id)));`)
	added := time.Now()
	after := srv.get(t, path)
	for after.Header.Get("Link") == "" {
		if time.Since(added) > ttl+testkit.Scale(time.Second) {
			t.Fatalf("%v after the post was published, the batch has no Link: %d %s", time.Since(added), after.Status, after.Body)
		}
		time.Sleep(20 * time.Millisecond)
		after = srv.get(t, path)
	}
	if after.Status != http.StatusOK || after.Body != before.Body {
		t.Fatalf("after: %d, body\n%s\nwant the same body as before:\n%s", after.Status, after.Body, before.Body)
	}
	if newTag := after.Header.Get("ETag"); newTag == "" || newTag == oldTag {
		t.Errorf("ETag %q, then %q: the same for a batch that gained a Link %q", oldTag, newTag, after.Header.Get("Link"))
	}

	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("If-None-Match", oldTag)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Link") == "" {
		t.Errorf("If-None-Match with the ETag of the batch without Link: %d, Link %q; want 200 with the Link", resp.StatusCode, resp.Header.Get("Link"))
	}
}
