package wpdb

import (
	"strings"
	"testing"
)

func TestExcerptMemoLRU(t *testing.T) {
	t.Parallel()
	key := func(id uint64) memoKey { return memoKey{id: id, modified: "2024-01-01 00:00:00", length: 10} }
	size := (&memoEntry{key: key(1), excerpt: "x..."}).size()

	t.Run("entries", func(t *testing.T) {
		m := newExcerptMemo(2, 1<<20)
		m.put(key(1), "x...")
		m.put(key(2), "x...")
		m.get(key(1)) // 2 is now the least recently used
		m.put(key(3), "x...")
		if _, ok := m.get(key(2)); ok {
			t.Error("the least recently used entry was kept")
		}
		for _, id := range []uint64{1, 3} {
			if got, ok := m.get(key(id)); !ok || got != "x..." {
				t.Errorf("get(%d) = %q, %v", id, got, ok)
			}
		}
		if n, b := m.usage(); n != 2 || b != 2*size {
			t.Errorf("usage = %d entries, %d bytes, want 2, %d", n, b, 2*size)
		}
	})

	t.Run("bytes", func(t *testing.T) {
		m := newExcerptMemo(100, 3*size)
		for id := range uint64(10) {
			m.put(key(id), "x...")
		}
		if n, b := m.usage(); n != 3 || b > 3*size {
			t.Errorf("usage = %d entries, %d bytes, want 3 within %d", n, b, 3*size)
		}
		m.put(key(99), strings.Repeat("y", 3*size))
		if _, ok := m.get(key(99)); ok {
			t.Error("an entry larger than the whole budget was kept")
		}
		if n, _ := m.usage(); n != 3 {
			t.Errorf("an oversized entry evicted others: %d entries left", n)
		}
	})

	t.Run("a new version replaces nothing else", func(t *testing.T) {
		m := newExcerptMemo(10, 1<<20)
		m.put(key(1), "old...")
		m.put(key(1), "new...")
		if got, _ := m.get(key(1)); got != "new..." {
			t.Errorf("get = %q, want new...", got)
		}
		if n, b := m.usage(); n != 1 || b != (&memoEntry{key: key(1), excerpt: "new..."}).size() {
			t.Errorf("usage = %d entries, %d bytes after replacing one", n, b)
		}
	})

	t.Run("off", func(t *testing.T) {
		m := newExcerptMemo(0, 0)
		m.put(key(1), "x...")
		if _, ok := m.get(key(1)); ok {
			t.Error("a memo of 0 entries kept one")
		}
	})
}
