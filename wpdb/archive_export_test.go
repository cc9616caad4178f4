package wpdb

// Test-only access to how a Store reads an archive.

// ForceArchivePlan returns a read dense (walking type_status_date) or
// sparse (from term_relationships) whatever its counts say; an archive of
// no category or tag is always read dense.
func ForceArchivePlan(a Archive, sparse bool) Archive {
	a.force = forceDense
	if sparse {
		a.force = forceSparse
	}
	return a
}

// ArchiveSparse reports whether a page of walk entries of a is read
// sparse.
func ArchiveSparse(a Archive, walk int) bool { return a.plan(walk).sparse() }

// ArchiveQueryText returns the query of a page of a: the page after post
// after when it is not 0, else the page at offset.
func ArchiveQueryText(s *Store, a Archive, after uint64, offset, limit int) string {
	return s.archivePageQuery(&a, after, offset, limit)
}

// ArchiveGroups returns the term_taxonomy_ids of each of a's groups, and
// those it excludes.
func ArchiveGroups(a Archive) (groups [][]uint64, excluded []uint64) {
	for _, g := range a.groups {
		groups = append(groups, g.ids)
	}
	return groups, a.notTerms
}
