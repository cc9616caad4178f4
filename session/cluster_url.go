package session

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
)

// The key prefixes of phpredis's session handlers when their save_path
// sets no prefix=: RedisKeyPrefix for a single Redis (session.save_handler
// = redis), ClusterKeyPrefix for a cluster (rediscluster).
const (
	RedisKeyPrefix   = "PHPREDIS_SESSION:"
	ClusterKeyPrefix = "PHPREDIS_CLUSTER_SESSION:"
)

// Schemes of the cluster form of the Redis URL.
const (
	clusterScheme    = "redis+cluster"
	clusterTLSScheme = "rediss+cluster"
)

// IsClusterURL reports whether rawURL is the Redis Cluster form,
// redis+cluster:// or rediss+cluster://.
func IsClusterURL(rawURL string) bool {
	scheme, _, ok := strings.Cut(rawURL, "://")
	return ok && (strings.EqualFold(scheme, clusterScheme) || strings.EqualFold(scheme, clusterTLSScheme))
}

// DefaultKeyPrefix is the key prefix phpredis uses for the sessions of
// the Redis at rawURL when its operator sets none: the URL's prefix= for
// the cluster form, else ClusterKeyPrefix for a cluster and
// RedisKeyPrefix for a single Redis.
func DefaultKeyPrefix(rawURL string) string {
	if !IsClusterURL(rawURL) {
		return RedisKeyPrefix
	}
	if cu, err := parseClusterURL(rawURL); err == nil && cu.prefix != "" {
		return cu.prefix
	}
	return ClusterKeyPrefix
}

// clusterURL is what redis+cluster://[user:password@]host:port,host:port/?…
// says, mirroring phpredis's save_path: seed[] (the hosts), timeout,
// read_timeout, auth (the user info), prefix, failover and persistent.
type clusterURL struct {
	seeds          []string
	user, password string
	tls            bool
	prefix         string
	connectTimeout time.Duration // timeout=, 0 for Config.OpTimeout
	readTimeout    time.Duration // read_timeout=, 0 for Config.OpTimeout
	readReplicas   bool          // failover=error or distribute
	safe           string        // the URL without its password, for messages
}

const clusterURLForm = "redis+cluster://[user:password@]host:port,host:port/[?prefix=…&timeout=…&read_timeout=…&failover=…]"

// parseClusterURL reads the cluster form.
func parseClusterURL(rawURL string) (clusterURL, error) {
	u, hosts, err := splitClusterURL(rawURL)
	if err != nil {
		return clusterURL{}, err
	}
	cu := clusterURL{tls: u.Scheme == clusterTLSScheme, safe: redactClusterURL(u)}
	if u.User != nil {
		cu.user = u.User.Username()
		cu.password, _ = u.User.Password()
	}
	if cu.seeds, err = parseSeeds(hosts, cu.safe); err != nil {
		return clusterURL{}, err
	}
	if u.Path != "" && u.Path != "/" {
		// phpredis's cluster handler has no database= either: a cluster
		// has only database 0.
		return clusterURL{}, fmt.Errorf("session: redis cluster URL %s: a cluster has no database %q", cu.safe, u.Path[1:])
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return clusterURL{}, fmt.Errorf("session: redis cluster URL %s: query: %w", cu.safe, err)
	}
	for name, values := range q {
		if err := cu.setParam(name, values[len(values)-1]); err != nil {
			return clusterURL{}, err
		}
	}
	return cu, nil
}

// splitClusterURL parses rawURL with its host list, a comma-separated
// list of host:port, taken off by hand: url.Parse refuses more than one
// bracketed IPv6 address. The URL it returns has the list as its Host.
func splitClusterURL(rawURL string) (_ *url.URL, hosts string, _ error) {
	scheme, rest, _ := strings.Cut(rawURL, "://")
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority := rest[:end]
	at := strings.LastIndex(authority, "@")
	hosts = authority[at+1:]
	u, err := url.Parse(scheme + "://" + authority[:at+1] + "seeds" + rest[end:])
	if err != nil {
		// url.Parse quotes the whole URL, password included.
		return nil, "", errors.New("session: redis cluster URL does not parse; want " + clusterURLForm)
	}
	u.Host = hosts
	return u, hosts, nil
}

// redactClusterURL is u as messages may show it: the password hidden, and
// the value of auth=, which phpredis reads as the password.
func redactClusterURL(u *url.URL) string {
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil || !q.Has("auth") {
		return u.Redacted()
	}
	q.Set("auth", "xxxxx")
	r := *u
	r.RawQuery = q.Encode()
	return r.Redacted()
}

// parseSeeds reads the host list, host:port,host:port…; safe is the URL
// for messages.
func parseSeeds(hosts, safe string) ([]string, error) {
	var seeds []string
	for h := range strings.SplitSeq(hosts, ",") {
		host, port, err := net.SplitHostPort(h)
		if err != nil || host == "" {
			return nil, fmt.Errorf("session: redis cluster URL %s: seed %q is not host:port; want %s", safe, h, clusterURLForm)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("session: redis cluster URL %s: bad port %q", safe, port)
		}
		seeds = append(seeds, net.JoinHostPort(host, port))
	}
	return seeds, nil
}

// setParam reads one parameter of the URL's query, as phpredis reads the
// save_path's.
func (cu *clusterURL) setParam(name, v string) error {
	switch name {
	case "prefix":
		cu.prefix = v
	case "timeout", "read_timeout":
		// phpredis takes seconds, with a fraction.
		secs, err := strconv.ParseFloat(v, 64)
		if err != nil || secs < 0 || secs > 3600 {
			return fmt.Errorf("session: redis cluster URL %s: %s=%q is not a number of seconds", cu.safe, name, v)
		}
		d := time.Duration(secs * float64(time.Second))
		if name == "timeout" {
			cu.connectTimeout = d
		} else {
			cu.readTimeout = d
		}
	case "failover":
		// phpredis reads sessions from replicas with error (replica
		// first) or distribute (master or replica); only our read-only
		// GET (Peek) may, as writes always go to the master.
		// redisc learns replicas from CLUSTER SLOTS, where Redis 7.0
		// lists one only once it has replicated something; until then
		// reads go to the master.
		switch strings.ToLower(v) {
		case "", "none":
		case "error", "distribute":
			cu.readReplicas = true
		default:
			return fmt.Errorf("session: redis cluster URL %s: failover=%q is not none, error or distribute", cu.safe, v)
		}
	case "persistent":
		// Our connections are always pooled and kept.
	default:
		return fmt.Errorf("session: redis cluster URL %s: unknown parameter %q (known: prefix, timeout, read_timeout, failover, persistent; the password goes before @)", cu.safe, name)
	}
	return nil
}

// dialOptions are the options of the connections to every node: the
// URL's timeouts, or opTimeout where it sets none, its TLS and its user
// info.
func (cu clusterURL) dialOptions(opTimeout time.Duration) []redis.DialOption {
	opts := []redis.DialOption{
		redis.DialConnectTimeout(cmp.Or(cu.connectTimeout, opTimeout)),
		redis.DialReadTimeout(cmp.Or(cu.readTimeout, opTimeout)),
		redis.DialWriteTimeout(cmp.Or(cu.readTimeout, opTimeout)),
		redis.DialUseTLS(cu.tls),
	}
	if cu.user != "" {
		opts = append(opts, redis.DialUsername(cu.user))
	}
	if cu.password != "" {
		opts = append(opts, redis.DialPassword(cu.password))
	}
	return opts
}
