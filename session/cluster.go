package session

import (
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
		return nil, &ConfigError{Field: "Locking", Reason: "is on, but phpredis's cluster session handler takes no lock, so there is none to honour with a Redis Cluster"}
	}
	b := &clusterBackend{readReplicas: cu.readReplicas}
	b.c = &redisc.Cluster{
		StartupNodes: cu.seeds,
		DialOptions:  cu.dialOptions(cfg.OpTimeout),
		CreatePool:   nodePool,
		PoolWaitTime: cfg.OpTimeout,
		BgError: func(src redisc.BgErrorSrc, err error) {
			if src == redisc.ClusterRefresh {
				logger.Warn("redis cluster: slot map refresh failed", slog.Any("error", err))
			}
		},
	}
	b.redisSessions = newRedisSessions(cfg, logger, b)
	fail := func(err error) (*Store, error) {
		b.close()
		return nil, openError(cu.safe, err)
	}
	if err := b.c.Refresh(); err != nil {
		return fail(unavailable("CLUSTER SLOTS", err))
	}
	if err := b.ping(ctx); err != nil {
		return fail(err)
	}
	if err := b.loadScripts(ctx); err != nil {
		return fail(err)
	}
	return newStore(cfg, logger, b, time.Now), nil
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

// clusterBackend keeps sessions in a Redis Cluster: each command goes to
// its key's node. It is the redisRoute of its redisSessions.
//
// It does not batch as the pipeline does: a batch would have to be split by
// node, and a MOVED in the middle of one would fail it whole, to save a few
// microseconds a request on a cluster that spreads its work over several
// machines anyway.
type clusterBackend struct {
	*redisSessions
	c            *redisc.Cluster
	readReplicas bool
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
func (b *clusterBackend) keyConn(_ context.Context, key string, readOnly bool) (redis.Conn, error) {
	c := b.c.Get()
	if readOnly && b.readReplicas {
		if err := redisc.ReadOnlyConn(c); err != nil {
			c.Close()
			return nil, unavailable("READONLY", err)
		}
	}
	if err := redisc.BindConn(c, key); err != nil {
		c.Close()
		b.failed(err)
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

// batched runs one command about key, alone: a cluster does not batch.
func (b *clusterBackend) batched(ctx context.Context, key, cmd string, args ...any) (any, error) {
	return b.alone(ctx, key, cmd, args...)
}

// alone runs one command about key on key's node, following MOVED and ASK
// (redisc.RetryConn), and returns its reply. Bound before the command,
// because redisc would take EVALSHA's first argument, the script's hash,
// for the key. The read timeout of the node's connections (OpTimeout)
// bounds it: redisc's RetryConn takes no context.
func (b *clusterBackend) alone(ctx context.Context, key, cmd string, args ...any) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := b.c.Get()
	defer c.Close()
	if err := redisc.BindConn(c, key); err != nil {
		b.failed(err)
		return nil, err
	}
	rc, err := redisc.RetryConn(c, clusterAttempts, clusterTryAgainDelay)
	if err != nil {
		return nil, err
	}
	reply, err := rc.Do(cmd, args...)
	b.failed(err)
	return reply, err
}

// failed asks redisc to refresh its slot map after a network error. redisc
// refreshes by itself after a MOVED; but when a master dies, its slots'
// commands fail to connect, and nothing would move the map to the replica
// promoted in its place. Throttled, as every request then fails alike.
func (b *clusterBackend) failed(err error) {
	if err == nil {
		return
	}
	if _, isReply := errors.AsType[redis.Error](err); isReply && !strings.HasPrefix(err.Error(), "CLUSTERDOWN") {
		return
	}
	now := time.Now().UnixNano()
	last := b.lastRefresh.Load()
	if now-last < int64(clusterRefreshEvery) || !b.lastRefresh.CompareAndSwap(last, now) {
		return
	}
	go b.c.Refresh() //nolint:errcheck // BgError logs a failed background refresh; this one is retried on the next error
}

// ping checks that a node answers and that the cluster serves every slot:
// CLUSTER INFO says cluster_state:ok. A node that answers while the
// cluster cannot serve some slots (a master down and no replica promoted
// yet) makes ping fail, so /readyz tells the load balancer.
func (b *clusterBackend) ping(ctx context.Context) error {
	// redisc takes "INFO" for a key: the node asked is the master of its
	// slot, or any reachable node while that one is down.
	c := b.c.Get()
	defer c.Close()
	reply, err := doContext(ctx, c, "CLUSTER", "INFO")
	if err != nil {
		b.failed(err)
		return unavailable("CLUSTER INFO", err)
	}
	info, err := redis.String(reply, nil)
	if err == nil {
		err = clusterStateOK(info)
	}
	if err != nil {
		b.failed(err)
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
func (b *clusterBackend) loadScripts(ctx context.Context) error {
	return b.c.EachNode(false, func(addr string, c redis.Conn) error {
		for _, src := range []string{updateScript, releaseLockScript} {
			if _, err := doContext(ctx, c, "SCRIPT", "LOAD", src); err != nil {
				return unavailable("SCRIPT LOAD on "+addr, err)
			}
		}
		return nil
	})
}

func (b *clusterBackend) close() error {
	return b.c.Close()
}

func (b *clusterBackend) poolStats() PoolStats {
	// One pool per node redisc has reached: the sums are the store's.
	var sum PoolStats
	for _, st := range b.c.Stats() {
		sum.Active += st.ActiveCount
		sum.Idle += st.IdleCount
	}
	return sum
}
