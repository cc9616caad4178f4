package pomo

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corruptCatalogue is a .mo file broken one way, and whether WordPress
// still loads it: where it does, it reads what lies at the offsets it is
// given (PHP's substr() of a negative or past-the-end offset), and this
// package refuses the file instead.
type corruptCatalogue struct {
	name           string
	data           []byte
	wordpressLoads bool
}

func corruptCatalogues() []corruptCatalogue {
	good := encodeMO([]moString{
		{"", "Plural-Forms: nplurals=2; plural=n != 1;\n"},
		{"Protected: %s", "Geschützt: %s"},
		{"%d post\x00%d posts", "%d Beitrag\x00%d Beiträge"},
	}, moLayout{hashLen: 3})
	const originals, translations, hash, stringsAt = 28, 28 + 3*8, 28 + 6*8, 28 + 6*8 + 3*4
	with := func(at int, v uint32) []byte {
		d := append([]byte(nil), good...)
		binary.LittleEndian.PutUint32(d[at:], v)
		return d
	}
	return []corruptCatalogue{
		{"empty", nil, false},
		{"short header", good[:27], false},
		{"header only", good[:28], false},
		{"bad magic", append([]byte("GIF8"), good[4:]...), false},
		{"revision 1", with(4, 1), false},
		{"no entries", encodeMO(nil, moLayout{}), false},
		{"truncated in the tables", good[:originals+20], false},
		{"truncated in the strings", good[:len(good)-10], true},
		{"total too large", with(8, 4), false},
		{"total huge", with(8, 0xffffffff), false},
		{"originals past the end", with(12, 1<<30), false},
		{"translations not after the originals", with(16, translations+8), false},
		{"hash table not after the translations", with(24, hash+4), false},
		{"hash table past the end", with(20, 1<<30), true},
		{"string offset past the end", with(originals+8+4, 1<<30), true},
		{"string length past the end", with(originals+8, 1<<30), true},
		{"string inside the tables", with(translations+8+4, originals), true},
		{"string inside the hash table", with(translations+8+4, stringsAt-4), true},
		{"string length huge", with(translations+8, 0xffffffff), true},
	}
}

// TestParseMORefusesCorrupt reads broken catalogues with ReadMO: each is
// refused with an error that wraps ErrInvalid and names the file.
func TestParseMORefusesCorrupt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, cc := range corruptCatalogues() {
		path := writeMO(t, dir, cc.name+".mo", cc.data)
		c, err := ReadMO(path)
		if err == nil {
			t.Errorf("%s: read, %d entries", cc.name, c.Len())
			continue
		}
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %q does not name the file and wrap ErrInvalid", cc.name, err)
		}
	}
}

// TestCorruptCataloguesAsWordPress shows which broken catalogues WordPress
// still loads, half read, where this package refuses them: the difference
// is by design, and this test keeps the list of them true.
func TestCorruptCataloguesAsWordPress(t *testing.T) {
	t.Parallel()
	needOracle(t)
	dir := t.TempDir()
	ccs := corruptCatalogues()
	reqs := make([]oracleRequest, len(ccs))
	for i, cc := range ccs {
		reqs[i] = oracleRequest{Op: "mo", Paths: []string{writeMO(t, dir, cc.name+".mo", cc.data)}}
	}
	for i, a := range askWordPress(t, reqs) {
		if a.OK != ccs[i].wordpressLoads {
			t.Errorf("%s: WordPress loads it: %t, want %t %s", ccs[i].name, a.OK, ccs[i].wordpressLoads, a.Dies)
		}
	}
}

// TestReadMORefusesOversized wants a file over MaxMOSize refused from its
// size, before it is read: a file of zeros that large would be refused as
// corrupt too, so the error must name the limit.
func TestReadMORefusesOversized(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "big.mo")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxMOSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = ReadMO(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "limit") {
		t.Errorf("ReadMO of %d bytes: %v, want an error naming the file and the limit", MaxMOSize+1, err)
	}
	if _, err := ReadMO(filepath.Join(t.TempDir(), "missing.mo")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadMO of a missing file: %v, want one wrapping os.ErrNotExist", err)
	}
	if _, err := ReadMO(t.TempDir()); !errors.Is(err, ErrInvalid) {
		t.Errorf("ReadMO of a folder: %v, want one wrapping ErrInvalid", err)
	}
}
