package pomo

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// moString is one raw entry of a .mo file: the original ("context\x04
// singular\x00plural") and its translations joined by NUL.
type moString struct{ original, translation string }

// moLayout is how encodeMO lays a file out, so that tests can build what
// msgfmt never writes: big-endian files, hash tables of any size, a
// revision other than 0.
type moLayout struct {
	bigEndian bool
	hashLen   uint32
	revision  uint32
}

// encodeMO writes entries, in their order and duplicates included, as a
// .mo file laid out as GNU msgfmt lays one out: the header, the originals'
// table, the translations' table, the hash table (zeros), then the strings.
func encodeMO(entries []moString, l moLayout) []byte {
	var order binary.ByteOrder = binary.LittleEndian
	if l.bigEndian {
		order = binary.BigEndian
	}
	total := uint32(len(entries))
	originals := uint32(28)
	translations := originals + 8*total
	hashAt := translations + 8*total
	at := hashAt + 4*l.hashLen
	data := make([]byte, at)
	for i, v := range []uint32{0x950412de, l.revision, total, originals, translations, l.hashLen, hashAt} {
		order.PutUint32(data[4*i:], v)
	}
	put := func(table uint32, i int, s string) {
		order.PutUint32(data[table+8*uint32(i):], uint32(len(s)))
		order.PutUint32(data[table+8*uint32(i)+4:], at)
		data = append(append(data, s...), 0)
		at += uint32(len(s)) + 1
	}
	for i, e := range entries {
		put(originals, i, e.original)
	}
	for i, e := range entries {
		put(translations, i, e.translation)
	}
	return data
}

// writeMO writes data to a file named name in dir and returns its path.
func writeMO(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
