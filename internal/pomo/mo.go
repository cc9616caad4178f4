package pomo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
)

// MaxMOSize bounds a catalogue file: WordPress's largest language packs
// are a few MB, so a bigger file is a mistake or an attack, and is refused
// before it is read.
const MaxMOSize = 32 << 20

// ErrInvalid is wrapped by every error about a file that is no catalogue
// WordPress would load.
var ErrInvalid = errors.New("not a valid .mo catalogue")

// ReadMO loads the catalogue at path. Its errors name the file: one that
// cannot be read, one over MaxMOSize (refused from its size alone), and
// one that is not a catalogue WordPress would load (wrapping ErrInvalid).
func ReadMO(path string) (*Catalogue, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("pomo: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("pomo: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("pomo: %s: not a regular file: %w", path, ErrInvalid)
	}
	if st.Size() > MaxMOSize {
		return nil, fmt.Errorf("pomo: %s: %d bytes, over the %d-byte limit: %w", path, st.Size(), MaxMOSize, ErrInvalid)
	}
	data := make([]byte, st.Size())
	if _, err := f.ReadAt(data, 0); err != nil {
		return nil, fmt.Errorf("pomo: read %s: %w", path, err)
	}
	c, err := ParseMO(data)
	if err != nil {
		return nil, fmt.Errorf("pomo: %s: %w", path, err)
	}
	return c, nil
}

// ParseMO reads a catalogue from the bytes of a .mo file, as WordPress's
// MO::import_from_reader() does: either byte order, revision 0 only, the
// translations' table right after the originals' and the hash table after
// it (where GNU msgfmt puts them), strings after the hash table. An entry
// whose original is empty holds the headers. Where WordPress loads a
// broken file anyway (a string or the hash table past the end, a string
// inside the tables: PHP's substr() reads them as empty or wrong text),
// ParseMO refuses it, as it refuses a file without entries, on which
// PHP 8 dies.
func ParseMO(data []byte) (*Catalogue, error) {
	if len(data) < 28 {
		return nil, fmt.Errorf("%d bytes, shorter than a header: %w", len(data), ErrInvalid)
	}
	var order binary.ByteOrder
	switch binary.LittleEndian.Uint32(data) {
	case 0x950412de:
		order = binary.LittleEndian
	case 0xde120495:
		order = binary.BigEndian
	default:
		return nil, fmt.Errorf("bad magic number: %w", ErrInvalid)
	}
	word := func(at int) uint64 { return uint64(order.Uint32(data[at:])) }
	revision, total := word(4), word(8)
	originals, translations := word(12), word(16)
	hashLen, hashAt := word(20), word(24)
	if revision != 0 {
		return nil, fmt.Errorf("revision %d, only 0 is read: %w", revision, ErrInvalid)
	}
	if total == 0 {
		// WordPress dies on it: PHP 8's fread() refuses to read 0 bytes.
		return nil, fmt.Errorf("no entries, not even a header: %w", ErrInvalid)
	}
	size := uint64(len(data))
	if translations < originals || translations-originals != total*8 || hashAt < translations || hashAt-translations != total*8 || hashAt > size {
		return nil, fmt.Errorf("tables out of place: %w", ErrInvalid)
	}
	stringsAt := hashAt + hashLen*4
	if hashLen > size || stringsAt > size {
		return nil, fmt.Errorf("hash table past the end: %w", ErrInvalid)
	}
	c := &Catalogue{entries: make(map[string][]string, total), plural: ParsePluralForms("")}
	str := func(table, i uint64) (string, error) {
		n, at := word(int(table+i*8)), word(int(table+i*8+4))
		if at < stringsAt || at > size || n > size-at {
			return "", fmt.Errorf("string %d past the end: %w", i, ErrInvalid)
		}
		return string(data[at : at+n]), nil
	}
	for i := uint64(0); i < total; i++ {
		original, err := str(originals, i)
		if err != nil {
			return nil, err
		}
		translation, err := str(translations, i)
		if err != nil {
			return nil, err
		}
		if original == "" {
			c.setHeaders(translation)
			continue
		}
		context, msgid := "", original
		if j := strings.IndexByte(original, '\x04'); j >= 0 {
			context, msgid = original[:j], original[j+1:]
			// WordPress's explode() keeps only the part after the first
			// EOT up to any second one.
			if k := strings.IndexByte(msgid, '\x04'); k >= 0 {
				msgid = msgid[:k]
			}
		}
		if j := strings.IndexByte(msgid, 0); j >= 0 {
			msgid = msgid[:j]
		}
		c.entries[key(context, msgid)] = strings.Split(translation, "\x00")
	}
	return c, nil
}

// setHeaders reads the header entry as WordPress's make_headers() does:
// a literal backslash-n is a line break too, and each "Name: value" line
// sets one header.
func (c *Catalogue) setHeaders(text string) {
	if c.headers == nil {
		c.headers = map[string]string{}
	}
	for _, line := range strings.Split(strings.ReplaceAll(text, `\n`, "\n"), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		name, value = phpTrim(name), phpTrim(value)
		c.headers[name] = value
		if name == "Plural-Forms" {
			c.plural = ParsePluralForms(value)
		}
	}
}

// phpTrim is PHP's trim() with its default characters.
func phpTrim(s string) string { return strings.Trim(s, " \t\n\r\x00\x0b") }
