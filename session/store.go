// Package session keeps the visitor's posts_start counter in PHP's session,
// stored the way phpredis stores it, so the Go server and PHP pages of the
// same site share one session under the PHPSESSID cookie.
//
// A Store reads and writes whole session values in PHP's serialized form
// (see Decode and Data.Encode). It always behaves like PHP with
// session.use_strict_mode=1: an id the store does not know is never
// adopted, a fresh one is issued instead; the one exception is an id this
// server issued without storing it, past its creation budget, whose
// visitor comes back with the companion cookie sealed for it (see Visit).
package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync/atomic"
	"time"
)

// postsStartKey is the $_SESSION entry the PHP script keeps its counter in.
const postsStartKey = "posts_start"

// PHP's and phpredis's defaults, which a site that shares its sessions
// with this server most likely keeps: session.name, session.gc_maxlifetime,
// redis.session.lock_expire (max_execution_time), lock_retries and
// lock_wait_time. DefaultInitialPostsStart is the PHP script's first
// posts_start; DefaultOpTimeout is our own deadline for one Redis command.
const (
	DefaultCookieName        = "PHPSESSID"
	DefaultMaxLifetime       = 1440 * time.Second
	DefaultLockExpire        = 30 * time.Second
	DefaultLockRetries       = 100
	DefaultLockWait          = 20 * time.Millisecond
	DefaultInitialPostsStart = 2
	DefaultOpTimeout         = 2 * time.Second
)

// Config says how sessions are kept. Every field is required (LockRetries
// and the lock fields only with Locking; Updates never): a Store refuses a
// zero value rather than guess one, and the caller takes PHP's from the
// Default constants and DefaultKeyPrefix. KeyPrefix, Format and
// MaxLifetime must match the PHP site's session.save_path prefix,
// session.serialize_handler and session.gc_maxlifetime for the two to
// share sessions.
type Config struct {
	KeyPrefix         string        // phpredis's prefix: RedisKeyPrefix, or ClusterKeyPrefix for a cluster
	Format            Format        // session.serialize_handler; PHP's default is FormatPHP
	MaxLifetime       time.Duration // session.gc_maxlifetime (DefaultMaxLifetime); at least a second
	InitialPostsStart int           // posts_start of a new session (DefaultInitialPostsStart)
	Locking           bool          // honour phpredis's session lock (redis.session.locking_enabled); single Redis only
	LockExpire        time.Duration // redis.session.lock_expire (DefaultLockExpire: phpredis falls back to max_execution_time)
	LockRetries       int           // redis.session.lock_retries (DefaultLockRetries); 0 tries once, -1 waits until the context ends
	LockWait          time.Duration // redis.session.lock_wait_time (DefaultLockWait)
	OpTimeout         time.Duration // deadline of each Redis command (DefaultOpTimeout)
	MaxSessions       int           // memory store only (NewMemory): most sessions kept; least recently written dropped first
	// NewSessionBytes bounds the store memory that the sessions this
	// Store creates may take over one MaxLifetime, used again or not
	// (DefaultNewSessionBytes; 0: no bound). Past it a new session is not
	// stored but carried by its visitor in the companion cookie (see
	// Visit).
	NewSessionBytes int64

	// Updates, optional, hears how each update goes, for metrics.
	Updates UpdateObserver
}

// Validate returns an error naming the first field that is wrong, a
// *ConfigError. OpenRedis and NewMemory call it; a caller may call it first
// to fail before any I/O.
func (c Config) Validate() error {
	switch {
	case c.KeyPrefix == "":
		return &ConfigError{Field: "KeyPrefix", Reason: "is empty"}
	case c.Format != FormatPHP && c.Format != FormatPHPSerialize:
		return &ConfigError{Field: "Format", Reason: fmt.Sprintf("%d is not a PHP serializer", c.Format)}
	case c.MaxLifetime < time.Second:
		return &ConfigError{Field: "MaxLifetime", Reason: fmt.Sprintf("%v is under one second", c.MaxLifetime)}
	case c.InitialPostsStart < 1:
		return &ConfigError{Field: "InitialPostsStart", Reason: fmt.Sprintf("%d is not positive", c.InitialPostsStart)}
	case c.OpTimeout <= 0:
		return &ConfigError{Field: "OpTimeout", Reason: fmt.Sprintf("%v is not positive", c.OpTimeout)}
	case c.NewSessionBytes < 0:
		return &ConfigError{Field: "NewSessionBytes", Reason: fmt.Sprintf("%d is negative", c.NewSessionBytes)}
	case c.NewSessionBytes > 0 && c.NewSessionBytes < minBudgetSessions*newSessionBytes(c):
		return &ConfigError{Field: "NewSessionBytes", Reason: fmt.Sprintf("%d is under %d sessions of %d bytes", c.NewSessionBytes, minBudgetSessions, newSessionBytes(c))}
	case !c.Locking:
		return nil
	case c.LockExpire <= 0:
		return &ConfigError{Field: "LockExpire", Reason: fmt.Sprintf("%v is not positive", c.LockExpire)}
	case c.LockWait <= 0:
		return &ConfigError{Field: "LockWait", Reason: fmt.Sprintf("%v is not positive", c.LockWait)}
	case c.LockRetries < -1:
		return &ConfigError{Field: "LockRetries", Reason: fmt.Sprintf("%d is under -1", c.LockRetries)}
	}
	return nil
}

// ConfigError is a Config that a Store refuses because of one field's
// value. Field is the field's name as Config spells it, so that a caller
// can name its own setting for it; Reason says what is wrong with the value.
type ConfigError struct {
	Field  string // e.g. "MaxLifetime"
	Reason string // e.g. "10ms is under one second"
}

func (e *ConfigError) Error() string { return "session: config: " + e.Field + " " + e.Reason }

// State is what a request learns about its visitor's session.
type State struct {
	ID         string // the session id to send back (may differ from the cookie's: strict mode)
	PostsStart int
	New        bool // a new id was issued; the server must set the cookie
	// Carry, when not "", is the companion cookie's value to send: the
	// session is not stored (the creation budget is spent, or Redis is
	// full), or Redis had no room for its update, and its posts_start
	// travels with the visitor until it is. "" means the session is
	// stored, and a companion the visitor sent is spent.
	Carry string
}

// Visitor is the Visitor a request that follows this answer brings: the id
// and the companion sent back.
func (st State) Visitor() Visitor { return Visitor{ID: st.ID, Carried: st.Carry} }

// InRequest is the Visitor of a second Visit in the same request (a page's
// ?posts=N raise): a new one's visitor has not come back yet, and so takes
// no returning visitor's place in the creation budget.
func (st State) InRequest() Visitor {
	v := st.Visitor()
	v.issued = st.New
	return v
}

// ErrUnavailable is wrapped by every error caused by the session store
// itself (Redis down, timed out, or a session lock that could not be taken):
// the visitor did nothing wrong and may retry. Like ErrFull and ErrLocked
// it is always wrapped in an error that names the package, so its text
// does not.
var ErrUnavailable = errors.New("store unavailable")

// ErrFull is wrapped (together with ErrUnavailable) when Redis refuses a
// write for want of memory (maxmemory reached with noeviction). Visit
// answers such visitors itself, their counts carried in the companion
// cookie; Ping returns it while Redis stays full.
var ErrFull = errors.New("store out of memory")

// ErrLocked is wrapped (together with ErrUnavailable) when a session stays
// locked by another request (a PHP page with redis.session.locking_enabled)
// for all of Config.LockRetries attempts.
var ErrLocked = errors.New("session locked by another request")

// errNoSession and errUnreadable make update leave the stored value alone
// and tell the Store to issue a fresh id.
var (
	errNoSession  = errors.New("session: no such session")
	errUnreadable = errors.New("session: unreadable session value")
	errTaken      = errors.New("session: new id already in use")
)

// backend keeps encoded session values under ids. The memory store
// (memoryBackend), a single Redis (redisBackend, Sentinel's master
// included) and a Redis Cluster (clusterBackend) implement it, so the
// PHP-format logic below is shared.
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
// for a missing session and errFallback when the value needs the Go codec,
// errLargeValue when it is too large to edit there: addLarge then updates
// it, and peekLarge reads such a value's posts_start.
type scripter interface {
	addScripted(ctx context.Context, id string, n int) (int64, error)
	addLarge(ctx context.Context, id string, n int) (int64, error)
	peekLarge(ctx context.Context, id string, cur []byte) (int64, bool, error)
}

// Store keeps sessions in Redis (OpenRedis) or in memory (NewMemory).
// It is safe for concurrent use.
type Store struct {
	cfg    Config
	logger *slog.Logger
	b      backend
	budget *budget // nil: no bound
	carry  *carrySealer
	now    func() time.Time
	// full is set when Redis refused a write for want of memory, and
	// cleared when Ping finds room again.
	outOfRoom atomic.Bool
}

// newStore is the Store over b, on the clock now.
func newStore(cfg Config, logger *slog.Logger, b backend, now func() time.Time) *Store {
	bucket := newBudget(cfg, now)
	if k, ok := b.(budgetKeeper); ok {
		bucket.keepIn(k, orDiscard(logger), cfg.OpTimeout)
	}
	return &Store{
		cfg:    cfg,
		logger: orDiscard(logger),
		b:      b,
		budget: bucket,
		carry:  newCarrySealer(cfg.MaxLifetime, cfg.OpTimeout, b),
		now:    now,
	}
}

// orDiscard is logger, or one that discards everything when it is nil: the
// constructors take nil for a store that logs nothing.
func orDiscard(logger *slog.Logger) *slog.Logger {
	if logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return logger
}

// Ping checks that the store answers. Errors wrap ErrUnavailable; once a
// write was refused for want of memory, they wrap ErrFull too until Redis
// takes a write again (a small key that expires at once), though the
// store still answers every Visit.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.b.ping(ctx); err != nil {
		return err
	}
	if !s.outOfRoom.Load() {
		return nil
	}
	if p, ok := s.b.(roomProber); ok {
		if err := p.probeRoom(ctx); err != nil {
			return err
		}
	}
	s.outOfRoom.Store(false)
	return nil
}

// roomProber is a backend that can tell whether it has room for a write:
// the Redis stores.
type roomProber interface {
	probeRoom(ctx context.Context) error
}

// Close releases the store's connections. It returns the pool's error, if
// any.
func (s *Store) Close() error {
	return s.b.close()
}

// addExisting adds n to posts_start of the stored session id and returns
// the new value: in one round trip when the backend can (scripter), else,
// and whenever the script leaves the value to the Go codec, through
// update. It returns errNoSession, errUnreadable, or the backend's error.
func (s *Store) addExisting(ctx context.Context, id string, n int) (int64, error) {
	if sb, ok := s.b.(scripter); ok {
		got, err := sb.addScripted(ctx, id, n)
		if errors.Is(err, errLargeValue) {
			got, err = sb.addLarge(ctx, id, n)
		}
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
	next, got := codecAddData(cfg, d, cur, n)
	return next, got, nil
}

// codecAddData is codecAdd on cur, decoded as d, which it leaves holding
// the value it returns.
func codecAddData(cfg Config, d *Data, cur []byte, n int) ([]byte, int64) {
	v, ok := d.Int(postsStartKey)
	if ok && n == 0 {
		// Nothing changes: write the stored bytes back untouched, which
		// only refreshes the expiry as PHP's EXPIRE would.
		return cur, v
	}
	if !ok {
		v = int64(cfg.InitialPostsStart)
	}
	got := addClamped(v, n)
	d.SetInt(postsStartKey, got)
	return d.Encode(), got
}

// create saves a new session holding posts_start under a fresh id.
func (s *Store) create(ctx context.Context, postsStart int64) (State, error) {
	value := s.newValue(postsStart)
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

// newValue is a new session's value: posts_start alone.
func (s *Store) newValue(postsStart int64) []byte {
	d := NewData(s.cfg.Format)
	d.SetInt(postsStartKey, postsStart)
	return d.Encode()
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
