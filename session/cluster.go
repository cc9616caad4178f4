package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/mna/redisc"
)

// Redis Cluster sessions, shared with phpredis's rediscluster session
// handler (session.save_handler = rediscluster). Slot routing, MOVED/ASK
// and the slot map are redisc's (a cluster client on redigo); this file
// only maps phpredis's save_path onto it and routes each session command
// to its key's node.
//
// Locking. phpredis's cluster handler takes no session lock: in 5.3.7 (the
// version Debian's php-redis ships here, `php --ri redis`) and in 6.x,
// redis_session.c calls lock_acquire only from the single-node handler
// (PS_READ_FUNC(redis)); PS_READ_FUNC(rediscluster) is a plain GET and
// PS_WRITE_FUNC(rediscluster) a plain SETEX, whatever
// redis.session.locking_enabled says. There is no lock key to honour, and
// <key>_LOCK would hash to another slot than <key>, so update.lua, which
// reads both, would fail with CROSSSLOT. So in cluster mode the store
// refuses Config.Locking, and update.lua gets the session key alone: the
// script's atomicity on the key's node is what protects our own
// concurrent increments, and PHP pages, which do not lock, overwrite the
// session at their end exactly as they do between PHP requests.

// Cluster commands that may be redirected are tried this often (a MOVED
// after a failover, then an ASK during a slot migration, then the
// command), TRYAGAIN (a multi-key command during a migration) this far
// apart.
const (
	clusterAttempts      = 4
	clusterTryAgainDelay = 20 * time.Millisecond
	// clusterRefreshEvery spaces the slot map refreshes asked for after
	// network errors.
	clusterRefreshEvery = 200 * time.Millisecond
)

// openCluster is OpenRedis for the cluster form.
func openCluster(ctx context.Context, rawURL string, cfg Config, logger *slog.Logger) (*Store, error) {
	cu, err := parseClusterURL(rawURL)
	if err != nil {
		return nil, err
	}
	if cu.prefix != "" && cu.prefix != cfg.KeyPrefix {
		return nil, fmt.Errorf("session: redis cluster URL %s: prefix=%q contradicts the key prefix %q", cu.safe, cu.prefix, cfg.KeyPrefix)
	}
	if cfg.Locking {
		return nil, errors.New("session: redis cluster: phpredis's cluster session handler takes no lock, so there is none to honour; turn session locking off")
	}
	opts := []redis.DialOption{
		redis.DialConnectTimeout(cmp.Or(cu.connectTimeout, cfg.OpTimeout)),
		redis.DialReadTimeout(cmp.Or(cu.readTimeout, cfg.OpTimeout)),
		redis.DialWriteTimeout(cmp.Or(cu.readTimeout, cfg.OpTimeout)),
		redis.DialUseTLS(cu.tls),
	}
	if cu.user != "" {
		opts = append(opts, redis.DialUsername(cu.user))
	}
	if cu.password != "" {
		opts = append(opts, redis.DialPassword(cu.password))
	}
	b := &redisBackend{
		cfg:         cfg,
		lockOwner:   lockOwner(),
		releaseLock: redis.NewScript(1, releaseLockScript),
		updateLua:   redis.NewScript(-1, updateScript),
	}
	s := newStore(cfg, logger, b)
	b.logger = s.logger
	n := &clusterNodes{readReplicas: cu.readReplicas, logger: s.logger}
	n.c = &redisc.Cluster{
		StartupNodes: cu.seeds,
		DialOptions:  opts,
		CreatePool:   nodePool,
		PoolWaitTime: cfg.OpTimeout,
		BgError: func(src redisc.BgErrorSrc, err error) {
			if src == redisc.ClusterRefresh {
				n.logger.Warn("redis cluster: slot map refresh failed", slog.Any("error", err))
			}
		},
	}
	b.cluster = n
	fail := func(err error) (*Store, error) {
		n.c.Close()
		return nil, fmt.Errorf("session: open redis cluster %s: %w", cu.safe, err)
	}
	if err := n.c.Refresh(); err != nil {
		return fail(unavailable("CLUSTER SLOTS", err))
	}
	if err := n.ping(ctx); err != nil {
		return fail(err)
	}
	if err := n.loadScripts(ctx); err != nil {
		return fail(err)
	}
	return s, nil
}

// nodePool is the pool of one cluster node, sized and tested as the
// single Redis's pool (see redisMaxActive).
func nodePool(addr string, opts ...redis.DialOption) (*redis.Pool, error) {
	return newRedisPool(redisConns{
		dial: func(ctx context.Context) (redis.Conn, error) {
			return redis.DialContext(ctx, "tcp", addr, opts...)
		},
		check: pingConn,
	}), nil
}

// clusterNodes stands in for the pool and the pipeline in cluster mode.
//
// It does not batch: each one-command update (SET NX, EVALSHA) borrows a
// connection to its key's node. The pipeline batches on a few connections
// to one Redis; in a cluster a batch would have to be split by node, and
// a MOVED in the middle of one would fail the whole batch. Measured
// (BenchmarkAddPostsStartParallel, 32 goroutines, a 2-core machine
// shared with other work, so only indicative): 50µs per increment on a
// three-master cluster without batching against 91µs on one Redis with
// it in one run, 41µs against 28µs in another. Either way batching would
// save at most tens of µs per request on a deployment whose cluster
// spreads the work over several machines, not worth a batch that a
// failover can fail whole.
type clusterNodes struct {
	c            *redisc.Cluster
	readReplicas bool
	logger       *slog.Logger
	lastRefresh  atomic.Int64 // UnixNano of the last refresh asked for
}

// keyConn returns a connection bound to the node serving key's slot.
//
// A read-only one (the GET of a read) serves single Do calls: it follows
// MOVED and ASK (redisc.RetryConn), and goes to a replica when failover=
// allows. The other (the WATCH path) is the bound connection itself, as
// WATCH … EXEC must stay on one connection: a MOVED there (the slot moved
// since the last refresh) fails that request, and redisc refreshes its
// slot map for the next.
func (n *clusterNodes) keyConn(key string, readOnly bool) (redis.Conn, error) {
	c := n.c.Get()
	if readOnly && n.readReplicas {
		if err := redisc.ReadOnlyConn(c); err != nil {
			c.Close()
			return nil, unavailable("READONLY", err)
		}
	}
	if err := redisc.BindConn(c, key); err != nil {
		c.Close()
		n.failed(err)
		return nil, unavailable("connect", err)
	}
	if !readOnly {
		return c, nil
	}
	rc, err := redisc.RetryConn(c, clusterAttempts, clusterTryAgainDelay)
	if err != nil {
		c.Close()
		return nil, unavailable("connect", err)
	}
	return rc, nil
}

// do runs one command about key on key's node, following MOVED and ASK
// (redisc.RetryConn), and returns its reply. Bound before the command,
// because redisc would take EVALSHA's first argument, the script's hash,
// for the key. The read timeout of the node's connections (OpTimeout)
// bounds it: redisc's RetryConn takes no context.
func (n *clusterNodes) do(ctx context.Context, key, cmd string, args ...any) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := n.c.Get()
	defer c.Close()
	if err := redisc.BindConn(c, key); err != nil {
		n.failed(err)
		return nil, err
	}
	rc, err := redisc.RetryConn(c, clusterAttempts, clusterTryAgainDelay)
	if err != nil {
		return nil, err
	}
	reply, err := rc.Do(cmd, args...)
	n.failed(err)
	return reply, err
}

// failed asks redisc to refresh its slot map after a network error. redisc
// refreshes by itself after a MOVED; but when a master dies, its slots'
// commands fail to connect, and nothing would move the map to the replica
// promoted in its place. Throttled, as every request then fails alike.
func (n *clusterNodes) failed(err error) {
	if err == nil {
		return
	}
	if _, isReply := errors.AsType[redis.Error](err); isReply && !strings.HasPrefix(err.Error(), "CLUSTERDOWN") {
		return
	}
	now := time.Now().UnixNano()
	last := n.lastRefresh.Load()
	if now-last < int64(clusterRefreshEvery) || !n.lastRefresh.CompareAndSwap(last, now) {
		return
	}
	go n.c.Refresh() //nolint:errcheck // BgError logs a failed background refresh; this one is retried on the next error
}

// ping checks that a node answers and that the cluster serves every slot:
// CLUSTER INFO says cluster_state:ok. A node that answers while the
// cluster cannot serve some slots (a master down and no replica promoted
// yet) makes ping fail, so /readyz tells the load balancer.
func (n *clusterNodes) ping(ctx context.Context) error {
	// redisc takes "INFO" for a key: the node asked is the master of its
	// slot, or any reachable node while that one is down.
	c := n.c.Get()
	defer c.Close()
	reply, err := doContext(ctx, c, "CLUSTER", "INFO")
	if err != nil {
		n.failed(err)
		return unavailable("CLUSTER INFO", err)
	}
	info, err := redis.String(reply, nil)
	if err == nil {
		err = clusterStateOK(info)
	}
	if err != nil {
		n.failed(err)
		return unavailable("CLUSTER INFO", err)
	}
	return nil
}

// clusterStateOK reads CLUSTER INFO's answer: nil for cluster_state:ok,
// else an error wrapping errClusterDown.
func clusterStateOK(info string) error {
	for line := range strings.Lines(info) {
		if state, ok := strings.CutPrefix(strings.TrimSpace(line), "cluster_state:"); ok {
			if state != "ok" {
				return fmt.Errorf("%w: cluster_state:%s", errClusterDown, state)
			}
			return nil
		}
	}
	return fmt.Errorf("%w: no cluster_state in CLUSTER INFO", errClusterDown)
}

var errClusterDown = errors.New("the cluster does not serve every slot")

// loadScripts loads update.lua and the lock release script on every
// master, so the first EVALSHA finds them. A replica promoted later may
// not know them: EVALSHA answers NOSCRIPT there and runScript sends EVAL.
func (n *clusterNodes) loadScripts(ctx context.Context) error {
	return n.c.EachNode(false, func(addr string, c redis.Conn) error {
		for _, src := range []string{updateScript, releaseLockScript} {
			if _, err := doContext(ctx, c, "SCRIPT", "LOAD", src); err != nil {
				return unavailable("SCRIPT LOAD on "+addr, err)
			}
		}
		return nil
	})
}

func (n *clusterNodes) close() error {
	return n.c.Close()
}

// doContext is redis.DoContext for connections that take a timeout but no
// context, as redisc's do: the time left before ctx's deadline becomes
// the command's read timeout. redisc's RetryConn takes neither: the read
// timeout it was dialled with (OpTimeout) bounds it.
func doContext(ctx context.Context, c redis.Conn, cmd string, args ...any) (any, error) {
	if _, ok := c.(redis.ConnWithContext); ok {
		return redis.DoContext(c, ctx, cmd, args...)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	deadline, ok := ctx.Deadline()
	if cwt, takesTimeout := c.(redis.ConnWithTimeout); ok && takesTimeout {
		return cwt.DoWithTimeout(time.Until(deadline), cmd, args...)
	}
	return c.Do(cmd, args...)
}

// keyConn borrows a connection for commands on key: from the pool, or in
// cluster mode one bound to key's node. readOnly says the commands only
// read (failover= may then send them to a replica).
func (b *redisBackend) keyConn(ctx context.Context, key string, readOnly bool) (redis.Conn, error) {
	if b.cluster != nil {
		return b.cluster.keyConn(key, readOnly)
	}
	return b.conn(ctx)
}

// doKey runs one command about key: in the pipeline's next batch, or in
// cluster mode on key's node.
func (b *redisBackend) doKey(ctx context.Context, key, cmd string, args ...any) (any, error) {
	if b.cluster != nil {
		return b.cluster.do(ctx, key, cmd, args...)
	}
	return b.pipe.do(ctx, cmd, args...)
}
