package excerpt

import (
	"strings"
	"testing"
)

func TestExcerptMemoLRU(t *testing.T) {
	t.Parallel()
	key := func(id uint64) Version { return Version{ID: id, Modified: "2024-01-01 00:00:00", Length: 10} }
	size := memoSize(key(1), "x...")

	t.Run("entries", func(t *testing.T) {
		m := NewMemo(2, 1<<20)
		m.Put(key(1), "x...")
		m.Put(key(2), "x...")
		m.Get(key(1)) // 2 is now the least recently used
		m.Put(key(3), "x...")
		if _, ok := m.Get(key(2)); ok {
			t.Error("the least recently used entry was kept")
		}
		for _, id := range []uint64{1, 3} {
			if got, ok := m.Get(key(id)); !ok || got != "x..." {
				t.Errorf("get(%d) = %q, %v", id, got, ok)
			}
		}
		if n, b := m.Usage(); n != 2 || b != 2*size {
			t.Errorf("usage = %d entries, %d bytes, want 2, %d", n, b, 2*size)
		}
	})

	t.Run("bytes", func(t *testing.T) {
		m := NewMemo(100, 3*size)
		for id := range uint64(10) {
			m.Put(key(id), "x...")
		}
		if n, b := m.Usage(); n != 3 || b > 3*size {
			t.Errorf("usage = %d entries, %d bytes, want 3 within %d", n, b, 3*size)
		}
		m.Put(key(99), strings.Repeat("y", 3*size))
		if _, ok := m.Get(key(99)); ok {
			t.Error("an entry larger than the whole budget was kept")
		}
		if n, _ := m.Usage(); n != 3 {
			t.Errorf("an oversized entry evicted others: %d entries left", n)
		}
	})

	t.Run("an excerpt of the whole budget", func(t *testing.T) {
		m := NewMemo(10, size)
		m.Put(key(1), "x...")
		if got, ok := m.Get(key(1)); !ok || got != "x..." {
			t.Errorf("get = %q, %v; want the excerpt, which fits the budget exactly", got, ok)
		}
	})

	t.Run("the version's date takes room", func(t *testing.T) {
		// Three entries of over 1 KB each, their dates, in 2.5 KB.
		long := func(id uint64) Version { return Version{ID: id, Modified: strings.Repeat("9", 1000), Length: 10} }
		m := NewMemo(100, 2500)
		for id := range uint64(3) {
			m.Put(long(id), "x...")
		}
		if n, b := m.Usage(); n != 2 {
			t.Errorf("usage = %d entries, %d bytes; want 2, each over 1 000 bytes", n, b)
		}
	})

	t.Run("a new version replaces nothing else", func(t *testing.T) {
		m := NewMemo(10, 1<<20)
		m.Put(key(1), "old...")
		m.Put(key(1), "new...")
		if got, _ := m.Get(key(1)); got != "new..." {
			t.Errorf("get = %q, want new...", got)
		}
		if n, b := m.Usage(); n != 1 || b != memoSize(key(1), "new...") {
			t.Errorf("usage = %d entries, %d bytes after replacing one", n, b)
		}
	})

	t.Run("off", func(t *testing.T) {
		m := NewMemo(0, 0)
		m.Put(key(1), "x...")
		if _, ok := m.Get(key(1)); ok {
			t.Error("a memo of 0 entries kept one")
		}
	})
}
