package session

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/mna/redisc"
)

// Feed reads a pub/sub channel and a counter key on the Redis that keeps
// the sessions, reached as the store reaches it: the one at the URL, the
// master Sentinel names, or any node of a Cluster (Redis broadcasts a
// PUBLISH to every node, and sends the counter's GET to its key's node).
// It is what the server's change events arrive on (see docs/push.md).
type Feed struct {
	// dial opens the connection a subscription holds.
	dial func(ctx context.Context) (redis.Conn, error)
	// do runs one command that names key, on key's node.
	do    func(ctx context.Context, key, cmd string, args ...any) (any, error)
	close func() error
}

// feedPing is how often a subscription PINGs: a Redis that vanished
// without closing the connection is found within twice this.
const feedPing = time.Second

// OpenFeed returns the Feed of the Redis at rawURL, in OpenRedis's forms,
// with timeout for each command; it connects only when used. It returns
// an error for a malformed URL.
func OpenFeed(rawURL string, timeout time.Duration) (*Feed, error) {
	if IsClusterURL(rawURL) {
		return openClusterFeed(rawURL, timeout)
	}
	u, _, err := checkRedisURL(rawURL)
	if err != nil {
		return nil, err
	}
	conns := directConns(rawURL, timeout)
	if u.Scheme == sentinelScheme {
		conns = sentinelConns(u, timeout)
	}
	pool := newRedisPool(conns)
	return &Feed{
		dial: conns.dial,
		do: func(ctx context.Context, _, cmd string, args ...any) (any, error) {
			c, err := pool.GetContext(ctx)
			if err != nil {
				return nil, err
			}
			defer c.Close()
			return redis.DoContext(c, ctx, cmd, args...)
		},
		close: func() error { return errors.Join(pool.Close(), conns.close()) },
	}, nil
}

// openClusterFeed is OpenFeed for the cluster form: subscriptions go to a
// seed picked at random, so a dead one is passed over on the next try.
func openClusterFeed(rawURL string, timeout time.Duration) (*Feed, error) {
	cu, err := parseClusterURL(rawURL)
	if err != nil {
		return nil, err
	}
	opts := cu.dialOptions(timeout)
	c := &redisc.Cluster{StartupNodes: cu.seeds, DialOptions: opts, CreatePool: nodePool, PoolWaitTime: timeout}
	return &Feed{
		dial: func(ctx context.Context) (redis.Conn, error) {
			seed := cu.seeds[rand.IntN(len(cu.seeds))]
			return redis.DialContext(ctx, "tcp", seed, opts...)
		},
		do: func(ctx context.Context, key, cmd string, args ...any) (any, error) {
			conn := c.Get()
			defer conn.Close()
			if err := redisc.BindConn(conn, key); err != nil {
				return nil, err
			}
			retry, err := redisc.RetryConn(conn, 3, 20*time.Millisecond)
			if err != nil {
				return nil, err
			}
			return redis.DoContext(retry, ctx, cmd, args...)
		},
		close: c.Close,
	}, nil
}

// Counter returns the integer at key, and false when there is none.
func (f *Feed) Counter(ctx context.Context, key string) (int64, bool, error) {
	n, err := redis.Int64(f.do(ctx, key, "GET", key))
	if errors.Is(err, redis.ErrNil) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("session: feed: GET %s: %w", key, err)
	}
	return n, true, nil
}

// Listen subscribes to channel and calls subscribed once Redis confirmed
// it, then message with each message's payload, in order, on the calling
// goroutine, until ctx ends or the connection fails. It always returns an
// error: ctx's, or why the subscription ended.
func (f *Feed) Listen(ctx context.Context, channel string, subscribed func(), message func([]byte)) error {
	conn, err := f.dial(ctx)
	if err != nil {
		return fmt.Errorf("session: feed: dial: %w", err)
	}
	psc := redis.PubSubConn{Conn: conn}
	defer psc.Close()
	// Closing the connection is what ends a receive blocked on it.
	stop := context.AfterFunc(ctx, func() { psc.Close() })
	defer stop()
	if err := psc.Subscribe(channel); err != nil {
		return fmt.Errorf("session: feed: SUBSCRIBE: %w", err)
	}
	// A PING a second, from beside the receive (redigo allows one sender
	// and one receiver at once), keeps replies coming: a receive that
	// waits three seconds for one has lost its Redis.
	done := make(chan struct{})
	defer close(done)
	go func() {
		tick := time.NewTicker(feedPing)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if psc.Ping("") != nil {
					return
				}
			}
		}
	}()
	for {
		switch v := psc.ReceiveWithTimeout(3 * feedPing).(type) {
		case redis.Message:
			message(v.Data)
		case redis.Subscription:
			if v.Kind == "subscribe" {
				subscribed()
			}
		case error:
			return feedEnd(ctx, v)
		}
	}
}

// feedEnd is Listen's error: ctx's cause once it ended, else err.
func feedEnd(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return fmt.Errorf("session: feed: %w", err)
}

// Close releases the Feed's connections; a Listen in progress ends when
// its ctx does.
func (f *Feed) Close() error { return f.close() }
