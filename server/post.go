package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"reflect"
	"strings"
	"sync/atomic"
	"time"

	"github.com/microcosm-cc/bluemonday"

	"github.com/wploadmore/wploadmore/wpdb"
	"github.com/wploadmore/wploadmore/wpdb/media"
	"github.com/wploadmore/wploadmore/wpdb/permalink"
	"github.com/wploadmore/wploadmore/wpdb/phpdate"
)

// postView is one post as readers get it: the JSON endpoint encodes it as
// one record, and the mustache template renders it, on the page and in the
// browser, under the same names.
//
// The first five fields are the PHP script's record. Their names, order and
// values are the drop-in promise to old clients and never change; fields
// added later go after them.
type postView struct {
	ID      uint64 `json:"ID"`
	Title   string `json:"post_title"`
	Excerpt string `json:"post_content"` // the PHP script's 200-character text
	Name    string `json:"post_name"`
	Date    string `json:"post_date"` // as stored

	// TitleText is post_title as readers read it: plain text, never markup.
	TitleText string `json:"title"`
	// LocalDate is post_date in the site's date format ("June 30, 2024").
	LocalDate string `json:"date"`
	// DateTime is post_date for <time datetime>: "2024-06-30T18:00:00",
	// the site's local time as stored, with no zone.
	DateTime string `json:"datetime"`
	// Protected is set for a post with a password: its post_content is the
	// empty excerpt ("..."), since nothing of its content is read, and the
	// page shows WordPress's own message in place of the excerpt.
	Protected bool `json:"protected"`
	// Link is the post's permalink, as get_permalink() builds it; left out
	// when the site's address is unknown (a posts table with no options).
	Link string `json:"link,omitempty"`
	// Image is the featured image as wp_get_attachment_image() renders it
	// at -image-size; left out when the post has none, and for a protected
	// post, whose image WordPress's own themes hide behind the password.
	Image *media.Image `json:"image,omitempty"`

	// Record is the view as one JSON record, made with the view: a cached
	// view is encoded once, not once per answer. See writeJSONViews.
	Record []byte `json:"-"`
}

// postFormat turns stored posts into views the way the site shows them,
// by the site's settings as last read (see watchOptions). It is safe for
// concurrent use.
type postFormat struct {
	site atomic.Pointer[siteSettings]
	text htmlText
}

func newPostFormat(site siteSettings, text htmlText) *postFormat {
	f := &postFormat{text: text}
	f.set(site)
	return f
}

// set makes later views follow site: a changed permalink structure or
// uploads address shows in every page read after it.
func (f *postFormat) set(site siteSettings) { f.site.Store(&site) }

func newPostViews(posts []wpdb.Post, f *postFormat) ([]postView, error) {
	site := f.site.Load()
	views := make([]postView, len(posts))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Not HTML-escaped: the JSON holds "a & b" as the notes promise, and
	// it is served as application/json with nosniff, never as markup.
	enc.SetEscapeHTML(false)
	for i, p := range posts {
		v := &views[i]
		*v = postView{ID: p.ID, Title: p.Title, Excerpt: p.Excerpt, Name: p.Name, Date: p.Date,
			TitleText: f.text.plain(p.Title), Protected: p.Protected}
		if p.Protected {
			// WordPress's protected_title_format, as the_title() shows it.
			v.TitleText = "Protected: " + v.TitleText
		}
		v.LocalDate, v.DateTime = site.date(p.Date)
		v.Link, v.Image = site.card(&p)
		buf.Reset()
		if err := enc.Encode(v); err != nil {
			return nil, fmt.Errorf("encode post %d: %w", p.ID, err)
		}
		v.Record = bytes.Clone(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
	return views, nil
}

// writeJSONViews writes views as the JSON array the endpoint answers: the
// bytes encoding/json gives for the slice, joined from each view's record.
func writeJSONViews(w io.Writer, views []postView) error {
	n := 3
	for i := range views {
		n += len(views[i].Record) + 1
	}
	body := make([]byte, 0, n)
	body = append(body, '[')
	for i := range views {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, views[i].Record...)
	}
	body = append(body, "]\n"...)
	_, err := w.Write(body)
	return err
}

// formattedPosts is the handlers' viewSource without the cache
// (-cache-ttl 0): each page is read and formatted for its request.
type formattedPosts struct {
	posts  postSource
	format *postFormat
}

func (f formattedPosts) Views(ctx context.Context, offset, limit int) ([]postView, error) {
	posts, err := f.posts.Posts(ctx, offset, limit)
	if err != nil {
		return nil, err
	}
	return newPostViews(posts, f.format)
}

func (f formattedPosts) ViewsAfter(ctx context.Context, lastID uint64, offset, limit int) ([]postView, error) {
	posts, err := f.posts.PostsAfter(ctx, lastID, offset, limit)
	if err != nil {
		return nil, err
	}
	return newPostViews(posts, f.format)
}

// date formats a stored post_date. post_date is the site's wall-clock
// time, so it is read in the site's zone: only the zone letters (e T P O c
// r U) depend on it. A time the clocks skipped (02:30 when summer time
// starts at 02:00) is shown moved on an hour, as WordPress's
// get_post_datetime() shows it; datetime keeps the stored value. A date
// that is no date ("0000-00-00 00:00:00", which WordPress stores for
// drafts) is shown as stored, with no datetime.
func (s *siteSettings) date(stored string) (local, datetime string) {
	t, err := time.ParseInLocation(time.DateTime, stored, s.Zone)
	if err != nil {
		return stored, ""
	}
	// Parsed, so stored is "YYYY-MM-DD HH:MM:SS".
	return phpdate.Format(s.DateFormat, t), stored[:10] + "T" + stored[11:]
}

// card returns p's link and featured image.
func (s *siteSettings) card(p *wpdb.Post) (link string, image *media.Image) {
	if s.Links.Home != "" {
		link = s.Links.Link(permalink.Post{ID: p.ID, Type: p.Type, Name: p.Name, Date: p.Date,
			Category: p.Category, Author: p.Author, PagePath: p.PagePath})
	}
	if t := p.Thumbnail; t != nil && !p.Protected {
		a := media.Attachment{ID: t.ID, MimeType: t.MimeType, GUID: t.GUID, File: t.File, Alt: t.Alt}
		// Metadata WordPress cannot read is none to it too: the image is
		// shown at its original file, of unknown size.
		a.Meta, _ = media.ParseMetadata([]byte(t.Metadata))
		if img, ok := s.Images.Image(a, s.ImageSize); ok {
			image = &img
		}
	}
	return link, image
}

// htmlText reads HTML as text: WordPress titles and the blog name are
// HTML (kses stores "&" as "&amp;", authors may add tags), and readers
// must see "Fish & Chips", not the markup. See the notes' "Content shaping".
type htmlText struct{ strict *bluemonday.Policy }

func newHTMLText() htmlText { return htmlText{strict: bluemonday.StrictPolicy()} }

// plain drops tags, comments and the content of script and style, decodes
// character references, and trims the spaces removed tags leave at the
// ends. The result is text for JSON and for {{ }}, which escapes it again.
func (h htmlText) plain(s string) string {
	return strings.TrimSpace(html.UnescapeString(h.strict.Sanitize(s)))
}

// templateData is views as the template's {{#data}} section reads them.
// mustache looks values up by name and cannot see a Go field under its JSON
// name, so each view becomes a map keyed by the JSON names, nested values
// too, without the fields the JSON leaves out: the server then renders
// exactly what the browser renders from the JSON.
func templateData(views []postView) map[string]any {
	items := make([]map[string]any, len(views))
	for i := range views {
		items[i] = jsonFields(reflect.ValueOf(views[i]))
	}
	return map[string]any{"data": items}
}

// jsonFields is the struct v as a map of its JSON names.
func jsonFields(v reflect.Value) map[string]any {
	typ := v.Type()
	item := make(map[string]any, typ.NumField())
	for f := range typ.NumField() {
		name, opts, _ := strings.Cut(typ.Field(f).Tag.Get("json"), ",")
		field := v.Field(f)
		if name == "-" || opts == "omitempty" && field.IsZero() {
			continue
		}
		if field.Kind() == reflect.Pointer && field.Type().Elem().Kind() == reflect.Struct {
			item[name] = jsonFields(field.Elem())
			continue
		}
		item[name] = field.Interface()
	}
	return item
}
