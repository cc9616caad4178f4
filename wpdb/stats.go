package wpdb

import "database/sql"

// StatsDB returns the connection pool behind the Store, for reading its
// Stats, as a metrics collector does (Prometheus's NewDBStatsCollector
// takes the *sql.DB itself). Queries go through the Store's methods, never
// through it: they hold the prepared statements, the deadlines and the
// table prefix.
func (s *Store) StatsDB() *sql.DB {
	return s.db.DB
}
