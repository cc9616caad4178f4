package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
)

// clientRoundTrips are the Redis commands a client sends and waits for,
// with the round trips each costs; correct it when the session store
// changes how it talks to Redis. A WATCH attempt costs two: WATCH+GET
// pipelined, then MULTI+SETEX+EXEC pipelined (the GET, MULTI, SETEX and EXEC
// ride along, so they are not here). A Lua script's own GET, SETEX, EXPIRE
// and EXISTS run inside Redis, which commandstats counts too, and are not
// round trips either.
var clientRoundTrips = map[string]float64{"evalsha": 1, "eval": 1, "set": 1, "ping": 1, "watch": 2}

// roundTrips is the round trips per request of a per-request command mix.
func roundTrips(perRequest map[string]float64) (n float64) {
	for cmd, weight := range clientRoundTrips {
		n += weight * perRequest[cmd]
	}
	return n
}

// mix prints the commands per request, by name: the client commands
// always, the others Redis ran when at least once in 200 requests.
func mix(perRequest map[string]float64) string {
	cmds := slices.Collect(maps.Keys(clientRoundTrips))
	for cmd, n := range perRequest {
		if _, client := clientRoundTrips[cmd]; !client && n >= 0.005 {
			cmds = append(cmds, cmd)
		}
	}
	slices.Sort(cmds)
	parts := make([]string, len(cmds))
	for i, cmd := range cmds {
		parts[i] = fmt.Sprintf("%s %.2f", cmd, perRequest[cmd])
	}
	return strings.Join(parts, ", ")
}

// count is what Redis and MariaDB counted at one moment, or between two.
// Both count per instance: the bench's own redis-server serves only the
// bench, but on a shared MariaDB other clients' SELECTs count too (they can
// only add).
type count struct {
	redis   map[string]int64 // calls per command, INFO commandstats
	selects int64            // see selectsCounter
}

// selectsCounter is the status variable the bench counts queries with. On
// MariaDB 10.11 a SELECT run as a prepared statement (the store's page
// query) adds one to Com_select and one to Com_stmt_execute; a text query
// only to Com_select. So Com_select counts every SELECT once, and summing
// both would count the store's twice (TestCountersSelects).
const selectsCounter = "Com_select"

// readCount reads the counters of the Redis at redisURL and of db's MariaDB.
func readCount(ctx context.Context, redisURL string, db *sql.DB) (count, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := redis.DialURLContext(ctx, redisURL)
	if err != nil {
		return count{}, fmt.Errorf("redis counters: %w", err)
	}
	defer c.Close()
	info, err := redis.String(redis.DoContext(c, ctx, "INFO", "commandstats"))
	n := count{}
	if err == nil {
		n.redis, err = parseCommandstats(info)
	}
	var name string
	err2 := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE '"+selectsCounter+"'").Scan(&name, &n.selects)
	return n, errors.Join(err, err2)
}

// parseCommandstats reads INFO commandstats, lines such as
// "cmdstat_get:calls=21,usec=175,…", into calls per command.
func parseCommandstats(info string) (map[string]int64, error) {
	calls := map[string]int64{}
	for line := range strings.Lines(info) {
		name, stats, _ := strings.Cut(strings.TrimSpace(line), ":")
		cmd, ok := strings.CutPrefix(name, "cmdstat_")
		if !ok {
			continue
		}
		field, _, _ := strings.Cut(stats, ",")
		n, err := strconv.ParseInt(strings.TrimPrefix(field, "calls="), 10, 64)
		if err != nil || !strings.HasPrefix(field, "calls=") || n < 0 {
			return nil, fmt.Errorf("redis INFO commandstats: unexpected line %q", line)
		}
		calls[cmd] = n
	}
	return calls, nil
}

// since returns what was counted from before to n, leaving out the
// commands that did not run. Counters that went back (CONFIG RESETSTAT,
// FLUSH STATUS, a restart) are an error: the difference would mean nothing.
func (n count) since(before count) (count, error) {
	d := count{redis: map[string]int64{}, selects: n.selects - before.selects}
	back := d.selects < 0
	for cmd, calls := range n.redis {
		if calls -= before.redis[cmd]; calls != 0 {
			d.redis[cmd], back = calls, back || calls < 0
		}
	}
	if back {
		return count{}, errors.New("redis's or mariadb's counters went back during a scenario")
	}
	return d, nil
}
