package listing

import (
	"fmt"
	"runtime"
	"time"

	"github.com/wploadmore/wploadmore/internal/setting"
)

// Settings are a server's choices of what its listings show and how it
// keeps them, each a flag (see Group).
type Settings struct {
	Batch        int // desiredPosts when the request names none, and the page's step
	MaxBatch     int // the largest desiredPosts accepted
	MaxPagePosts int // the most posts a page renders
	CacheTTL     time.Duration
	SearchTTL    time.Duration // how long a search's ranking is paged through
	CacheDepth   int           // the newest posts the cache keeps as one page
	CacheEntries int           // most pages the cache keeps
	CacheBytes   int           // most bytes of posts the cache keeps
	SearchBytes  int           // most bytes of searches' rankings the cache keeps
	StickyPosts  bool          // the site's sticky posts first, as the blog's home has them
	Choices                    // the title, date format and image size, over the site's own
	// Locale, when set, is the site's locale over get_locale()'s, and
	// LanguagesDir the folder of its catalogues over WP_LANG_DIR's.
	Locale       string
	LanguagesDir string
}

// The defaults of the settings.
const (
	DefaultBatch    = 2 // the PHP script's step, which is also its first posts_start
	DefaultMaxBatch = 100
	// 200 posts are 100 clicks of the default batch: more than a reader
	// scrolls through, and under DefaultCacheDepth, so every page view,
	// with the post after it, is cut from memory.
	DefaultMaxPagePosts = 200
	DefaultCacheTTL     = time.Second
	// DefaultSearchTTL keeps a search's ranking while its reader goes
	// through its pages: a scan costs what WordPress's own search does.
	DefaultSearchTTL    = 5 * time.Minute
	DefaultCacheDepth   = 256
	DefaultCacheEntries = 1024
	DefaultCacheBytes   = 16 << 20
	// A ranking takes 24 bytes a post found: 16 MiB keep a few thousand
	// searches of a few hundred posts each.
	DefaultSearchBytes = 16 << 20
)

// minCacheBytes keeps -cache-bytes from being a typo that silently turns
// the cache into a pass-through: a few hundred posts must fit.
const minCacheBytes = 64 << 10

// maxBatchLimit bounds -max-batch: one answer of more posts is a dump of
// the site, not a "load more".
const maxBatchLimit = 1000

// Group is the table of s's settings, which start at their defaults.
func (s *Settings) Group() setting.Group {
	return setting.Group{
		Component: "Listing",
		Settings: []setting.Setting{
			{Name: "batch", Value: setting.Int(&s.Batch, DefaultBatch), Check: s.checkBatch,
				Usage: "posts per request when desiredPosts is absent, and per click on the page"},
			{Name: "max-batch", Value: setting.Int(&s.MaxBatch, DefaultMaxBatch), Check: s.checkMaxBatch,
				Usage: "largest desiredPosts accepted"},
			{Name: "max-page-posts", Value: setting.Int(&s.MaxPagePosts, DefaultMaxPagePosts), Check: setting.Positive(&s.MaxPagePosts),
				Usage: "most `posts` the page renders, whatever posts_start says: past 100 clicks a page is too long to read, and the script goes on through the JSON endpoint; at most -cache-depth - 1 keeps every page view in memory"},
			{Name: "cache-ttl", Value: setting.Duration(&s.CacheTTL, DefaultCacheTTL), Check: s.checkCacheTTL,
				Usage: "freshness bound: answers show the database as it was at most this long ago, served from memory (0: no cache, every request queries); sessions are never cached"},
			{Name: "cache-depth", Value: setting.Int(&s.CacheDepth, DefaultCacheDepth), Check: setting.Positive(&s.CacheDepth),
				Usage: "the newest `posts` the cache keeps as one page, refreshed by one query; deeper pages are kept one by one"},
			{Name: "cache-entries", Value: setting.Int(&s.CacheEntries, DefaultCacheEntries), Check: setting.Positive(&s.CacheEntries),
				Usage: "most pages of posts the cache keeps"},
			{Name: "cache-bytes", Value: setting.Int(&s.CacheBytes, DefaultCacheBytes), Check: setting.AtLeast(&s.CacheBytes, minCacheBytes),
				Usage: "most `bytes` of posts (titles, excerpts, names, dates) the cache keeps"},
			{Name: "search-bytes", Value: setting.Int(&s.SearchBytes, DefaultSearchBytes), Check: setting.AtLeast(&s.SearchBytes, minCacheBytes),
				Usage: "most `bytes` the cache keeps of searches' ranked results (about 24 a post found), for -search-ttl; each client address's at most an equal share among those keeping some, and one read in the last minute whose scan took over 0.1 s and four times a new one's is not dropped for it; else the least recently read are dropped first"},
			{Name: "search-ttl", Value: setting.Duration(&s.SearchTTL, DefaultSearchTTL), Check: setting.Positive(&s.SearchTTL),
				Usage: "how long a search's ranked results are kept and paged through, from one scan: a search lists posts published since it was first asked, and shows posts edited or deleted since, only after this"},
			{Name: "sticky-posts", Value: setting.Bool(&s.StickyPosts, false),
				Usage: "put the site's sticky posts first in the listing, as WordPress's blog home does (never in archives); the PHP script did not"},
			{Name: "title", Value: setting.String(&s.Title, ""),
				Usage: "page `title` (default: the site's blogname from the options table, else \"" + DefaultTitle + "\")"},
			{Name: "image-size", Value: setting.String(&s.ImageSize, DefaultImageSize), Check: s.checkImageSize,
				Usage: "the WordPress image `size` each post's featured image is shown at: thumbnail, medium, medium_large, large, full, or one a theme registers"},
			{Name: "date-format", Value: setting.String(&s.DateFormat, ""),
				Usage: "PHP date() `letters` post dates are shown with (default: the site's date_format, else \"" + DefaultDateFormat + "\")"},
			{Name: "locale", Value: setting.String(&s.Locale, ""), Check: s.checkLocale,
				Usage: "the site's `locale` (de_DE, ja…) over the one WordPress's get_locale() finds (the WPLANG option, else the WPLANG constant of -wp-config, else en_US), for a site whose language comes from a plugin"},
			{Name: "wp-languages", Value: setting.String(&s.LanguagesDir, ""),
				Usage: "`folder` of WordPress's catalogues ({locale}.mo), over the one WordPress finds from -wp-config (WP_LANG_DIR, else wp-content/languages, else wp-includes/languages); needed for a translated site with -db"},
		},
	}
}

func (s *Settings) checkMaxBatch() error {
	if s.MaxBatch < 1 || s.MaxBatch > maxBatchLimit {
		return fmt.Errorf("%d is not from 1 to %d", s.MaxBatch, maxBatchLimit)
	}
	return nil
}

func (s *Settings) checkBatch() error {
	if s.checkMaxBatch() != nil {
		return nil // -max-batch's own refusal says what to fix first
	}
	if s.Batch < 1 || s.Batch > s.MaxBatch {
		return fmt.Errorf("%d is not from 1 to -max-batch (%d)", s.Batch, s.MaxBatch)
	}
	return nil
}

func (s *Settings) checkCacheTTL() error {
	if s.CacheTTL < 0 {
		return fmt.Errorf("%v is negative", s.CacheTTL)
	}
	return nil
}

func (s *Settings) checkLocale() error {
	if s.Locale != "" && !validLocale(s.Locale) {
		return fmt.Errorf("%q is not a locale name (letters, digits, _, - and @, as de_DE or sr@latin)", s.Locale)
	}
	return nil
}

func (s *Settings) checkImageSize() error {
	if !IsImageSizeName(s.ImageSize) {
		return fmt.Errorf("%q is not a size name (letters, digits, _ and -)", s.ImageSize)
	}
	return nil
}

// CacheLimits sizes the post cache for a database pool of poolSize
// connections. Queries for pages not in memory are admitted up to half
// the pool, so the head's refresh, /readyz's ping and the options watch
// always find a connection free; and no more than the cores
// (GOMAXPROCS), as each admitted page is CPU work taken from the visitors
// served from memory. The rest are refused at once (see ErrBusy). One
// more connection is kept for the heads of archives readers came back to,
// when the pool leaves two free beside the misses.
func (s *Settings) CacheLimits(poolSize int) CacheLimits {
	misses := max(min(poolSize/2, runtime.GOMAXPROCS(0)), 1)
	reserved := 0
	if poolSize-misses >= 3 {
		reserved = 1
	}
	return CacheLimits{TTL: s.CacheTTL, Depth: s.CacheDepth, MaxEntries: s.CacheEntries, MaxBytes: s.CacheBytes,
		MaxMisses: misses, ReservedHeads: reserved, SearchBytes: s.SearchBytes, SearchTTL: s.SearchTTL}
}
