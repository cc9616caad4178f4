package excerpt

import (
	"encoding/json"
	"html"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/microcosm-cc/bluemonday"

	"github.com/wploadmore/wploadmore/internal/testkit"
	"github.com/wploadmore/wploadmore/wpdb/excerpt/excerpttest"
)

// pluginExcerpts runs the WordPress plugin's excerpt and title text, with
// which it renders the first batch of a listing in the theme, over
// contents through php-cli: [excerpt, title] for each.
func pluginExcerpts(t *testing.T, contents []string) [][2]string {
	t.Helper()
	testkit.NeedPackage(t, "php-cli", "php")
	testkit.NeedPackage(t, "wordpress", "/usr/share/wordpress/wp-includes/shortcodes.php")
	in := make([][]byte, len(contents)) // base64: JSON would mend bad UTF-8
	for i, c := range contents {
		in[i] = []byte(c)
	}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("php", "testdata/plugin_excerpt.php")
	cmd.Stdin = strings.NewReader(string(data))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("php plugin excerpt: %v\n%.300s", err, out)
	}
	var got [][2]string
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(contents) {
		t.Fatalf("php printed %.300q: %v", out, err)
	}
	return got
}

// TestPluginExcerptMatches holds the plugin's PHP excerpt and title text
// to the server's: a card in a listing's first batch, rendered by
// WordPress, must read as the same post arriving in a later batch from the
// server. The title is server/listing's htmlText.plain, as its JSON sends
// it: markup dropped by the strict policy, references decoded, trimmed.
func TestPluginExcerptMatches(t *testing.T) {
	t.Parallel()
	contents := append(excerpttest.Seeds(), excerpttest.ShortcodeSeeds()...)
	for _, c := range excerpttest.ShortcodeCases() {
		contents = append(contents, c.Content)
	}
	contents = append(contents,
		"<p>Fish &amp; chips &lt;3 &quot;x&quot; &#39;y&#39; &copy;</p>",
		"<p>It&#8217;s WordPress&rsquo;s</p>",
		"<p>&nbsp;</p>\n<p>a&nbsp;&nbsp;b\u00a0</p>",
		"<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>",
		"<p>a < b && c > d</p>",
		"<p><strong>un</strong>usual, <a href=\"/x\">link</a>. H<sub>2</sub>O</p>",
		"line one<br>line two<br/>three",
		"<ul><li>one<ul><li>two</li></ul></li></ul><table><tr><td>a</td><td>b</td></tr></table>",
		"<p>a</p><script>var x = '<p>no</p>';</script><p>b</p>",
		"<title>T</title><iframe src=x>f</iframe><noscript>n</noscript><object>o</object>x",
		"<p>text <a href=\"http://",
		"\u2003wide\u3000spaces\u2028here\u0085",
	)
	contents = append(contents, shortcodeNoise(3000, 3)...)
	contents = append(contents, htmlNoise(3000, 4)...)
	want := make([][2]string, len(contents))
	sh := New(CoreShortcodes())
	strict := bluemonday.StrictPolicy()
	for i, c := range contents {
		title, err := json.Marshal(strings.TrimSpace(html.UnescapeString(strict.Sanitize(c))))
		if err != nil {
			t.Fatal(err)
		}
		want[i][0] = sh.Excerpt(c)
		if err := json.Unmarshal(title, &want[i][1]); err != nil {
			t.Fatal(err)
		}
	}
	got := pluginExcerpts(t, contents)
	failures := 0
	for i := range contents {
		if got[i] != want[i] {
			t.Errorf("[excerpt, title] of %q (-server +plugin):\n%s", contents[i], cmp.Diff(want[i], got[i]))
			if failures++; failures == 10 {
				t.FailNow()
			}
		}
	}
}

// htmlNoise returns n random contents made of the pieces the tokenizer and
// the sanitizer decide on: tags and their attributes, raw-text elements,
// comments, references with and without ";", and white space.
func htmlNoise(n int, seed uint64) []string {
	pieces := []string{
		"<", ">", "</", "/>", "<p>", "</p>", "<P class=x>", "<br/>", "<li>", "<b>", "</b>", "<a href=\"x>y\">", "<a title='>'>", "<img src=a/>",
		"<a b=c/>", "<x =y>", "<div\n>", "</div >", "<!-->", "<!--->", "<!--", "-->", "--!>", "<!DOCTYPE html>", "<?php x ?>", "</ x>", "</>",
		"<script>", "</script>", "<style>", "</style>", "<xmp>", "</xmp>", "<textarea>", "</textarea>", "<title>", "</title>",
		"<iframe>", "</iframe>", "<noscript>", "</noscript>", "<object>", "</object>", "<plaintext>", "</SCRIPT>",
		"&amp;", "&amp", "&ampx", "&notit;", "&copy", "&#39;", "&#x27", "&#128;", "&#0;", "&#xD800;", "&#;", "&#x;", "&#", "&", "&zwnj;", "&fjlig;", "&NotEqualTilde;",
		" ", "\n", "\r\n", "\r", "\t", "\u00a0", "\u3000", "word", "é", "漢", "\x00", "\xff", "'", "\"", "=", "/",
	}
	rng := rand.New(rand.NewPCG(seed, 11))
	contents := make([]string, n)
	for i := range contents {
		var b strings.Builder
		for range 1 + rng.IntN(30) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		contents[i] = b.String()
	}
	return contents
}
