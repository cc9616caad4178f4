package main

import (
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/wploadmore/wploadmore/server/listing"
)

// TestUnsentAnswers: answers share the room; one that finds none is
// refused at once with listing.ErrBusy and its connection closed; a JSON
// answer keeps only its compressed size; one larger than all the room is
// written alone.
func TestUnsentAnswers(t *testing.T) {
	t.Parallel()
	const kb = 1 << 10
	u := newUnsentAnswers(1024 * kb)
	reserve := func(n int) (*unsentRoom, bool) {
		t.Helper()
		w := httptest.NewRecorder()
		room, err := u.reserve(w, n)
		closed := w.Header().Get("Connection") == "close"
		if (err != nil) != closed || (err != nil) != (room == nil) {
			t.Fatalf("reserve(%d KB): %v, Connection %q", n/kb, err, w.Header().Get("Connection"))
		}
		if err != nil && !errors.Is(err, listing.ErrBusy) {
			t.Fatalf("reserve(%d KB): %v, want listing.ErrBusy", n/kb, err)
		}
		return room, err == nil
	}

	first, _ := reserve(600 * kb)
	if _, ok := reserve(600 * kb); ok {
		t.Error("600 KB found room beside 600 KB of 1 MB")
	}
	first.shrink(300 * kb) // compressed
	second, ok := reserve(600 * kb)
	if !ok {
		t.Fatal("600 KB found no room beside 300 KB of 1 MB")
	}
	first.release()
	second.release()

	whole, ok := reserve(5 * 1024 * kb)
	if !ok {
		t.Fatal("an answer larger than the room found none in an empty room")
	}
	if _, ok := reserve(1); ok {
		t.Error("1 byte found room beside an answer that takes all of it")
	}
	whole.release()
	if _, ok := reserve(1024 * kb); !ok {
		t.Error("the room was not all given back")
	}
}

// TestUnsentRoomResize: a page's room, taken for a bound of its size,
// fits itself to the page: it shrinks, grows while there is room, and
// when there is none refuses as reserve does, keeping what it held.
func TestUnsentRoomResize(t *testing.T) {
	t.Parallel()
	const kb = 1 << 10
	u := newUnsentAnswers(1024 * kb)
	w := httptest.NewRecorder()
	page, err := u.reserve(w, 500*kb) // the bound
	if err != nil {
		t.Fatal(err)
	}
	if err := page.resize(300 * kb); err != nil || page.size != 300*kb { // rendered
		t.Fatalf("resize to 300 KB: %v, holds %d KB", err, page.size/kb)
	}
	if err := page.resize(700 * kb); err != nil || page.size != 700*kb { // larger than its bound
		t.Fatalf("resize to 700 KB: %v, holds %d KB", err, page.size/kb)
	}
	other, err := u.reserve(httptest.NewRecorder(), 300*kb)
	if err != nil {
		t.Fatal(err)
	}
	err = page.resize(800 * kb)
	if !errors.Is(err, listing.ErrBusy) || w.Header().Get("Connection") != "close" || page.size != 700*kb {
		t.Errorf("resize past the room: %v, Connection %q, holds %d KB; want ErrBusy, close, 700 KB", err, w.Header().Get("Connection"), page.size/kb)
	}
	page.release()
	other.release()
	if _, err := u.reserve(w, 1024*kb); err != nil {
		t.Error("the room was not all given back")
	}
}
