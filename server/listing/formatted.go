package listing

import (
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/lru"
	"github.com/wploadmore/wploadmore/internal/wplocale"
	"github.com/wploadmore/wploadmore/wpdb/media"
	"github.com/wploadmore/wploadmore/wpdb/permalink"
)

// formattedPostsBytes bounds the formatted posts kept: room for the heads
// of the blog and of a dozen archives (256 posts each, some 2 to 4 KB a
// post with its image), so that refreshing them formats only the posts
// that changed (docs/abuse.md).
const formattedPostsBytes = 16 << 20

// formattedPosts keeps each post as a Format last formatted it, by ID,
// with what it was formatted from: the post as read and the site's format
// version (see Format.Set). A post read again as it was, under the same
// version, is the Post kept, not formatted again; any change to what
// formatting reads (its title, excerpt, date, name, link's parts, image)
// or to the site's date format, zone, language, permalinks or images is
// formatted anew. It holds at most max bytes (postBytes and its input),
// the least recently used dropped first. It is safe for concurrent use.
type formattedPosts struct {
	mu   sync.Mutex
	kept *lru.Cache[uint64, *formattedPost] // under mu

	formats atomic.Int64 // posts formatted, whether kept or not (see Format.posts)
}

// formattedPost is a post as formatted, immutable once kept.
type formattedPost struct {
	from    blog.Post
	version uint64
	post    Post
}

func newFormattedPosts(maxBytes int) *formattedPosts {
	return &formattedPosts{kept: lru.New[uint64, *formattedPost](maxBytes, 0)}
}

// recall sets views[i] to the post kept for posts[i] under version, when
// there is one, and returns the positions of the others.
func (fp *formattedPosts) recall(posts []blog.Post, version uint64, views []Post) (missing []int) {
	fp.mu.Lock()
	defer fp.mu.Unlock()
	for i := range posts {
		kept, ok := fp.kept.Get(posts[i].ID)
		if ok && kept.version == version && samePost(&kept.from, &posts[i]) {
			views[i] = kept.post
			continue
		}
		missing = append(missing, i)
	}
	return missing
}

// keep keeps views[i], formatted from posts[i] under version, for each i
// of formatted.
func (fp *formattedPosts) keep(posts []blog.Post, formatted []int, version uint64, views []Post) {
	fp.mu.Lock()
	defer fp.mu.Unlock()
	for _, i := range formatted {
		p := &formattedPost{from: posts[i], version: version, post: views[i]}
		fp.kept.Add(p.from.ID, p, postBytes(&p.post)+inputBytes(&p.from))
	}
}

// samePost tells whether a and b are the same post as stored, in every
// field formatting reads.
func samePost(a, b *blog.Post) bool {
	x, y := *a, *b
	x.Thumbnail, y.Thumbnail = nil, nil
	if x != y || (a.Thumbnail == nil) != (b.Thumbnail == nil) {
		return false
	}
	return a.Thumbnail == nil || *a.Thumbnail == *b.Thumbnail
}

// inputBytes is what a kept post's input costs beside its Post, whose
// title, excerpt, name and date it shares.
func inputBytes(p *blog.Post) int {
	const structBytes = 200 // the blog.Post value with its headers
	n := structBytes + len(p.Type) + len(p.Category) + len(p.Author) + len(p.PagePath)
	if t := p.Thumbnail; t != nil {
		const attachmentBytes = 104
		n += attachmentBytes + len(t.MimeType) + len(t.GUID) + len(t.File) + len(t.Metadata) + len(t.Alt)
	}
	return n
}

// formatInputs is what formatting a post reads of s: two sites alike in
// it format every post alike. The options are read again every minute
// into a new Site; when nothing of this changed, the posts kept stay.
type formatInputs struct {
	DateFormat string
	Zone       *time.Location
	Links      permalink.Site
	Images     media.Settings
	ImageSize  string
	WPLocale   *wplocale.Locale
	Protected  string
}

func (s *Site) formatInputs() formatInputs {
	return formatInputs{DateFormat: s.DateFormat, Zone: s.Zone, Links: s.Links, Images: s.Images,
		ImageSize: s.ImageSize, WPLocale: s.WPLocale, Protected: s.words.protected}
}

// sameFormat tells whether a and b format every post alike: their inputs
// equal, pointers followed (a zone or locale read again equals the old
// one when it holds the same rules and names).
func sameFormat(a, b *Site) bool {
	return reflect.DeepEqual(a.formatInputs(), b.formatInputs())
}
