// Package lru keeps values within a bound of bytes, and of entries if
// wanted, dropping the least recently used first.
package lru

import (
	"container/list"
	"iter"
)

// Cache keeps values by key, each with the size its caller gives it, in at
// most maxBytes bytes and maxLen entries. It is not safe for concurrent
// use: its callers hold their own locks.
type Cache[K comparable, V any] struct {
	maxBytes, maxLen int
	items            map[K]*list.Element // of *entry[K, V]
	order            list.List           // front: most recently used
	bytes            int
}

type entry[K comparable, V any] struct {
	key   K
	value V
	size  int
}

// New returns a cache of at most maxBytes bytes and, when maxLen is
// positive, maxLen entries.
func New[K comparable, V any](maxBytes, maxLen int) *Cache[K, V] {
	return &Cache[K, V]{maxBytes: maxBytes, maxLen: maxLen, items: map[K]*list.Element{}}
}

// Get returns key's value, if kept, as the most recently used.
func (c *Cache[K, V]) Get(key K) (V, bool) {
	el, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*entry[K, V]).value, true
}

// Peek returns key's value, if kept, leaving its place as it is.
func (c *Cache[K, V]) Peek(key K) (V, bool) {
	el, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	return el.Value.(*entry[K, V]).value, true
}

// Add keeps value under key, of size bytes, as the most recently used, in
// place of key's value if any, and drops the least recently used entries
// past the bounds. A value larger than maxBytes on its own is not kept,
// and the one it replaces is dropped.
func (c *Cache[K, V]) Add(key K, value V, size int) {
	c.Remove(key)
	if size > c.maxBytes {
		return
	}
	c.items[key] = c.order.PushFront(&entry[K, V]{key: key, value: value, size: size})
	c.bytes += size
	for c.bytes > c.maxBytes || (c.maxLen > 0 && c.order.Len() > c.maxLen) {
		c.remove(c.order.Back())
	}
}

// Grow adds n bytes to the size of key's entry, in its place, when they fit
// within maxBytes, and reports whether it did: it drops no entry.
func (c *Cache[K, V]) Grow(key K, n int) bool {
	el, ok := c.items[key]
	if !ok || c.bytes+n > c.maxBytes {
		return false
	}
	el.Value.(*entry[K, V]).size += n
	c.bytes += n
	return true
}

// Remove drops key's entry, and reports whether there was one.
func (c *Cache[K, V]) Remove(key K) bool {
	el, ok := c.items[key]
	if ok {
		c.remove(el)
	}
	return ok
}

func (c *Cache[K, V]) remove(el *list.Element) {
	e := c.order.Remove(el).(*entry[K, V])
	delete(c.items, e.key)
	c.bytes -= e.size
}

// Oldest returns the least recently used entry, if any.
func (c *Cache[K, V]) Oldest() (K, V, bool) {
	el := c.order.Back()
	if el == nil {
		var (
			key   K
			value V
		)
		return key, value, false
	}
	e := el.Value.(*entry[K, V])
	return e.key, e.value, true
}

// All yields the entries, the most recently used first. The cache must not
// change meanwhile.
func (c *Cache[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		for el := c.order.Front(); el != nil; el = el.Next() {
			if e := el.Value.(*entry[K, V]); !yield(e.key, e.value) {
				return
			}
		}
	}
}

// Backward yields the entries, the least recently used first: where a
// caller choosing its own victims looks. The cache must not change
// meanwhile.
func (c *Cache[K, V]) Backward() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		for el := c.order.Back(); el != nil; el = el.Prev() {
			if e := el.Value.(*entry[K, V]); !yield(e.key, e.value) {
				return
			}
		}
	}
}

// Len is how many entries are kept.
func (c *Cache[K, V]) Len() int { return c.order.Len() }

// Bytes is what the kept entries take, by their sizes.
func (c *Cache[K, V]) Bytes() int { return c.bytes }
