package media

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wordpressMetadata is _wp_attachment_metadata as WordPress 6.1 wrote it
// for a scaled upload (image_meta cut short).
const wordpressMetadata = `a:6:{s:5:"width";i:2560;s:6:"height";i:1707;s:4:"file";s:24:"2024/06/photo-scaled.jpg";s:8:"filesize";i:456789;` +
	`s:5:"sizes";a:2:{s:6:"medium";a:5:{s:4:"file";s:17:"photo-300x200.jpg";s:5:"width";i:300;s:6:"height";i:200;s:9:"mime-type";s:10:"image/jpeg";s:8:"filesize";i:12345;}` +
	`s:9:"2048x2048";a:5:{s:4:"file";s:19:"photo-2048x1366.jpg";s:5:"width";i:2048;s:6:"height";i:1366;s:9:"mime-type";s:10:"image/jpeg";s:8:"filesize";i:345678;}}` +
	`s:14:"original_image";s:9:"photo.jpg";}`

// sized serializes a size entry as PHP would.
func sized(file string, w, h string) string {
	return fmt.Sprintf(`a:4:{s:4:"file";s:%d:"%s";s:5:"width";%s;s:6:"height";%s;s:9:"mime-type";s:10:"image/jpeg";}`, len(file), file, w, h)
}

func TestParseMetadata(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *Metadata
	}{
		{
			name: "as WordPress writes it",
			in:   wordpressMetadata,
			want: &Metadata{Width: 2560, Height: 1707, File: "2024/06/photo-scaled.jpg", OriginalImage: "photo.jpg", Sizes: []Size{
				{Name: "medium", File: "photo-300x200.jpg", Width: 300, Height: 200, MimeType: "image/jpeg"},
				{Name: "2048x2048", File: "photo-2048x1366.jpg", Width: 2048, Height: 1366, MimeType: "image/jpeg"},
			}},
		},
		{
			name: "numeric strings, floats, int keys and whitespace around",
			in:   " \n" + `a:3:{s:5:"width";s:4:"1200";s:6:"height";d:800;s:5:"sizes";a:1:{i:5;` + sized("five.jpg", `s:3:"300"`, "i:200") + "}}\n",
			want: &Metadata{Width: 1200, Height: 800, Sizes: []Size{{Name: "5", File: "five.jpg", Width: 300, Height: 200, MimeType: "image/jpeg"}}},
		},
		{
			name: "what is no number is 0",
			in:   `a:2:{s:5:"width";s:6:"1200px";s:6:"height";d:800.5;}`,
			want: &Metadata{},
		},
		{
			name: "the last of two equal keys, in the first one's place",
			in: `a:2:{s:5:"sizes";a:3:{s:1:"a";` + sized("old.jpg", "i:1", "i:1") + `s:1:"b";` + sized("b.jpg", "i:2", "i:2") +
				`s:1:"a";` + sized("new.jpg", "i:3", "i:3") + `}s:5:"sizes";a:2:{s:1:"7";` + sized("s7.jpg", "i:7", "i:7") + `i:7;` + sized("i7.jpg", "i:8", "i:8") + `}}`,
			want: &Metadata{Sizes: []Size{{Name: "7", File: "i7.jpg", Width: 8, Height: 8, MimeType: "image/jpeg"}}},
		},
		{
			name: "sizes that are no non-empty arrays are left out",
			in:   `a:1:{s:5:"sizes";a:3:{s:5:"bogus";s:3:"xyz";s:5:"empty";a:0:{}s:5:"thumb";a:1:{s:4:"file";s:5:"t.jpg";}}}`,
			want: &Metadata{Sizes: []Size{{Name: "thumb", File: "t.jpg"}}},
		},
		{
			name: "bytes after the value are ignored, as unserialize() does",
			in:   `a:1:{s:4:"file";s:5:"x.jpg";} ;}`,
			want: &Metadata{File: "x.jpg"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMetadata([]byte(tt.in))
			if err != nil {
				t.Fatalf("ParseMetadata(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseMetadata mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseMetadataErrors(t *testing.T) {
	for name, in := range map[string]string{
		"empty":                  "",
		"not serialized":         "garbage",
		"an empty array":         "a:0:{}",
		"a string":               `s:3:"abc";`,
		"false":                  "b:0;",
		"an object":              `O:8:"stdClass":1:{s:5:"width";i:1;}`,
		"cut short":              `a:1:{s:5:"width";i:1;`,
		"a wrong length":         `a:1:{s:5:"width";s:9:"1";}`,
		"serialized-looking":     `a:1:{x}`,
		"no end is_serialized()": `a:1:{s:1:"a";i:1;} x`,
	} {
		t.Run(name, func(t *testing.T) {
			m, err := ParseMetadata([]byte(in))
			if !errors.Is(err, ErrNoMetadata) {
				t.Errorf("ParseMetadata(%q) = %+v, %v; want ErrNoMetadata", in, m, err)
			}
		})
	}
}

func TestMetaString(t *testing.T) {
	tests := []struct{ raw, want string }{
		{"A photo", "A photo"},
		{"b:1;", "1"},
		{"b:0;", ""},
		{"N;", ""},
		{"i:-7;", "-7"},
		{"d:0.5;", "0.5"},
		{"d:1.0E+25;", "1.0E+25"},
		{` s:9:"<b>hi</b>"; `, "<b>hi</b>"},
		{`s:5:"abc";`, ""},         // malformed: false
		{`a:1:{i:0;s:1:"x";}`, ""}, // an array: WordPress fails
		{`s:3:"abc"`, `s:3:"abc"`}, // not serialized by is_serialized()
		{"2024/06/photo.jpg", "2024/06/photo.jpg"},
	}
	for _, tt := range tests {
		if got := metaString(tt.raw); got != tt.want {
			t.Errorf("metaString(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}

// FuzzParseMetadata checks that ParseMetadata never panics, fails only
// with ErrNoMetadata, and keeps PHP's keys unique.
func FuzzParseMetadata(f *testing.F) {
	f.Add([]byte(wordpressMetadata))
	f.Add([]byte(`a:2:{s:5:"width";s:4:"1200";s:5:"sizes";a:2:{i:5;` + sized("a.jpg", "d:1.5", `s:2:"-3"`) + `i:5;N;}}`))
	f.Add([]byte(`a:1:{s:5:"sizes";a:1:{s:1:"x";R:1;}}`))
	f.Add([]byte(`O:8:"stdClass":0:{}`))
	f.Add([]byte("a:1:{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMetadata(data)
		if err != nil {
			if !errors.Is(err, ErrNoMetadata) {
				t.Fatalf("ParseMetadata(%q): %v is no ErrNoMetadata", data, err)
			}
			if m != nil {
				t.Fatalf("ParseMetadata(%q) = %+v with an error", data, m)
			}
			return
		}
		seen := map[string]bool{}
		for _, s := range m.Sizes {
			if seen[s.Name] {
				t.Fatalf("ParseMetadata(%q): size %q twice", data, s.Name)
			}
			seen[s.Name] = true
		}
		if end := strings.TrimRight(string(data), phpWhitespace); !strings.HasSuffix(end, "}") && !strings.HasSuffix(end, ";") {
			t.Fatalf("ParseMetadata(%q) read metadata is_serialized() would refuse", data)
		}
	})
}
