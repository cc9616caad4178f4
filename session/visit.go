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
// posts_start atomically, and returns it:
//   - a stored, readable session under v.ID is updated, whatever the
//     companion says: a session PHP or another request stored wins;
//   - else a companion sealed for v.ID (see carry.go) carries the count:
//     the session is stored with it plus n or, past the creation budget,
//     stays in State.Carry;
//   - else a fresh id (State.New) starts at InitialPostsStart+n, stored
//     while the budget lasts, else carried in State.Carry.
//
// Errors wrap ErrUnavailable, except for a negative n.
func (s *Store) Visit(ctx context.Context, v Visitor, n int) (State, error) {
	if n < 0 {
		return State{}, fmt.Errorf("session: negative posts_start increment %d", n)
	}
	if ValidID(v.ID) {
		got, err := s.addExisting(ctx, v.ID, n)
		switch {
		case err == nil:
			s.cfg.observe(UpdateApplied)
			return State{ID: v.ID, PostsStart: clampInt(got)}, nil
		case errors.Is(err, errUnreadable):
			s.logger.WarnContext(ctx, "session value unreadable (malformed or compressed); issuing a new id and leaving it untouched",
				slog.String("session_id", truncateID(v.ID)), slog.Any("error", err))
		case !errors.Is(err, errNoSession):
			if errors.Is(err, ErrUnavailable) {
				s.cfg.observe(UpdateUnavailable)
			}
			return State{}, err
		default:
			carried, ok, err := s.carry.open(ctx, v.ID, v.Carried, s.now())
			if err != nil {
				s.cfg.observe(UpdateUnavailable)
				return State{}, err
			}
			if ok {
				return s.resume(ctx, v, addClamped(carried, n), n)
			}
		}
	}
	return s.freshObserved(ctx, int64(s.cfg.InitialPostsStart)+int64(n))
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
	if !s.budget.take(!v.issued) {
		carry, err := s.carry.seal(ctx, id, count, s.now())
		if err != nil {
			s.cfg.observe(UpdateUnavailable)
			return State{}, err
		}
		s.cfg.observe(UpdateDeferred)
		return State{ID: id, PostsStart: clampInt(count), Carry: carry, New: v.issued}, nil
	}
	err := s.b.create(ctx, id, s.newValue(count))
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
			return State{}, fmt.Errorf("session %s: stored meanwhile: %w", truncateID(id), err)
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
		return s.create(ctx, postsStart)
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
	if !exists {
		carried, ok, err := s.carry.open(ctx, v.ID, v.Carried, s.now())
		if err != nil {
			return State{}, err
		}
		if ok {
			return State{ID: v.ID, PostsStart: clampInt(carried), Carry: v.Carried}, nil
		}
		return none, nil
	}
	v2, ok, err := s.postsStartOf(ctx, v.ID, cur)
	if errors.Is(err, errUnreadable) {
		// Visit would log this and issue a new id; a read-only request
		// leaves both to the next GET.
		return none, nil
	}
	if err != nil {
		return State{}, err
	}
	if !ok {
		v2 = int64(s.cfg.InitialPostsStart)
	}
	return State{ID: v.ID, PostsStart: clampInt(v2)}, nil
}
