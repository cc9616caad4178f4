package wpdb

import (
	"context"

	"github.com/wploadmore/wploadmore/blog"
)

// Test-only access to how a Store reads an archive.

// PlannedStore reads pages as its Store does, but an archive's dense
// (walking type_status_date) or sparse (from term_relationships)
// whatever its counts say; an archive of no category or tag is always
// read dense.
type PlannedStore struct {
	s      *Store
	sparse bool
}

// ForcePlan returns s reading archives sparse or dense.
func ForcePlan(s *Store, sparse bool) PlannedStore { return PlannedStore{s: s, sparse: sparse} }

// Posts is Store.Posts with the plan forced.
func (ps PlannedStore) Posts(ctx context.Context, p blog.Page) ([]blog.Post, error) {
	return blog.ReadPage(ctx, p, plannedReader{pageReader: pageReader{ps.s}, sparse: ps.sparse})
}

// plannedReader is pageReader with an archive's plan forced.
type plannedReader struct {
	pageReader
	sparse bool
}

func (r plannedReader) Archive(ctx context.Context, a blog.Archive, p blog.Page) ([]blog.Post, error) {
	return r.s.page(ctx, p, r.s.timeout, func(ctx context.Context, t *target) ([]pageRow, error) {
		return r.s.archiveRows(ctx, t, a.Filter(), forcedPlan(a, r.sparse), p)
	})
}

// forcedPlan reads a dense, or sparse driven by its smallest group.
func forcedPlan(a blog.Archive, sparse bool) func(int) archivePlan {
	return func(int) archivePlan {
		driver := -1
		for i, g := range a.Filter().Groups {
			if sparse && (driver < 0 || g.Count < a.Filter().Groups[driver].Count) {
				driver = i
			}
		}
		return archivePlan{driver: driver}
	}
}

// ArchiveSparse reports whether a page of walk entries of a is read
// sparse.
func ArchiveSparse(a blog.Archive, walk int) bool { return planArchive(a)(walk).sparse() }

// ArchiveQueryText returns the query of a page of a: the page after post
// after when it is not 0, else the page at offset.
func ArchiveQueryText(s *Store, a blog.Archive, after uint64, offset, limit int) string {
	return s.archivePageQuery(a.Filter(), planArchive(a), after, offset, limit)
}

// DenseArchiveQueryText is ArchiveQueryText with a walked whatever its
// counts say.
func DenseArchiveQueryText(s *Store, a blog.Archive, after uint64, offset, limit int) string {
	return s.archivePageQuery(a.Filter(), forcedPlan(a, false), after, offset, limit)
}
