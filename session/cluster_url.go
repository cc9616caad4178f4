package session

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ClusterKeyPrefix is the key prefix of phpredis's rediscluster session
// handler, when its save_path sets no prefix=.
const ClusterKeyPrefix = "PHPREDIS_CLUSTER_SESSION:"

// keyPrefix is the single-node handler's default prefix.
const keyPrefix = "PHPREDIS_SESSION:"

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
// "PHPREDIS_SESSION:" for a single Redis.
func DefaultKeyPrefix(rawURL string) string {
	if !IsClusterURL(rawURL) {
		return keyPrefix
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

// parseClusterURL reads the cluster form. It splits the host list off by
// hand: url.Parse refuses more than one bracketed IPv6 address.
func parseClusterURL(rawURL string) (clusterURL, error) {
	scheme, rest, _ := strings.Cut(rawURL, "://")
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority := rest[:end]
	at := strings.LastIndex(authority, "@")
	hosts := authority[at+1:]
	u, err := url.Parse(scheme + "://" + authority[:at+1] + "seeds" + rest[end:])
	if err != nil {
		// url.Parse quotes the whole URL, password included.
		return clusterURL{}, errors.New("session: redis cluster URL does not parse; want " + clusterURLForm)
	}
	u.Host = hosts
	cu := clusterURL{tls: strings.EqualFold(scheme, clusterTLSScheme), safe: u.Redacted()}
	if u.User != nil {
		cu.user = u.User.Username()
		cu.password, _ = u.User.Password()
	}
	for h := range strings.SplitSeq(hosts, ",") {
		host, port, err := net.SplitHostPort(h)
		if err != nil || host == "" {
			return clusterURL{}, fmt.Errorf("session: redis cluster URL %s: seed %q is not host:port; want %s", cu.safe, h, clusterURLForm)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return clusterURL{}, fmt.Errorf("session: redis cluster URL %s: bad port %q", cu.safe, port)
		}
		cu.seeds = append(cu.seeds, net.JoinHostPort(host, port))
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
	if q.Has("auth") {
		// phpredis's auth= holds the password: keep it out of messages.
		hidden := url.Values{}
		for k, v := range q {
			hidden[k] = v
		}
		hidden.Set("auth", "xxxxx")
		u.RawQuery = hidden.Encode()
		cu.safe = u.Redacted()
	}
	for name, values := range q {
		v := values[len(values)-1]
		switch name {
		case "prefix":
			cu.prefix = v
		case "timeout", "read_timeout":
			// phpredis takes seconds, with a fraction.
			secs, err := strconv.ParseFloat(v, 64)
			if err != nil || secs < 0 || secs > 3600 {
				return clusterURL{}, fmt.Errorf("session: redis cluster URL %s: %s=%q is not a number of seconds", cu.safe, name, v)
			}
			d := time.Duration(secs * float64(time.Second))
			if name == "timeout" {
				cu.connectTimeout = d
			} else {
				cu.readTimeout = d
			}
		case "failover":
			// phpredis reads sessions from replicas with error
			// (replica first) or distribute (master or replica); only
			// our read-only GET (PeekPostsStart) may, as writes always go
			// to the master. redisc learns replicas from CLUSTER SLOTS,
			// where Redis 7.0 lists one only once it has replicated
			// something; until then reads go to the master.
			switch strings.ToLower(v) {
			case "", "none":
			case "error", "distribute":
				cu.readReplicas = true
			default:
				return clusterURL{}, fmt.Errorf("session: redis cluster URL %s: failover=%q is not none, error or distribute", cu.safe, v)
			}
		case "persistent":
			// Our connections are always pooled and kept.
		default:
			return clusterURL{}, fmt.Errorf("session: redis cluster URL %s: unknown parameter %q (known: prefix, timeout, read_timeout, failover, persistent; the password goes before @)", cu.safe, name)
		}
	}
	return cu, nil
}
