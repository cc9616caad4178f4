package wpdb

import "database/sql"

// PrimaryPool is the name StatsDBs gives the primary's pool; a replica's
// is its server, as ReplicaStatus.Name gives it.
const PrimaryPool = "primary"

// StatsDBs returns the connection pools behind the Store by name, the
// primary's and each replica's, for reading their Stats, as a metrics
// collector does (Prometheus's NewDBStatsCollector takes the *sql.DB
// itself). Queries go through the Store's methods, never through them:
// they hold the prepared statements, the deadlines, the table prefix and
// the choice of replica.
func (s *Store) StatsDBs() map[string]*sql.DB {
	pools := make(map[string]*sql.DB, 1+len(s.replicas))
	pools[PrimaryPool] = s.primary.db.DB
	for _, r := range s.replicas {
		pools[r.name] = r.db.DB
	}
	return pools
}

// PoolSize returns the most connections the primary's pool opens (each
// replica's is the same size): 16 on MySQL, 8 on SQLite. A caller that
// bounds its own queries below it keeps connections free for others, as
// the server's post cache keeps them for its head.
func (s *Store) PoolSize() int { return s.primary.db.Stats().MaxOpenConnections }
