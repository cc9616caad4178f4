// Package session keeps the visitor's posts_start counter in PHP's session,
// stored the way phpredis stores it, so the Go server and PHP pages of the
// same site share one session under the PHPSESSID cookie.
//
// A Store reads and writes whole session values in PHP's serialized form
// (see Decode and Data.Encode). It always behaves like PHP with
// session.use_strict_mode=1: an id the store does not know is never
// adopted, a fresh one is issued instead.
package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"
)

// postsStartKey is the $_SESSION entry the PHP script keeps its counter in.
const postsStartKey = "posts_start"

// Config says how sessions are kept. Every field is required (LockRetries
// and the lock fields only with Locking; Updates never): the server's
// configuration owns the defaults, which are PHP's, and a Store refuses a zero value rather
// than guess one. KeyPrefix, Format and MaxLifetime must match the PHP
// site's session.save_path prefix, session.serialize_handler and
// session.gc_maxlifetime for the two to share sessions.
type Config struct {
	KeyPrefix         string        // phpredis's prefix; it uses "PHPREDIS_SESSION:"
	Format            Format        // session.serialize_handler; PHP's default is FormatPHP
	MaxLifetime       time.Duration // session.gc_maxlifetime, 1440s in PHP; at least a second
	InitialPostsStart int           // posts_start of a new session; the PHP script's is 2
	Locking           bool          // honour phpredis's session lock (redis.session.locking_enabled); Redis only
	LockExpire        time.Duration // redis.session.lock_expire; phpredis falls back to max_execution_time, 30s
	LockRetries       int           // redis.session.lock_retries, 100 in phpredis; 0 tries once, -1 waits until the context ends
	LockWait          time.Duration // redis.session.lock_wait_time, 20ms in phpredis
	OpTimeout         time.Duration // deadline of each Redis command
	MaxSessions       int           // memory store only (NewMemory): most sessions kept; least recently written dropped first

	// Updates, optional, hears how each update goes, for metrics.
	Updates UpdateObserver
}

// validate returns an error naming the first field that is wrong.
func (c Config) validate() error {
	switch {
	case c.KeyPrefix == "":
		return errors.New("session: config: KeyPrefix is empty")
	case c.Format != FormatPHP && c.Format != FormatPHPSerialize:
		return fmt.Errorf("session: config: Format %d is not a PHP serializer", c.Format)
	case c.MaxLifetime < time.Second:
		return fmt.Errorf("session: config: MaxLifetime %v is under one second", c.MaxLifetime)
	case c.InitialPostsStart < 1:
		return fmt.Errorf("session: config: InitialPostsStart %d is not positive", c.InitialPostsStart)
	case c.OpTimeout <= 0:
		return fmt.Errorf("session: config: OpTimeout %v is not positive", c.OpTimeout)
	case !c.Locking:
		return nil
	case c.LockExpire <= 0:
		return fmt.Errorf("session: config: LockExpire %v is not positive", c.LockExpire)
	case c.LockWait <= 0:
		return fmt.Errorf("session: config: LockWait %v is not positive", c.LockWait)
	case c.LockRetries < -1:
		return fmt.Errorf("session: config: LockRetries %d is under -1", c.LockRetries)
	}
	return nil
}

// State is what a request learns about its visitor's session.
type State struct {
	ID         string // the session id to send back (may differ from the cookie's: strict mode)
	PostsStart int
	New        bool // a new id was issued; the server must set the cookie
}

// ErrUnavailable is wrapped by every error caused by the session store
// itself (Redis down, timed out, or a session lock that could not be taken):
// the visitor did nothing wrong and may retry.
var ErrUnavailable = errors.New("session: store unavailable")

// ErrLocked is wrapped (together with ErrUnavailable) when a session stays
// locked by another request (a PHP page with redis.session.locking_enabled)
// for all of Config.LockRetries attempts.
var ErrLocked = errors.New("session: session locked by another request")

// errNoSession and errUnreadable make update leave the stored value alone
// and tell the Store to issue a fresh id.
var (
	errNoSession  = errors.New("session: no such session")
	errUnreadable = errors.New("session: unreadable session value")
	errTaken      = errors.New("session: new id already in use")
)

// backend keeps encoded session values under ids. The Redis and the memory
// store both implement it, so the PHP-format logic below is shared.
type backend interface {
	// update reads the value of id (exists false when there is none), hands
	// it to fn and stores what fn returns with the configured expiry, as
	// one atomic step with respect to other updates. fn may run more than
	// once. When fn returns an error nothing is written and update returns
	// that error.
	update(ctx context.Context, id string, fn func(cur []byte, exists bool) ([]byte, error)) error
	// create stores value under id, which was just generated (so no other
	// request knows it and no lock is needed), with the configured expiry,
	// unless id exists: then it writes nothing and returns errTaken.
	create(ctx context.Context, id string, value []byte) error
	// read returns the value of id (exists false when there is none) and
	// writes nothing: no expiry refresh, no lock, no session created.
	read(ctx context.Context, id string) (value []byte, exists bool, err error)
	ping(ctx context.Context) error
	close() error
}

// scripter is a backend that can add to posts_start inside the store
// itself, in one round trip (Redis: update.lua). It returns errNoSession
// for a missing session and errFallback when the value needs the Go codec.
type scripter interface {
	addScripted(ctx context.Context, id string, n int) (int64, error)
}

// Store keeps sessions in Redis (OpenRedis) or in memory (NewMemory).
// It is safe for concurrent use.
type Store struct {
	cfg    Config
	logger *slog.Logger
	b      backend
}

func newStore(cfg Config, logger *slog.Logger, b backend) *Store {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Store{cfg: cfg, logger: logger, b: b}
}

// PostsStart answers a page visit. When id names a stored, readable
// session, it returns that session's posts_start (writing
// InitialPostsStart when the session has none) and refreshes its expiry.
// Otherwise (empty, malformed, unknown, expired, unreadable or compressed)
// it issues a fresh id, saves a session holding InitialPostsStart under it,
// and returns State.New. Errors wrap ErrUnavailable.
func (s *Store) PostsStart(ctx context.Context, id string) (State, error) {
	return s.add(ctx, id, 0)
}

// AddPostsStart records that a JSON answer showed n more posts: it adds n
// to the session's posts_start atomically, so concurrent requests of one
// visitor never lose an increment. An id that names no readable session
// gets a fresh session starting at InitialPostsStart+n, as PostsStart
// would. Errors wrap ErrUnavailable, except for a negative n.
func (s *Store) AddPostsStart(ctx context.Context, id string, n int) (State, error) {
	if n < 0 {
		return State{}, fmt.Errorf("session: negative posts_start increment %d", n)
	}
	return s.add(ctx, id, n)
}

// PeekPostsStart answers a request that must change nothing, such as
// HEAD: the posts_start PostsStart would return, without creating,
// refreshing or writing any session (with Redis: one GET, no script, no
// lock). When id names a stored, readable session it returns State{ID: id}
// with that session's posts_start (InitialPostsStart when it has none).
// Otherwise it returns InitialPostsStart with an empty ID and New false:
// the fresh id PostsStart would issue is not issued, so there is no cookie
// to send. Errors wrap ErrUnavailable.
func (s *Store) PeekPostsStart(ctx context.Context, id string) (State, error) {
	none := State{PostsStart: s.cfg.InitialPostsStart}
	if !ValidID(id) {
		return none, nil
	}
	cur, exists, err := s.b.read(ctx, id)
	if err != nil {
		if errors.Is(err, errUnreadable) {
			return none, nil
		}
		return State{}, err
	}
	if !exists {
		return none, nil
	}
	d, err := Decode(s.cfg.Format, cur)
	if err != nil {
		// PostsStart would log this and issue a new id; a read-only
		// request leaves both to the next GET.
		return none, nil
	}
	v, ok := d.Int(postsStartKey)
	if !ok {
		v = int64(s.cfg.InitialPostsStart)
	}
	return State{ID: id, PostsStart: clampInt(v)}, nil
}

// Ping checks that the store answers. Errors wrap ErrUnavailable.
func (s *Store) Ping(ctx context.Context) error {
	return s.b.ping(ctx)
}

// Close releases the store's connections. It returns the pool's error, if
// any.
func (s *Store) Close() error {
	return s.b.close()
}

func (s *Store) add(ctx context.Context, id string, n int) (State, error) {
	if ValidID(id) {
		got, err := s.addExisting(ctx, id, n)
		switch {
		case err == nil:
			s.cfg.observe(UpdateApplied)
			return State{ID: id, PostsStart: clampInt(got)}, nil
		case errors.Is(err, errUnreadable):
			s.logger.WarnContext(ctx, "session value unreadable (malformed or compressed); issuing a new id and leaving it untouched",
				slog.String("session_id", truncateID(id)), slog.Any("error", err))
		case !errors.Is(err, errNoSession):
			if errors.Is(err, ErrUnavailable) {
				s.cfg.observe(UpdateUnavailable)
			}
			return State{}, err
		}
	}
	st, err := s.create(ctx, int64(s.cfg.InitialPostsStart)+int64(n))
	switch {
	case err == nil:
		s.cfg.observe(UpdateCreated)
	case errors.Is(err, ErrUnavailable):
		s.cfg.observe(UpdateUnavailable)
	}
	return st, err
}

// addExisting adds n to posts_start of the stored session id and returns
// the new value: in one round trip when the backend can (scripter), else,
// and whenever the script leaves the value to the Go codec, through
// update. It returns errNoSession, errUnreadable, or the backend's error.
func (s *Store) addExisting(ctx context.Context, id string, n int) (int64, error) {
	if sb, ok := s.b.(scripter); ok {
		got, err := sb.addScripted(ctx, id, n)
		if !errors.Is(err, errFallback) {
			return got, err
		}
		s.cfg.observe(UpdateFallback)
	}
	return s.addCodec(ctx, id, n)
}

// addCodec is addExisting through the Go codec, on the backend's checked
// update path.
func (s *Store) addCodec(ctx context.Context, id string, n int) (int64, error) {
	var got int64
	err := s.b.update(ctx, id, func(cur []byte, exists bool) ([]byte, error) {
		if !exists {
			return nil, errNoSession
		}
		next, v, err := codecAdd(s.cfg, cur, n)
		got = v
		return next, err
	})
	return got, err
}

// codecAdd is the read-increment-write of posts_start on a stored value
// cur, Decode → Int/SetInt → Encode: what update.lua must match byte for
// byte. It returns the value to store and the new posts_start, or an error
// wrapping errUnreadable.
func codecAdd(cfg Config, cur []byte, n int) ([]byte, int64, error) {
	d, err := Decode(cfg.Format, cur)
	if err != nil {
		// The codec's errors name an offset and a byte type, never
		// session contents, so they may be logged.
		return nil, 0, fmt.Errorf("%w: %w", errUnreadable, err)
	}
	v, ok := d.Int(postsStartKey)
	if ok && n == 0 {
		// Nothing changes: write the stored bytes back untouched, which
		// only refreshes the expiry as PHP's EXPIRE would.
		return cur, v, nil
	}
	if !ok {
		v = int64(cfg.InitialPostsStart)
	}
	got := addClamped(v, n)
	d.SetInt(postsStartKey, got)
	return d.Encode(), got, nil
}

// create saves a new session holding posts_start under a fresh id.
func (s *Store) create(ctx context.Context, postsStart int64) (State, error) {
	d := NewData(s.cfg.Format)
	d.SetInt(postsStartKey, postsStart)
	value := d.Encode()
	// A 128-bit random id never collides in practice; the loop only makes
	// sure we would never write over somebody else's session if it did.
	for range 3 {
		id, err := NewID()
		if err != nil {
			return State{}, err
		}
		err = s.b.create(ctx, id, value)
		if errors.Is(err, errTaken) {
			continue
		}
		if err != nil {
			return State{}, err
		}
		return State{ID: id, PostsStart: clampInt(postsStart), New: true}, nil
	}
	return State{}, fmt.Errorf("%w: could not find an unused session id", ErrUnavailable)
}

// truncateID keeps enough of a session id to correlate log lines but not
// enough to hijack the session.
func truncateID(id string) string {
	if len(id) <= 8 {
		return id
	}
	return id[:8] + "…"
}

// addClamped adds without wrapping around: a counter PHP stored near the
// int64 limit must not turn negative.
func addClamped(v int64, n int) int64 {
	if v > math.MaxInt64-int64(n) {
		return math.MaxInt64
	}
	return v + int64(n)
}

// clampInt fits a stored counter into an int on 32-bit platforms too.
func clampInt(v int64) int {
	switch {
	case v > math.MaxInt:
		return math.MaxInt
	case v < math.MinInt:
		return math.MinInt
	}
	return int(v)
}
