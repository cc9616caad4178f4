package listing

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"io"
	"strconv"
)

// writePageKey writes every byte of v that the page shows: the badge, the
// cap, the post the "more" link lands on, and each post's JSON record,
// which holds all of its fields. Two views with the same key render the
// same page. It is written to a keyComparer and, for a page rendered anew,
// to a buffer, so that a repeat allocates nothing.
func writePageKey(w io.Writer, v PageView) {
	writeViewHead(w, v)
	for i := range v.Posts {
		w.Write([]byte{0})
		w.Write(v.Posts[i].Record)
	}
}

// viewHash is the hash a page is kept under: v's head, and each post's ID
// and record length, not the records. Every request for a page not kept
// computes it, a refused one too, and the records are most of the key;
// views that differ only inside a record (a post edited since) share a
// hash, and the later one kept replaces the earlier, which is stale.
func (r *Renderer) viewHash(v PageView) uint64 {
	var h maphash.Hash
	h.SetSeed(r.seed)
	writeViewHead(&h, v)
	var num [2 * binary.MaxVarintLen64]byte
	for i := range v.Posts {
		b := binary.AppendUvarint(num[:0], v.Posts[i].ID)
		h.Write(binary.AppendUvarint(b, uint64(len(v.Posts[i].Record))))
	}
	return h.Sum64()
}

// writeViewHead writes what v's page shows besides its posts.
func writeViewHead(w io.Writer, v PageView) {
	var num [96]byte // room for the longest head: five numbers, a bool, spaces
	head := strconv.AppendInt(num[:0], int64(v.PostsStart), 10)
	head = append(head, ' ')
	head = strconv.AppendBool(head, v.AtCap)
	head = append(head, ' ')
	head = strconv.AppendInt(head, int64(v.MaxPosts), 10)
	head = append(head, ' ')
	if v.Next != nil {
		head = strconv.AppendUint(head, v.Next.ID, 10)
	}
	if v.Words != nil {
		// Pages in two languages differ by their words alone.
		head = append(head, ' ')
		head = strconv.AppendUint(head, v.Words.Key(), 16)
	}
	w.Write(head)
	if v.Site != nil {
		// The same posts on a page of another title or language.
		w.Write([]byte{3})
		io.WriteString(w, v.Site.pageKey)
	}
	if a := v.Archive; a != nil {
		// An archive's page differs from the listing's with the same
		// posts by its titles and its form's fields.
		for _, s := range []string{a.Titles.Heading, a.Titles.Title} {
			w.Write([]byte{1})
			io.WriteString(w, s)
		}
		for _, qv := range a.Vars {
			w.Write([]byte{2})
			io.WriteString(w, qv.Name+"="+qv.Value)
		}
	}
	if v.Search != nil {
		// The search form shows s.
		w.Write([]byte{3})
		io.WriteString(w, *v.Search)
	}
	if v.Site != nil {
		v.Site.words.search.form.writeKey(w)
	}
}

// keyComparer consumes a kept key as the same bytes are written to it; it
// is the same key when every write matched and nothing is left.
type keyComparer struct {
	key  []byte
	same bool
}

func (c *keyComparer) Write(b []byte) (int, error) {
	if !c.same || !bytes.HasPrefix(c.key, b) {
		c.same = false
		return len(b), nil
	}
	c.key = c.key[len(b):]
	return len(b), nil
}
