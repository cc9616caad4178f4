package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// The surfaces where the push row looks for a change: the JSON's first
// post, the page a reader loads, and a kept search's first post.
const (
	surfaceJSON   = "JSON"
	surfacePage   = "page"
	surfaceSearch = "search"
)

// pushRead is one request a surface's check makes and what its answer
// must hold.
type pushRead struct {
	path  string
	holds func(body []byte) bool
}

// pushSurface is one place a reader sees a change, read by client: it
// shows the change when every one of its reads holds.
type pushSurface struct {
	name   string // surfaceJSON, surfacePage or surfaceSearch
	client *http.Client
	reads  []pushRead
}

// shows tells whether the surface on the instance at base shows the
// change, reading until the first read that does not hold.
func (s pushSurface) shows(ctx context.Context, base string) (bool, error) {
	for _, r := range s.reads {
		body, err := get(ctx, s.client, base+r.path)
		if err != nil {
			return false, err
		}
		if !r.holds(body) {
			return false, nil
		}
	}
	return true, nil
}

// notShownYet fails when a surface on one of bases shows the change
// before it is made: such a check cannot time it, and one that always
// holds would time every change as the first poll's answer.
func notShownYet(ctx context.Context, bases []string, surfaces []pushSurface) error {
	for _, s := range surfaces {
		for _, base := range bases {
			shown, err := s.shows(ctx, base)
			if err != nil {
				return err
			}
			if shown {
				return fmt.Errorf("the %s on %s shows the change before it is made", s.name, base)
			}
		}
	}
	return nil
}

// waitShown polls each surface on each of bases until it shows the
// change, for up to 5 s, dropping those that do so that the bench's own
// load falls as they show it, a millisecond between rounds. It returns,
// by surface, the time from returned to the answer of the later instance
// that showed it.
func waitShown(ctx context.Context, bases []string, surfaces []pushSurface, returned time.Time) (map[string]time.Duration, error) {
	type pending struct {
		surface pushSurface
		base    string
	}
	var left []pending
	for _, s := range surfaces {
		for _, base := range bases {
			left = append(left, pending{s, base})
		}
	}
	took := map[string]time.Duration{}
	for end := time.Now().Add(5 * time.Second); len(left) > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			var names []string
			for _, p := range left {
				names = append(names, p.surface.name+" on "+p.base)
			}
			return nil, fmt.Errorf("not shown 5 s after its function returned: %s", strings.Join(names, ", "))
		}
		for i := 0; i < len(left); i++ {
			shown, err := left[i].surface.shows(ctx, left[i].base)
			if err != nil {
				return nil, err
			}
			if shown {
				name := left[i].surface.name
				took[name] = max(took[name], time.Since(returned))
				left = slices.Delete(left, i, i+1)
				i--
			}
		}
	}
	return took, nil
}

// firstPost holds for a JSON answer whose first post holds want; an
// answer that is no list of posts, or an empty one, holds nothing.
func firstPost(want func(jsonPost) bool) func([]byte) bool {
	return func(body []byte) bool {
		var posts []jsonPost
		return json.Unmarshal(body, &posts) == nil && len(posts) > 0 && want(posts[0])
	}
}

// firstIsNot holds for a JSON answer, a list of posts, whose first post
// is not post id: an empty list too, as a category's after its one post
// moved out.
func firstIsNot(id uint64) func([]byte) bool {
	return func(body []byte) bool {
		var posts []jsonPost
		return json.Unmarshal(body, &posts) == nil && (len(posts) == 0 || posts[0].ID != id)
	}
}

// pageShows holds for a page holding every one of has and none of lacks.
func pageShows(has, lacks []string) func([]byte) bool {
	return func(body []byte) bool {
		for _, s := range has {
			if !bytes.Contains(body, []byte(s)) {
				return false
			}
		}
		for _, s := range lacks {
			if bytes.Contains(body, []byte(s)) {
				return false
			}
		}
		return true
	}
}

// pageTitle is a post's title as the page's card writes it, the whole
// text of its heading (or of the heading's link), so that "Pushed 1" is
// not found in "Pushed 10". The bench's titles hold nothing HTML escapes.
func pageTitle(title string) string { return ">" + title + "<" }
