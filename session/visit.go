package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// minBudgetSessions is the fewest sessions a NewSessionBytes may hold: the
// bucket's burst is an eighth of them and half of that is kept for
// returning visitors, so fewer would let no new session through.
const minBudgetSessions = 16

// Visit resolves the visitor's session, adds n (0 for a page view) to its
// posts_start atomically, and returns it. A stored, readable session under
// v.ID wins (a companion sealed over it while Redis was full adds what it
// lacks, see visitFull); else a companion sealed for v.ID (carry.go)
// carries the count; else a fresh id starts at InitialPostsStart+n. A new
// session past the creation budget, or any while Redis refuses writes for
// want of memory (ErrFull), is carried in State.Carry and stored on a later
// visit once there is room. Errors wrap ErrUnavailable, except for a
// negative n.
func (s *Store) Visit(ctx context.Context, v Visitor, n int) (State, error) {
	if n < 0 {
		return State{}, fmt.Errorf("session: negative posts_start increment %d", n)
	}
	if ValidID(v.ID) {
		var c carried
		var ok bool
		if v.Carried != "" {
			var err error
			if c, ok, err = s.carry.open(ctx, v.ID, v.Carried, s.now()); err != nil {
				s.cfg.observe(UpdateUnavailable)
				return State{}, err
			}
		}
		var over carried // the companion sealed over the stored session, if any
		var got int64
		var err error
		if ok && c.over {
			over = c
			got, err = s.addCarried(ctx, v.ID, c, n)
		} else {
			got, err = s.addExisting(ctx, v.ID, n)
		}
		switch {
		case err == nil:
			s.cfg.observe(UpdateApplied)
			return State{ID: v.ID, PostsStart: clampInt(got)}, nil
		case errors.Is(err, ErrFull):
			return s.visitFull(ctx, v, over, n)
		case errors.Is(err, errUnreadable):
			s.logger.WarnContext(ctx, "session value unreadable (malformed or compressed); issuing a new id and leaving it untouched",
				slog.String("session_id", truncateID(v.ID)), slog.Any("error", err))
		case !errors.Is(err, errNoSession):
			if errors.Is(err, ErrUnavailable) {
				s.cfg.observe(UpdateUnavailable)
			}
			return State{}, err
		case ok:
			return s.resume(ctx, v, addClamped(c.count, n), n)
		}
	}
	return s.freshObserved(ctx, int64(s.cfg.InitialPostsStart)+int64(n))
}

// addCarried adds n to the stored session id that c was sealed over, and
// what c carries first while the store still holds the posts_start c was
// sealed over: so a companion counts once, however often it comes back
// (an old tab, two requests at once). It takes the WATCH path, and
// returns what addExisting does.
func (s *Store) addCarried(ctx context.Context, id string, c carried, n int) (int64, error) {
	var got int64
	err := s.b.update(ctx, id, func(cur []byte, exists bool) ([]byte, error) {
		if !exists {
			return nil, errNoSession
		}
		d, err := Decode(s.cfg.Format, cur)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errUnreadable, err)
		}
		v, ok := d.Int(postsStartKey)
		if !ok {
			v = int64(s.cfg.InitialPostsStart)
		}
		if v == c.count-c.pending {
			v = c.count
		}
		got = addClamped(v, n)
		d.SetInt(postsStartKey, got)
		return d.Encode(), nil
	})
	return got, err
}

// visitFull answers a visitor whose stored session Redis had no room to
// update: its posts_start is read (a GET needs no room), and what the
// store lacks of it, n plus what over (the companion the visitor brought,
// if sealed over this session) still carries, rides in a companion sealed
// over the session until a visit finds room to add it.
func (s *Store) visitFull(ctx context.Context, v Visitor, over carried, n int) (State, error) {
	s.outOfRoom.Store(true)
	s.cfg.observe(UpdateFull)
	cur, exists, err := s.b.read(ctx, v.ID)
	if err != nil && !errors.Is(err, errUnreadable) {
		s.cfg.observe(UpdateUnavailable)
		return State{}, err
	}
	var d *Data
	if err == nil && exists {
		d, err = Decode(s.cfg.Format, cur)
	}
	if err != nil || !exists {
		// Gone or unreadable since the update was refused: as for any
		// such id, a fresh one, carried while Redis stays full, with
		// the count the visitor brought.
		count := int64(s.cfg.InitialPostsStart)
		if over.over {
			count = over.count
		}
		return s.freshObserved(ctx, addClamped(count, n))
	}
	stored, ok := d.Int(postsStartKey)
	if !ok {
		stored = int64(s.cfg.InitialPostsStart)
	}
	var pending int64
	if over.over && stored == over.count-over.pending {
		pending = over.pending // not stored yet, as addCarried would find
	}
	pending = addClamped(pending, n)
	count := addClamped(stored, clampInt(pending))
	if pending == 0 {
		// A page view with nothing carried: nothing to store.
		return State{ID: v.ID, PostsStart: clampInt(count)}, nil
	}
	carry, err := s.carry.sealOver(ctx, v.ID, count, pending, s.now())
	if err != nil {
		s.cfg.observe(UpdateUnavailable)
		return State{}, err
	}
	s.cfg.observe(UpdateDeferred)
	return State{ID: v.ID, PostsStart: clampInt(count), Carry: carry}, nil
}

// freshObserved is fresh, told to the update observer.
func (s *Store) freshObserved(ctx context.Context, postsStart int64) (State, error) {
	st, err := s.fresh(ctx, postsStart)
	switch {
	case err == nil && st.Carry != "":
		s.cfg.observe(UpdateDeferred)
	case err == nil:
		s.cfg.observe(UpdateCreated)
	case errors.Is(err, ErrUnavailable):
		s.cfg.observe(UpdateUnavailable)
	}
	return st, err
}

// resume stores the session v carried with posts_start count, which
// already holds this request's n, or carries it on past the budget.
func (s *Store) resume(ctx context.Context, v Visitor, count int64, n int) (State, error) {
	id := v.ID
	carryOn := func() (State, error) {
		carry, err := s.carry.seal(ctx, id, count, s.now())
		if err != nil {
			s.cfg.observe(UpdateUnavailable)
			return State{}, err
		}
		s.cfg.observe(UpdateDeferred)
		return State{ID: id, PostsStart: clampInt(count), Carry: carry, New: v.issued}, nil
	}
	if !s.budget.take(!v.issued) {
		return carryOn()
	}
	err := s.b.create(ctx, id, s.newValue(count))
	if errors.Is(err, ErrFull) {
		s.outOfRoom.Store(true)
		s.cfg.observe(UpdateFull)
		return carryOn()
	}
	if errors.Is(err, errTaken) {
		// Stored since we looked (by PHP, or by this visitor's other
		// request, which spent the same companion): it wins, and gets our
		// n as any update would.
		got, err := s.addExisting(ctx, id, n)
		if errors.Is(err, errUnreadable) {
			// What was stored meanwhile is no session we can read (PHP
			// compressed it, say): as for any unreadable session, the
			// value is left alone, and the count goes on under a new id.
			s.logger.WarnContext(ctx, "session value unreadable (malformed or compressed); issuing a new id and leaving it untouched",
				slog.String("session_id", truncateID(id)), slog.Any("error", err))
			return s.freshObserved(ctx, count)
		}
		if err != nil {
			if errors.Is(err, ErrUnavailable) {
				s.cfg.observe(UpdateUnavailable)
			}
			return State{}, prefixed{"session " + truncateID(id) + ": stored meanwhile: ", err}
		}
		s.cfg.observe(UpdateApplied)
		return State{ID: id, PostsStart: clampInt(got)}, nil
	}
	if err != nil {
		s.cfg.observe(UpdateUnavailable)
		return State{}, err
	}
	s.cfg.observe(UpdateResumed)
	return State{ID: id, PostsStart: clampInt(count)}, nil
}

// fresh issues a new id holding posts_start: stored while the creation
// budget lasts, else carried by its visitor.
func (s *Store) fresh(ctx context.Context, postsStart int64) (State, error) {
	if s.budget.take(false) {
		st, err := s.create(ctx, postsStart)
		if !errors.Is(err, ErrFull) {
			return st, err
		}
		s.outOfRoom.Store(true)
		s.cfg.observe(UpdateFull)
	}
	id, err := NewID()
	if err != nil {
		return State{}, err
	}
	carry, err := s.carry.seal(ctx, id, postsStart, s.now())
	if err != nil {
		return State{}, err
	}
	return State{ID: id, PostsStart: clampInt(postsStart), New: true, Carry: carry}, nil
}

// Peek answers a request that must change nothing, such as HEAD: the
// posts_start Visit would return with nothing to add, without creating,
// refreshing or writing any session (with Redis: one GET, no script, no
// lock). When v.ID names a stored, readable session it returns State{ID:
// v.ID} with that session's posts_start (InitialPostsStart when it has
// none); else, when v carries a valid companion, its count under v.ID.
// Otherwise it returns InitialPostsStart with an empty ID and New false:
// the fresh id Visit would issue is not issued, so there is no cookie to
// send. Errors wrap ErrUnavailable.
func (s *Store) Peek(ctx context.Context, v Visitor) (State, error) {
	none := State{PostsStart: s.cfg.InitialPostsStart}
	if !ValidID(v.ID) {
		return none, nil
	}
	cur, exists, err := s.b.read(ctx, v.ID)
	if err != nil {
		if errors.Is(err, errUnreadable) {
			return none, nil
		}
		return State{}, err
	}
	var c carried
	var ok bool
	if v.Carried != "" {
		if c, ok, err = s.carry.open(ctx, v.ID, v.Carried, s.now()); err != nil {
			return State{}, err
		}
	}
	if !exists {
		if ok {
			return State{ID: v.ID, PostsStart: clampInt(c.count), Carry: v.Carried}, nil
		}
		return none, nil
	}
	v2, stored, err := s.postsStartOf(ctx, v.ID, cur)
	if errors.Is(err, errUnreadable) {
		// Visit would log this and issue a new id; a read-only request
		// leaves both to the next GET.
		return none, nil
	}
	if err != nil {
		return State{}, err
	}
	if !stored {
		v2 = int64(s.cfg.InitialPostsStart)
	}
	if ok && c.over {
		// What a full Redis could not store is still the visitor's.
		return State{ID: v.ID, PostsStart: clampInt(addClamped(v2, clampInt(c.pending))), Carry: v.Carried}, nil
	}
	return State{ID: v.ID, PostsStart: clampInt(v2)}, nil
}
