package excerpt

import (
	"sync"

	"github.com/wploadmore/wploadmore/internal/lru"
)

// Version names one version of a post, the key of a [Memo]: WordPress sets
// post_modified_gmt on every save, and the content's length also changes
// with most edits made by raw SQL that forget to set it.
type Version struct {
	ID       uint64 // the post's ID
	Modified string // post_modified_gmt as stored
	Length   int64  // of post_content, in bytes
}

// memoEntryOverhead approximates what an entry costs beside its strings:
// the list element, the entry, the map's key and pointer.
const memoEntryOverhead = 160

// Memo keeps the excerpts of the posts shaped last, by post version, so
// that a post is shaped once per version, not on every request or cache
// refresh. It holds at most a number of excerpts and about a number of
// bytes, dropping the least recently used. A nil *Memo keeps nothing. It
// is safe for concurrent use.
type Memo struct {
	maxBytes int
	mu       sync.Mutex
	excerpts *lru.Cache[Version, string]
}

// NewMemo returns a Memo of at most maxEntries excerpts and about maxBytes
// bytes, or nil, which keeps nothing, when maxEntries is 0.
func NewMemo(maxEntries, maxBytes int) *Memo {
	if maxEntries == 0 {
		return nil
	}
	return &Memo{maxBytes: maxBytes, excerpts: lru.New[Version, string](maxBytes, maxEntries)}
}

// memoSize is what keeping excerpt under v costs.
func memoSize(v Version, excerpt string) int {
	return len(excerpt) + len(v.Modified) + memoEntryOverhead
}

// Get returns the excerpt kept for version v, and whether there is one.
func (m *Memo) Get(v Version) (string, bool) {
	if m == nil {
		return "", false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.excerpts.Get(v)
}

// Put keeps excerpt under version v, then drops the least recently used
// entries until the memo is within its bounds again. An excerpt larger
// than the whole budget is not kept, and leaves the one kept for v.
func (m *Memo) Put(v Version, excerpt string) {
	size := memoSize(v, excerpt)
	if m == nil || size > m.maxBytes {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.excerpts.Add(v, excerpt, size)
}

// Usage returns the number of excerpts held and about how many bytes they
// take, as counted against the memo's bounds.
func (m *Memo) Usage() (entries, bytes int) {
	if m == nil {
		return 0, 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.excerpts.Len(), m.excerpts.Bytes()
}
