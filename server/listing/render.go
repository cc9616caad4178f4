package listing

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/wploadmore/wploadmore/internal/flight"
)

// Render returns the page for v, kept from an earlier render of the same
// view when there was one, or rendered by a render of the same view in
// flight. The page is shared: callers only write it out. A reader whose
// ctx ends first leaves with ctx's cause; its render goes on, to be kept.
//
// Before the page is rendered or waited for, reserve, when not nil, is
// given a bound of its size (the page's own size when it is kept), so
// that an answer refused for want of room costs no render; its error is
// returned as it is. A page not kept that finds no place among the
// renders in flight within renderPlaceWait, or past the renders' share of
// the cores or their budget, is refused, with an error wrapping ErrBusy.
func (r *Renderer) Render(ctx context.Context, v PageView, reserve func(size int) error) (*RenderedPage, error) {
	hash := r.viewHash(v)
	if page, ok := r.rendered.recall(hash, v); ok {
		r.read.note(r.placeHash(v), hash)
		if err := reserveFor(reserve, len(page.html)); err != nil {
			return nil, err
		}
		return page, nil
	}
	if err := reserveFor(reserve, r.sizeBound(v)); err != nil {
		return nil, err
	}
	render := r.render(ctx, hash, v, r.changed(hash, v))
	page, err := r.flights.Do(ctx, hash, render)
	if err != nil || sameView(page, v) {
		return page, err
	}
	// Another view of the same hash: rendered on its own.
	release, err := render.Admit()
	if err != nil {
		return nil, err
	}
	defer release()
	return render.Run(ctx)
}

// reserveFor asks reserve, when not nil, for size bytes.
func reserveFor(reserve func(size int) error, size int) error {
	if reserve == nil {
		return nil
	}
	return reserve(size)
}

// sameView tells whether page was rendered for v.
func sameView(page *RenderedPage, v PageView) bool {
	same := keyComparer{key: page.key, same: true}
	writePageKey(&same, v)
	return same.same && len(same.key) == 0
}

// render is the render of v, whose view hashes to hash, as a flight's
// work: admitted while the renders have a place, their share of the
// cores and room in their budget (a reader of ctx waiting up to
// renderPlaceWait for a place), and kept once rendered; a page readers
// read, changed, from the reserve first (see reserveShare). Detached, it
// is kept whoever waits for it.
func (r *Renderer) render(ctx context.Context, hash uint64, v PageView, changed bool) flight.Work[*RenderedPage] {
	clock := r.clock
	return flight.Work[*RenderedPage]{
		Detached: true,
		Admit: func() (func(), error) {
			if changed {
				if release, ok := r.admitReserved(ctx); ok {
					clock = r.reserveClock
					return release, nil
				}
			}
			return r.admit(ctx, len(v.Posts))
		},
		Run: func(context.Context) (*RenderedPage, error) {
			// A render of the same view may have finished since the page
			// was looked for.
			if page, ok := r.rendered.recall(hash, v); ok {
				return page, nil
			}
			var html bytes.Buffer
			began := time.Now()
			err := r.renderView(&html, v)
			clock.charge(time.Since(began))
			if err != nil {
				return nil, err
			}
			var key bytes.Buffer
			writePageKey(&key, v)
			page := &RenderedPage{key: key.Bytes(), html: html.Bytes(), hash: hash}
			r.rendered.keep(page)
			return page, nil
		},
	}
}

// admit admits a render of a page of posts posts, or refuses it with an
// error wrapping ErrBusy; the release it returns gives its places back.
func (r *Renderer) admit(ctx context.Context, posts int) (release func(), err error) {
	// A render takes a few milliseconds: a reader who comes as another
	// visitor's page renders waits for it that long, where a flood of
	// renders, keeping every place taken, is still refused.
	if !r.rendering.tryFor(ctx, renderPlaceWait) {
		return nil, fmt.Errorf("page of %d posts: %d renders in flight: %w", posts, cap(r.rendering), ErrBusy)
	}
	weight := int64(max(posts, 1))
	switch {
	case !r.clock.admit():
		err = fmt.Errorf("page of %d posts: renders took their share of the cores: %w", posts, ErrBusy)
	case !r.renders.TryAcquire(weight):
		err = fmt.Errorf("page of %d posts: the render budget is held by renders in flight: %w", posts, ErrBusy)
	}
	if err != nil {
		r.rendering.done()
		return nil, err
	}
	return func() {
		r.renders.Release(weight)
		r.rendering.done()
	}, nil
}
