// Package excerpt shapes a WordPress post's HTML content into the
// plain-text excerpt the "load more" endpoint returns: WordPress's
// registered shortcodes stripped as its strip_shortcodes strips them,
// markup removed, entities decoded, white space collapsed, cut to 200
// characters.
//
// It reads only as much of a post as the excerpt needs, so that its cost
// does not grow with the post, and it can tell from the start of a post
// whether the rest could still change the excerpt ([Shaper.FromStart]):
// the database layer reads a bounded start of each post's content, and
// the whole content only of the posts whose start does not decide. A
// [Memo] keeps the excerpts of the posts shaped last, by post version.
//
// It knows nothing of SQL; package wpdb reads the content.
package excerpt
