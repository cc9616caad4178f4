// Package pagewords is what the page and its widget say in their own words
// (the "More posts" button, the badge, the batch separators, the widget's
// announcements and errors) in the site's language: the gettext messages
// of the text domain wploadmore, the catalogues that translate them, and
// the words prepared from a catalogue once per locale, which the page
// carries to the browser so the widget never asks for them.
package pagewords

import "reflect"

// Domain is the words' text domain. A site's own translation of them is
// WP_LANG_DIR/plugins/wploadmore-{locale}.mo, where WordPress looks for a
// plugin's (see Catalogue).
const Domain = "wploadmore"

// A Message is one string to translate, as a .pot file lists it.
type Message struct {
	Context string // msgctxt; "" for none
	ID      string // msgid, the English
	Plural  string // msgid_plural; "" for a message without plural forms
	Comment string // for translators: where it shows, what each placeholder holds
}

// messages are the words, one field each; Messages lists them in field
// order, which is the .pot's.
type messages struct {
	More, PostsShown, PostOne, PostsRange, Loaded, NoMore, RequestFailed, TemplateFailed, NoPosts, Cap, Description Message
}

// table is every message the page and the widget show. A placeholder is
// PHP's (%s, %1$s), filled with a number as number_format_i18n() writes
// it or with the site's title.
func table() messages {
	return messages{
		More: Message{ID: "More posts",
			Comment: "The button under the posts that shows the next ones."},
		PostsShown: Message{ID: "Posts shown",
			Comment: "Label of the badge beside the page's heading; the number of posts on the page follows it."},
		PostOne: Message{Context: "batch separator", ID: "Post %s",
			Comment: "Separator above a batch of one post, added by one click. %s: the post's position in the list, counted from 1."},
		PostsRange: Message{Context: "batch separator", ID: "Posts %1$s to %2$s",
			Comment: "Separator above a batch of posts added by one click. 1: the position of its first post in the list, counted from 1; 2: of its last."},
		Loaded: Message{ID: "%s more post loaded.", Plural: "%s more posts loaded.",
			Comment: "Read out by screen readers, and shown under the button, after a click added posts. %s: how many were added."},
		NoMore: Message{ID: "No more data",
			Comment: "Shown and read out once the last post of the site is on the page: there are no more posts to load."},
		RequestFailed: Message{ID: "Loading more posts failed. Please try again.",
			Comment: "Shown when a click could not load the next posts (the network or the server failed); the button stays for another try."},
		TemplateFailed: Message{ID: "Posts cannot be loaded right now: the post template is unavailable.",
			Comment: "Shown when the page could not fetch the template posts are shown with; the button is removed."},
		NoPosts: Message{ID: "No posts yet.",
			Comment: "Shown in place of the list when the site has no published post."},
		Cap: Message{ID: "Without JavaScript this page shows at most %s post.", Plural: "Without JavaScript this page shows at most %s posts.",
			Comment: "Shown in place of the button in a browser without JavaScript, once the page holds the most posts it may. %s: that number."},
		Description: Message{ID: "%1$s: the latest posts, newest first, %2$s more at a time.", Plural: "%1$s: the latest posts, newest first, %2$s more at a time.",
			Comment: "The page's description for search engines. 1: the site's title; 2: how many posts one click adds."},
	}
}

// Messages are the words to translate, in the order of the .pot file.
func Messages() []Message {
	v := reflect.ValueOf(table())
	out := make([]Message, v.NumField())
	for i := range out {
		out[i] = v.Field(i).Interface().(Message)
	}
	return out
}
