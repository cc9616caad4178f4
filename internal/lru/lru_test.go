package lru

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// keys lists c's keys, most recently used first.
func keys[K comparable, V any](c *Cache[K, V]) []K {
	var out []K
	for k := range c.All() {
		out = append(out, k)
	}
	return out
}

// step is one of TestCache's: what it does, and what is kept after it,
// most recently used first, in how many bytes.
type step struct {
	name string
	do   func(c *Cache[string, int])
	keep []string
	size int
}

// add adds k of size bytes, its value its size.
func add(k string, size int) func(c *Cache[string, int]) {
	return func(c *Cache[string, int]) { c.Add(k, size, size) }
}

func get(k string) func(c *Cache[string, int]) {
	return func(c *Cache[string, int]) { c.Get(k) }
}

// TestCache runs steps on a cache of 10 bytes and 3 entries and checks
// what it keeps after each, most recently used first, and its bytes.
func TestCache(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		steps []step
	}{
		{"fills to the byte bound exactly", []step{
			{"a", add("a", 4), []string{"a"}, 4},
			{"b", add("b", 6), []string{"b", "a"}, 10},
		}},
		{"drops the least recently used for bytes", []step{
			{"a", add("a", 3), []string{"a"}, 3},
			{"b", add("b", 3), []string{"b", "a"}, 6},
			{"c", add("c", 3), []string{"c", "b", "a"}, 9},
			{"get a", get("a"), []string{"a", "c", "b"}, 9},
			{"d drops b", add("d", 3), []string{"d", "a", "c"}, 9},
			{"e of 7 drops c and a", add("e", 7), []string{"e", "d"}, 10},
		}},
		{"drops the least recently used for entries", []step{
			{"a", add("a", 1), []string{"a"}, 1},
			{"b", add("b", 1), []string{"b", "a"}, 2},
			{"c", add("c", 1), []string{"c", "b", "a"}, 3},
			{"get a", get("a"), []string{"a", "c", "b"}, 3},
			{"d drops b", add("d", 1), []string{"d", "a", "c"}, 3},
		}},
		{"replaces, counting the new size", []step{
			{"a", add("a", 3), []string{"a"}, 3},
			{"b", add("b", 3), []string{"b", "a"}, 6},
			{"a again", add("a", 5), []string{"a", "b"}, 8},
		}},
		{"keeps no entry larger than the bound, nor the one it replaces", []step{
			{"a", add("a", 3), []string{"a"}, 3},
			{"b", add("b", 3), []string{"b", "a"}, 6},
			{"a of 11", add("a", 11), []string{"b"}, 3},
			{"c of 11", add("c", 11), []string{"b"}, 3},
		}},
		{"an entry of the whole bound drops every other", []step{
			{"a", add("a", 3), []string{"a"}, 3},
			{"b", add("b", 10), []string{"b"}, 10},
		}},
		{"removes", []step{
			{"a", add("a", 3), []string{"a"}, 3},
			{"b", add("b", 3), []string{"b", "a"}, 6},
			{"remove a", func(c *Cache[string, int]) { c.Remove("a") }, []string{"b"}, 3},
			{"remove z", func(c *Cache[string, int]) { c.Remove("z") }, []string{"b"}, 3},
		}},
		{"peeks without using", []step{
			{"a", add("a", 3), []string{"a"}, 3},
			{"b", add("b", 3), []string{"b", "a"}, 6},
			{"peek a", func(c *Cache[string, int]) { c.Peek("a") }, []string{"b", "a"}, 6},
			{"c", add("c", 3), []string{"c", "b", "a"}, 9},
			{"d drops a", add("d", 3), []string{"d", "c", "b"}, 9},
		}},
		{"grows within the bound only, in place", []step{
			{"a", add("a", 3), []string{"a"}, 3},
			{"b", add("b", 3), []string{"b", "a"}, 6},
			{"grow a by 4", func(c *Cache[string, int]) { c.Grow("a", 4) }, []string{"b", "a"}, 10},
			{"grow b by 1", func(c *Cache[string, int]) { c.Grow("b", 1) }, []string{"b", "a"}, 10},
			{"remove a", func(c *Cache[string, int]) { c.Remove("a") }, []string{"b"}, 3},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := New[string, int](10, 3)
			for _, s := range tt.steps {
				s.do(c)
				if diff := cmp.Diff(s.keep, keys(c)); diff != "" {
					t.Fatalf("%s: kept (-want +got):\n%s", s.name, diff)
				}
				if c.Bytes() != s.size || c.Len() != len(s.keep) {
					t.Fatalf("%s: %d entries in %d bytes; want %d in %d", s.name, c.Len(), c.Bytes(), len(s.keep), s.size)
				}
			}
		})
	}
}

// TestAnswers checks what Get, Peek, Grow, Remove and Oldest answer.
func TestAnswers(t *testing.T) {
	t.Parallel()
	c := New[string, int](10, 0)
	if _, _, ok := c.Oldest(); ok {
		t.Error("Oldest of an empty cache: ok")
	}
	c.Add("a", 1, 3)
	c.Add("b", 2, 3)
	if v, ok := c.Get("a"); v != 1 || !ok {
		t.Errorf("Get(a) = %d, %v", v, ok)
	}
	if v, ok := c.Peek("b"); v != 2 || !ok {
		t.Errorf("Peek(b) = %d, %v", v, ok)
	}
	if _, ok := c.Get("z"); ok {
		t.Error("Get(z): ok")
	}
	if k, v, ok := c.Oldest(); k != "b" || v != 2 || !ok {
		t.Errorf("Oldest() = %q, %d, %v; want b", k, v, ok)
	}
	if !c.Grow("a", 4) || c.Grow("a", 1) || c.Grow("z", 0) {
		t.Error("Grow: want a by 4 only")
	}
	if !c.Remove("a") || c.Remove("a") {
		t.Error("Remove(a): want true once")
	}
	// No bound by number: entries of no size are all kept.
	free := New[int, int](0, 0)
	for i := range 100 {
		free.Add(i, i, 0)
	}
	if free.Len() != 100 {
		t.Errorf("%d entries of no size kept; want 100", free.Len())
	}
}

// FuzzCache runs the operations the input spells on a cache and on a plain
// model of one: they keep the same entries in the same order, within the
// bounds, and the bytes are the sum of the entries' sizes.
func FuzzCache(f *testing.F) {
	f.Add([]byte{0, 1, 5, 0, 2, 5, 1, 1, 0, 3, 9, 2, 2, 3, 1, 0, 4, 20})
	f.Add([]byte{0, 1, 16, 0, 1, 17, 4, 1, 3, 0, 2, 8, 0, 3, 8, 1, 2, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		const maxBytes, maxLen = 16, 4
		c := New[int, int](maxBytes, maxLen)
		var model []modelEntry // most recently used first
		find := func(k int) int { return slices.IndexFunc(model, func(e modelEntry) bool { return e.k == k }) }
		for len(ops) >= 3 {
			op, k, n := ops[0]%5, int(ops[1]%8), int(ops[2]%20)
			ops = ops[3:]
			switch op {
			case 0:
				c.Add(k, n, n)
				if i := find(k); i >= 0 {
					model = slices.Delete(model, i, i+1)
				}
				if n <= maxBytes {
					model = slices.Insert(model, 0, modelEntry{k, n})
				}
				for sum(model) > maxBytes || len(model) > maxLen {
					model = model[:len(model)-1]
				}
			case 1:
				_, ok := c.Get(k)
				if i := find(k); i >= 0 {
					e := model[i]
					model = slices.Insert(slices.Delete(model, i, i+1), 0, e)
				} else if ok {
					t.Fatalf("Get(%d) found an entry not kept", k)
				}
			case 2:
				c.Remove(k)
				if i := find(k); i >= 0 {
					model = slices.Delete(model, i, i+1)
				}
			case 3:
				grew := c.Grow(k, n)
				if i := find(k); i >= 0 && sum(model)+n <= maxBytes {
					model[i].size += n
					if !grew {
						t.Fatalf("Grow(%d, %d) refused within the bound", k, n)
					}
				} else if grew {
					t.Fatalf("Grow(%d, %d) past the bound or of no entry", k, n)
				}
			case 4:
				c.Peek(k)
			}
			var want []int
			for _, e := range model {
				want = append(want, e.k)
			}
			if diff := cmp.Diff(want, keys(c)); diff != "" {
				t.Fatalf("kept (-model +cache):\n%s", diff)
			}
			var backward []int
			for k := range c.Backward() {
				backward = slices.Insert(backward, 0, k)
			}
			if diff := cmp.Diff(want, backward); diff != "" {
				t.Fatalf("kept, backward and reversed (-model +cache):\n%s", diff)
			}
			if c.Bytes() != sum(model) || c.Bytes() > maxBytes || c.Len() > maxLen {
				t.Fatalf("%d entries in %d bytes; the model %d in %d", c.Len(), c.Bytes(), len(model), sum(model))
			}
		}
	})
}

// modelEntry is an entry of FuzzCache's model.
type modelEntry struct{ k, size int }

func sum(entries []modelEntry) int {
	n := 0
	for _, e := range entries {
		n += e.size
	}
	return n
}
