package listing

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/flight"
)

// Pages is the listing as readers get it, formatted: a Direct, a Cache,
// or a Sticky over either.
type Pages interface {
	// Posts returns page p of its listing.
	Posts(ctx context.Context, p blog.Page) ([]Post, error)
	// StickyPosts returns the published posts of the listed types among
	// ids, newest first, as the database has them now.
	StickyPosts(ctx context.Context, ids []uint64) ([]Post, error)
}

// Sticky is the listing as WordPress's blog home orders it: the sticky
// posts first, newest first, then every other post, newest first, none
// twice. Offsets (start) and positions (lastPost) are in that order, so a
// walk by either gives each post once. The listing underneath keeps its
// cached head and pages: a page of the others from offset r is read from
// offset r, as many posts longer as there are sticky ones; the sticky posts
// newer than its first post say how many others lie before r and are
// skipped, and those inside it are left out. The sticky posts are read by
// ID, again after ttl, so one unpublished shows as the listing does. It is
// safe for concurrent use.
type Sticky struct {
	pages   Pages
	ttl     time.Duration
	stretch Stretch
	now     func() time.Time
	logger  *slog.Logger

	ids    atomic.Pointer[[]uint64] // the option as last read
	mu     sync.Mutex
	last   *stickyRead // under mu
	marks  pace        // under mu: how change events paced (pace.go)
	marked time.Time   // under mu: when change events last marked it
	// gen counts the events that dropped the sticky posts (under mu): a
	// read is joined, and kept, only by its own, so that a read that
	// started before an event is neither (see Cache's, overtaken.go).
	gen   uint64
	reads flight.Group[uint64, *stickyRead]
}

// stickyRead is one read of the sticky posts.
type stickyRead struct {
	ids     []uint64
	posts   []Post
	fetched time.Time // when its query started
	short   bool      // kept for ttl even while stretched, as a cache's page (stretch.go)
}

// NewSticky puts the posts ids names (the sticky_posts option) first in
// pages, reading them from pages again once they are ttl old (each time
// when ttl is 0). Background reads that fail are logged to logger; the
// readers that then have to wait get the error themselves.
func NewSticky(pages Pages, ttl time.Duration, ids []uint64, logger *slog.Logger) *Sticky {
	s := &Sticky{pages: pages, ttl: ttl, now: time.Now, logger: logger}
	s.SetIDs(ids)
	return s
}

// Stretch lengthens the bound while change events flow, as a Cache's
// (stretch.go). Call it before the first read.
func (s *Sticky) Stretch(st Stretch) { s.stretch = st }

// SetIDs takes the sticky_posts option read again: the pages read after it
// follow it.
func (s *Sticky) SetIDs(ids []uint64) {
	ids = slices.Clone(ids)
	s.ids.Store(&ids)
}

// sticky returns the sticky posts that are in the listing, newest first:
// the last read while it is younger than ttl (starting the next one in the
// background once it is half that old, as the cache does its head), else
// a new read, shared by the readers that need it. It returns ctx's error
// when ctx ends first, and the source's.
func (s *Sticky) sticky(ctx context.Context) ([]Post, error) {
	ids := *s.ids.Load()
	if len(ids) == 0 {
		return nil, nil
	}
	s.mu.Lock()
	last, gen := s.last, s.gen
	s.mu.Unlock()
	if last != nil && slices.Equal(last.ids, ids) {
		bound := s.ttl
		if !last.short {
			bound = s.stretch.bound(s.ttl)
		}
		if age := s.now().Sub(last.fetched); age < bound {
			if age >= bound/2 {
				s.reads.Go(ctx, gen, s.read(ids, true))
			}
			return last.posts, nil
		}
	}
	read, err := s.reads.Do(ctx, gen, s.read(ids, false))
	if err != nil {
		return nil, err
	}
	if !slices.Equal(read.ids, ids) {
		// The option changed while the read ran: it answers for the old
		// one, which a reader who read the new one must not get.
		return s.sticky(ctx)
	}
	return read.posts, nil
}

// read is a read of ids' posts, as a flight's work; ahead when no reader
// waits for it yet. It runs to its end, under the store's query timeout,
// whoever still waits: the next reader needs it too.
func (s *Sticky) read(ids []uint64, ahead bool) flight.Work[*stickyRead] {
	return flight.Work[*stickyRead]{Detached: true, Run: func(ctx context.Context) (*stickyRead, error) {
		s.mu.Lock()
		gen, fetched := s.gen, s.now()
		s.mu.Unlock()
		posts, err := s.pages.StickyPosts(ctx, ids)
		if err != nil {
			if ahead {
				s.logger.Warn("sticky posts: background read failed; the last ones read are served until they expire", "err", err)
			}
			return nil, err
		}
		read := &stickyRead{ids: ids, posts: posts, fetched: fetched}
		s.mu.Lock()
		read.short = missed(s.marked, fetched, s.ttl) // an event came while it ran, or shortly before
		// An event that overtook it (dropped the sticky posts since it
		// started) leaves it unkept.
		if s.gen == gen {
			s.last = read
		}
		s.mu.Unlock()
		return read, nil
	}}
}

// Posts returns page p in the home's order. Only the whole blog puts its
// sticky posts first: any other listing's pages, an archive's, are read
// as they are, as WordPress's archives do. It returns the errors of the
// sticky posts' source and of pages.
func (s *Sticky) Posts(ctx context.Context, p blog.Page) ([]Post, error) {
	if p.Key() != "" || p.Offset < 0 || p.Limit <= 0 {
		return s.pages.Posts(ctx, p)
	}
	sticky, err := s.sticky(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case len(sticky) == 0:
		return s.pages.Posts(ctx, p)
	case p.LastPost != 0:
		return s.after(ctx, sticky, p)
	}
	var out []Post
	if p.Offset < len(sticky) {
		out = slices.Clone(sticky[p.Offset:min(len(sticky), p.Offset+p.Limit)])
	}
	if len(out) == p.Limit {
		return out, nil
	}
	others, err := s.others(ctx, sticky, max(p.Offset-len(sticky), 0), p.Limit-len(out))
	if err != nil {
		return nil, err
	}
	return append(out, others...), nil
}

// after returns the page p after post p.LastPost in the home's order:
// after a sticky post, the sticky posts after it and then the others from
// the top; after any other post, the others after it in the listing. When
// no row has that ID, the offset decides, as in the listing, counted as if
// no sticky post came before it (a walk that loses its last post may see
// up to as many posts again as are sticky, never skip one).
func (s *Sticky) after(ctx context.Context, sticky []Post, p blog.Page) ([]Post, error) {
	if i := slices.IndexFunc(sticky, func(st Post) bool { return st.ID == p.LastPost }); i >= 0 {
		out := slices.Clone(sticky[i+1 : min(len(sticky), i+1+p.Limit)])
		if len(out) == p.Limit {
			return out, nil
		}
		others, err := s.others(ctx, sticky, 0, p.Limit-len(out))
		if err != nil {
			return nil, err
		}
		return append(out, others...), nil
	}
	page, err := s.pages.Posts(ctx, blog.Page{LastPost: p.LastPost, Offset: max(p.Offset-len(sticky), 0), Limit: p.Limit + len(sticky)})
	if err != nil {
		return nil, err
	}
	page = leaveOut(page, sticky)
	return page[:min(p.Limit, len(page))], nil
}

// others returns limit of the posts that are not sticky, after skipping r
// of them. The listing's posts from offset r include the others from r-c
// on, c being the sticky posts before offset r: those newer than its post
// at r. Reading limit+len(sticky) from r, at most len(sticky)-c of them
// sticky, leaves at least the c to skip and the limit wanted.
func (s *Sticky) others(ctx context.Context, sticky []Post, r, limit int) ([]Post, error) {
	page, err := s.pages.Posts(ctx, blog.Page{Offset: r, Limit: limit + len(sticky)})
	if err != nil || len(page) == 0 {
		return nil, err
	}
	first := page[0]
	before := 0
	for _, p := range sticky {
		if p.Date > first.Date || (p.Date == first.Date && p.ID > first.ID) {
			before++
		}
	}
	page = leaveOut(page, sticky)
	from := min(before, len(page))
	return page[from:min(from+limit, len(page))], nil
}

// StickyPosts returns the sticky posts among ids as the listing underneath
// reads them now.
func (s *Sticky) StickyPosts(ctx context.Context, ids []uint64) ([]Post, error) {
	return s.pages.StickyPosts(ctx, ids)
}

// leaveOut returns page without the sticky posts, in a slice of its own.
func leaveOut(page, sticky []Post) []Post {
	out := make([]Post, 0, len(page))
	for _, p := range page {
		if !slices.ContainsFunc(sticky, func(st Post) bool { return st.ID == p.ID }) {
			out = append(out, p)
		}
	}
	return out
}
