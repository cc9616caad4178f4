package media

import "testing"

func TestAltText(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"plain", "A photo", "A photo"},
		{"markup and quotes", `<b>Tom</b> &amp; "Jerry" 'x' & <`, `Tom & "Jerry" 'x' &`},
		{"trimmed", " \n\tA photo\x00 ", "A photo"},
		{"entities decoded once", "&amp;lt;b&amp;gt; &lt;i&gt;", "&lt;b&gt; <i>"},
		{"one pass after another: &amp;#65; is an A", "&amp;#65;", "A"},
		{"HTML 4 names only", "&hellip; &apos; &bigstar;", "… &apos; &bigstar;"},
		{"numeric references", "&#65;&#x42;&#X43; &#0;&#x110000; &#xD800;", "ABC &#x110000; &#xD800;"},
		{"the last code point", "&#x10FFFF; &#1114111; &#x10ffff;", "\U0010FFFF \U0010FFFF \U0010FFFF"},
		// Browsers read &#128; as Windows-1252's €; PHP's html_entity_decode
		// would leave it.
		{"C1 references as browsers read them", "&#128;", "€"},
		{"< before a space is text", "5 < 6 and 7 > 3", "5 < 6 and 7 > 3"},
		{"an unclosed tag eats the rest", "before <b after", "before"},
		{"a quoted > stays in the tag", `<a title=">">link</a>`, "link"},
		{"comments go", "a<!-- b > c -->d", "ad"},
		{"invalid UTF-8 is no alt", "caf\xe9", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := altText(tt.raw); got != tt.want {
				t.Errorf("altText(%q) = %q, want %q", tt.raw, got, tt.want)
			}
		})
	}
}
