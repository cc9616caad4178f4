package listing

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRenderedPagesOrder keeps and recalls pages of one size in room for
// three, half of it for pages recalled: a page rendered once gives way,
// least recently kept first, before a recalled one, and of two recalled
// pages past their half, the one recalled fewer times goes back among
// the pages rendered once, as the most recent of them.
func TestRenderedPagesOrder(t *testing.T) {
	t.Parallel()
	views := map[string]PageView{}
	pages := map[string]*RenderedPage{}
	for i, name := range []string{"a", "b", "c", "d", "e"} {
		v := PageView{PostsStart: 10 + i, MaxPosts: 1000}
		var key bytes.Buffer
		writePageKey(&key, v)
		views[name] = v
		pages[name] = &RenderedPage{key: key.Bytes(), html: make([]byte, 1000), hash: uint64(i + 1)}
	}
	rp := newRenderedPages(3 * pages["a"].size())
	keep := func(name string) { rp.keep(pages[name]) }
	recall := func(name string) {
		if _, ok := rp.recall(pages[name].hash, views[name]); !ok {
			t.Fatalf("%s was not kept to recall", name)
		}
	}
	for _, step := range []struct {
		name string
		do   func()
		kept []string
	}{
		{"three kept", func() { keep("a"); keep("b"); keep("c") }, []string{"a", "b", "c"}},
		{"a recalled, d drops b", func() { recall("a"); keep("d") }, []string{"a", "c", "d"}},
		{"a recalled again, then c: c goes back, e drops d", func() { recall("a"); recall("c"); keep("e") }, []string{"a", "c", "e"}},
		{"b drops c, the oldest rendered once", func() { keep("b") }, []string{"a", "b", "e"}},
	} {
		step.do()
		var kept []string
		for _, name := range []string{"a", "b", "c", "d", "e"} {
			if renderedKept(rp, pages[name]) {
				kept = append(kept, name)
			}
		}
		if diff := cmp.Diff(step.kept, kept); diff != "" {
			t.Fatalf("%s: kept (-want +got):\n%s", step.name, diff)
		}
		if keptBytes(rp) > rp.max {
			t.Fatalf("%s: %d bytes kept, over %d", step.name, keptBytes(rp), rp.max)
		}
	}
}

// renderedKept tells whether rp keeps page.
func renderedKept(rp *renderedPages, page *RenderedPage) bool {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.listLocked(page) != nil
}

// keptCount is how many pages rp keeps.
func keptCount(rp *renderedPages) int {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.recent.Len() + rp.frequent.Len()
}

// keptBytes is what rp's pages take.
func keptBytes(rp *renderedPages) int {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.bytesLocked()
}
