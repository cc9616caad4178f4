package listing

import (
	"context"
	"log/slog"
	"time"

	"github.com/wploadmore/wploadmore/wpdb"
)

// ArchiveSource is where an archive's posts come from; a *wpdb.Store is
// one. An archive is a category, tag, author or date the listing is
// narrowed to (see wpdb.ArchiveQuery); its pages are the listing's pages,
// in the same order, by offset or after a post.
type ArchiveSource interface {
	// PostsIn returns up to limit posts of archive a after skipping offset
	// of them.
	PostsIn(ctx context.Context, a wpdb.Archive, offset, limit int) ([]wpdb.Post, error)
	// PostsAfterIn returns up to limit posts of a after post lastID, or
	// PostsIn(ctx, a, offset, limit) when no row has that ID.
	PostsAfterIn(ctx context.Context, a wpdb.Archive, lastID uint64, offset, limit int) ([]wpdb.Post, error)
}

// CacheSource is what a Cache reads: the listing and its archives; a
// *wpdb.Store is one.
type CacheSource interface {
	Source
	ArchiveSource
}

// Archive is an archive as the listing reads it: looked up in a terms
// snapshot, and named by its canonical query vars
// (wpdb.ArchiveQuery.Values().Encode()), which a cache keeps its pages
// under: the same archive however its link spelled it.
type Archive struct {
	Key string
	In  wpdb.Archive
}

// DirectArchives reads archive pages without a cache, each formatted for
// the request that asked, as Direct reads the listing's.
type DirectArchives struct {
	source ArchiveSource
	format *Format
}

// NewDirectArchives reads archive pages from source, formatted by format.
func NewDirectArchives(source ArchiveSource, format *Format) DirectArchives {
	return DirectArchives{source: source, format: format}
}

// PostsIn returns limit posts of a after offset. It returns the source's
// errors as they are.
func (d DirectArchives) PostsIn(ctx context.Context, a Archive, offset, limit int) ([]Post, error) {
	posts, err := d.source.PostsIn(ctx, a.In, offset, limit)
	if err != nil {
		return nil, err
	}
	return d.format.Posts(posts)
}

// PostsAfterIn returns limit posts of a after post lastID. It returns the
// source's errors as they are.
func (d DirectArchives) PostsAfterIn(ctx context.Context, a Archive, lastID uint64, offset, limit int) ([]Post, error) {
	posts, err := d.source.PostsAfterIn(ctx, a.In, lastID, offset, limit)
	if err != nil {
		return nil, err
	}
	return d.format.Posts(posts)
}

// TermsReader is what WatchTerms needs of the database; a *wpdb.Store is
// one.
type TermsReader interface {
	Terms(ctx context.Context) (*wpdb.Terms, error)
}

// TermsEvery is how often the terms snapshot is read again for a
// freshness bound of ttl: twice within it, so that a category, tag or
// author added or renamed shows in archives within the bound, as a post
// does, while a read takes less than half of it. With no bound (the cache
// off), the default one's pace is kept: the snapshot is what keeps an
// unknown slug away from the database, so it is never read per request.
func TermsEvery(ttl time.Duration) time.Duration {
	if ttl <= 0 {
		ttl = time.Second
	}
	return ttl / 2
}

// WatchTerms reads the terms snapshot every period until ctx ends, and
// sends each read to updates, which it closes when it returns. A failed
// read is logged and the snapshot in use stays, as WatchOptions keeps the
// options: the next read may succeed, and meanwhile the posts of an
// archive are read (or fail) as any page is.
func WatchTerms(ctx context.Context, db TermsReader, every time.Duration, updates chan<- *wpdb.Terms, logger *slog.Logger) {
	defer close(updates)
	tick := time.NewTicker(every)
	defer tick.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		ts, err := db.Terms(ctx)
		if err != nil {
			// Twice a second: one line per outage, not one per read.
			if ctx.Err() == nil && !failing {
				logger.WarnContext(ctx, "database: reading the categories, tags and authors again failed; the last ones read stay in use", "err", err)
			}
			failing = true
			continue
		}
		if failing {
			logger.InfoContext(ctx, "database: categories, tags and authors read again")
			failing = false
		}
		select {
		case updates <- ts:
		case <-ctx.Done():
			return
		}
	}
}

// PostsIn is Cache.Posts in archive a: cut from the archive's own head of
// Depth posts, or kept under its exact range, with a's Key. It returns the
// source's errors, and ErrBusy as Posts does.
func (c *Cache) PostsIn(ctx context.Context, a Archive, offset, limit int) ([]Post, error) {
	return c.page(ctx, pageRange{archive: a.Key, offset: offset, limit: limit}, a.In)
}

// PostsAfterIn is Cache.PostsAfter in archive a.
func (c *Cache) PostsAfterIn(ctx context.Context, a Archive, lastID uint64, offset, limit int) ([]Post, error) {
	return c.page(ctx, pageRange{archive: a.Key, lastPost: lastID, offset: offset, limit: limit}, a.In)
}
