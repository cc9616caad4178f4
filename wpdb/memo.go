package wpdb

import (
	"container/list"
	"sync"
)

// memoKey names one version of a post: WordPress sets post_modified_gmt on
// every save, and the content's length also changes with most edits made
// by raw SQL that forget to set it.
type memoKey struct {
	id       uint64
	modified string // post_modified_gmt as stored
	length   int64  // of post_content, in bytes
}

type memoEntry struct {
	key     memoKey
	excerpt string
}

// memoEntryOverhead approximates what an entry costs beside its strings:
// the list element, the entry, the map's key and pointer.
const memoEntryOverhead = 160

// excerptMemo keeps the excerpts of the posts shaped last, so that a post
// is shaped once per version, not on every request or cache refresh. It
// holds at most maxEntries excerpts and about maxBytes bytes, dropping the
// least recently used. A nil *excerptMemo keeps nothing. It is safe for
// concurrent use.
type excerptMemo struct {
	maxEntries, maxBytes int

	mu      sync.Mutex
	bytes   int // the sizes of the entries held
	entries map[memoKey]*list.Element
	lru     list.List // of *memoEntry, front: most recently used
}

// newExcerptMemo returns a memo of maxEntries and maxBytes, or nil when
// maxEntries is 0 (Config's "off").
func newExcerptMemo(maxEntries, maxBytes int) *excerptMemo {
	if maxEntries == 0 {
		return nil
	}
	return &excerptMemo{maxEntries: maxEntries, maxBytes: maxBytes, entries: make(map[memoKey]*list.Element)}
}

func (e *memoEntry) size() int {
	return len(e.excerpt) + len(e.key.modified) + memoEntryOverhead
}

// get returns the excerpt kept for key.
func (m *excerptMemo) get(key memoKey) (string, bool) {
	if m == nil {
		return "", false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.entries[key]
	if !ok {
		return "", false
	}
	m.lru.MoveToFront(el)
	return el.Value.(*memoEntry).excerpt, true
}

// put keeps excerpt under key, then drops the least recently used entries
// until the memo is within its bounds again.
func (m *excerptMemo) put(key memoKey, excerpt string) {
	if m == nil {
		return
	}
	entry := &memoEntry{key: key, excerpt: excerpt}
	if entry.size() > m.maxBytes {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.entries[key]; ok {
		m.bytes -= el.Value.(*memoEntry).size()
		m.lru.Remove(el)
	}
	m.entries[key] = m.lru.PushFront(entry)
	m.bytes += entry.size()
	for m.lru.Len() > m.maxEntries || m.bytes > m.maxBytes {
		oldest := m.lru.Back()
		old := m.lru.Remove(oldest).(*memoEntry)
		delete(m.entries, old.key)
		m.bytes -= old.size()
	}
}

// usage returns the number of entries held and their size in bytes.
func (m *excerptMemo) usage() (entries, bytes int) {
	if m == nil {
		return 0, 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lru.Len(), m.bytes
}
