package media

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/wploadmore/wploadmore/internal/phpserial"
)

// ErrNoMetadata is the error of ParseMetadata for a meta value WordPress
// reads as no metadata: not a serialized non-empty array.
var ErrNoMetadata = errors.New("media: not attachment metadata")

// ParseMetadata reads a raw _wp_attachment_metadata meta value as
// wp_get_attachment_metadata() does: trimmed and unserialized by
// maybe_unserialize(), it must be a non-empty array. Width and height may
// be ints or numeric strings (else 0), sizes keep their order, two equal
// keys keep the last value in the first one's place as unserialize() does,
// and a size that is not a non-empty array is left out, as srcset skips it.
// Otherwise it returns an error wrapping ErrNoMetadata (and a
// *phpserial.SyntaxError when malformed): WordPress shows such an
// attachment as one without metadata, so set Attachment.Meta to nil.
func ParseMetadata(serialized []byte) (*Metadata, error) {
	v, err := maybeUnserialize(string(serialized))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoMetadata, err)
	}
	if v.Kind != phpserial.Array || len(v.Entries) == 0 {
		return nil, fmt.Errorf("%w: a PHP %s of %d elements, not a non-empty array", ErrNoMetadata, v.Kind, len(v.Entries))
	}
	m := &Metadata{
		Width:         intOf(v, "width"),
		Height:        intOf(v, "height"),
		File:          stringOf(v, "file"),
		OriginalImage: stringOf(v, "original_image"),
	}
	sizes, _ := v.Get("sizes")
	for _, e := range entries(sizes) {
		if e.value.Kind != phpserial.Array || len(e.value.Entries) == 0 {
			continue
		}
		m.Sizes = append(m.Sizes, Size{
			Name:     e.key,
			File:     stringOf(e.value, "file"),
			Width:    intOf(e.value, "width"),
			Height:   intOf(e.value, "height"),
			MimeType: stringOf(e.value, "mime-type"),
		})
	}
	return m, nil
}

// maybeUnserialize is maybe_unserialize() of a value is_serialized()
// accepts: the trimmed value unserialized, bytes after the value ignored as
// unserialize() ignores them. The error is for a value that is not
// serialized or is malformed.
func maybeUnserialize(raw string) (phpserial.Value, error) {
	if !isSerialized(raw) {
		return phpserial.Value{}, errors.New("not serialized")
	}
	b := []byte(phpTrim(raw))
	s := phpserial.NewScanner(b, phpserial.Lenient)
	if err := s.Value(0); err != nil {
		return phpserial.Value{}, err
	}
	return phpserial.Decode(b[:s.Offset()])
}

// metaString is get_post_meta($id, $key, true) of a meta value WordPress
// uses as a string (_wp_attached_file, _wp_attachment_image_alt): the raw
// value, or what maybe_unserialize() makes of one that looks serialized,
// as PHP turns it into a string. Malformed data is false to WordPress, and
// "" here; an array or object, on which WordPress fails with a TypeError,
// is "" too.
func metaString(raw string) string {
	if !isSerialized(raw) {
		return raw
	}
	v, err := maybeUnserialize(raw)
	if err != nil {
		return ""
	}
	switch v.Kind {
	case phpserial.String:
		return v.Str
	case phpserial.Int:
		return strconv.FormatInt(v.Int, 10)
	case phpserial.Float:
		return phpFloatString(v.Float)
	case phpserial.Bool:
		if v.Bool {
			return "1"
		}
	}
	return ""
}

// intOf is $v[$key] as a number, 0 when missing or not an int or a
// numeric string.
func intOf(v phpserial.Value, key string) int {
	e, _ := v.Get(key)
	n, _ := e.AsInt()
	return int(n)
}

// stringOf is $v[$key] as a string, "" when missing or not a string or an
// int.
func stringOf(v phpserial.Value, key string) string {
	e, _ := v.Get(key)
	s, _ := e.AsString()
	return s
}

type entry struct {
	key   string
	value phpserial.Value
}

// entries are the elements of PHP array v in order, keys in decimal for
// ints, with what unserialize() does with two equal keys: the last value
// in the first one's place.
func entries(v phpserial.Value) []entry {
	if v.Kind != phpserial.Array {
		return nil
	}
	out := make([]entry, 0, len(v.Entries))
	at := make(map[string]int, len(v.Entries))
	for _, e := range v.Entries {
		key, _ := e.Key.AsString() // a String as it is, an Int in decimal
		if i, ok := at[key]; ok {
			out[i].value = e.Value
			continue
		}
		at[key] = len(out)
		out = append(out, entry{key, e.Value})
	}
	return out
}
