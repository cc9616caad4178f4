// Package excerpt shapes a WordPress post's HTML content into the
// plain-text excerpt the "load more" endpoint returns: registered
// shortcodes stripped as WordPress's strip_shortcodes strips them, markup
// removed, entities decoded, white space collapsed, cut to 200 characters.
//
// It reads only as much of a post as the excerpt needs, and can tell from
// the start of a post whether the rest could still change it
// ([Shaper.FromStart]), so the database layer reads a bounded start of each
// post. A [Memo] keeps the excerpts shaped last, by post version. It knows
// nothing of SQL.
package excerpt
