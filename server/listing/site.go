package listing

import (
	"cmp"
	"fmt"
	"html"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/internal/wplocale"
	"github.com/wploadmore/wploadmore/wpdb/media"
	"github.com/wploadmore/wploadmore/wpdb/permalink"
)

// What the page shows when neither the operator nor the site's options
// say: the PHP script's own title and WordPress's default date_format; and
// the featured image's size, the largest of WordPress's default sizes
// below a full-width desktop column (768 px wide).
const (
	DefaultTitle      = "Load more posts"
	DefaultDateFormat = "F j, Y"
	DefaultImageSize  = "medium_large"
)

// IsImageSizeName reports whether name can name an image size: WordPress's
// own and the ones themes register are keys such as "post-thumbnail" or
// "1536x1536", of letters, digits, _ and -.
func IsImageSizeName(name string) bool {
	return name != "" && !strings.ContainsFunc(name, notImageSizeRune)
}

func notImageSizeRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
}

// Choices are what the operator set for how the listing shows, each
// winning over the site's options: Title and DateFormat "" leave them to
// the site's blogname and date_format, then to the defaults.
type Choices struct {
	Title      string // plain text
	DateFormat string // PHP date() letters
	ImageSize  string // a size name, as IsImageSizeName accepts
}

// Site is how the listing shows the site: the page title, its language,
// how post dates read, and what each post's link and featured image are
// built from. NewSite resolves it at start, and again whenever the
// options are read again (see WatchOptions).
type Site struct {
	Title      string         // plain text
	DateFormat string         // PHP date() letters
	Zone       *time.Location // the site's zone, for the e T P O c r U letters
	Links      permalink.Site // Home "" when the site's address is unknown: no links
	Images     media.Settings
	ImageSize  string
	// Locale is the site's locale ("de_DE"), as get_locale() finds it or
	// -locale sets it.
	Locale string
	// WPLocale is the site's language as WordPress's WP_Locale holds it:
	// month and day names, number format, direction.
	WPLocale *wplocale.Locale
	// words are WordPress's words for a visitor, in the site's language.
	words words
	// pageKey is what a page shows of the site beside its posts, for
	// telling kept pages apart (see writeViewHead); Format.Set makes it.
	pageKey string
	// formatVersion tells formats apart: Format.Set gives a site the
	// version of the one before when it formats posts alike (sameFormat).
	formatVersion uint64
}

// NewSite resolves the settings from chosen, then the site's options o
// (zero when it has no options table), then the defaults, in language
// lang. Options WordPress would not accept either (an unknown zone name,
// a gmt_offset that is no number) are logged to logger and skipped.
func NewSite(chosen Choices, o blog.Options, lang Language, logger *slog.Logger) Site {
	text := newHTMLText()
	s := Site{Title: chosen.Title, DateFormat: chosen.DateFormat, ImageSize: chosen.ImageSize,
		Locale: lang.Locale, WPLocale: wplocale.New(wplocale.Config{Locale: lang.Locale, Catalogue: lang.Catalogue,
			TextDirection: lang.TextDirection}),
		words: newWords(lang.Catalogue, text)}
	if s.Title == "" {
		// blogname is stored escaped ("Fish &amp; Chips"); the page template
		// escapes the title again.
		s.Title = cmp.Or(text.plain(o.BlogName), DefaultTitle)
	}
	if s.DateFormat == "" {
		// WordPress's installer stores __('F j, Y') in the install's
		// language; a site without the option reads as one installed in
		// its language now.
		s.DateFormat = cmp.Or(o.DateFormat, lang.Catalogue.Translate("", DefaultDateFormat))
	}
	zone, err := siteZone(o)
	if err != nil {
		logger.Warn("site options: zone: "+err.Error()+"; dates are shown in UTC",
			"timezone_string", o.TimezoneString, "gmt_offset", o.GMTOffset)
	}
	s.Zone = zone
	// get_option('home') falls back to siteurl on a site that lost its
	// home option, as WordPress's install sets both.
	s.Links = permalink.Site{Structure: o.PermalinkStructure, Home: cmp.Or(o.Home, o.SiteURL),
		ShowOnFront: o.ShowOnFront, PageOnFront: o.PageOnFront, Types: LinkTypes(o.Registry)}
	s.Images = media.Settings{
		UploadsURL: media.UploadsURL(o.SiteURL, o.ContentURL, o.UploadURLPath, o.UploadPath),
		Limits:     media.LimitsFromOptions(o.ImageSizes),
	}
	return s
}

// englishSite is the site a page is rendered for when its view names
// none: titled title, in English.
func englishSite(title string) *Site {
	s := &Site{Title: title, Locale: blog.DefaultLocale, WPLocale: wplocale.New(wplocale.Config{Locale: blog.DefaultLocale}),
		words: newWords(nil, newHTMLText())}
	s.pageKey = s.makePageKey()
	return s
}

// ProtectedExcerpt is what WordPress shows in place of a protected post's
// excerpt, in the site's language (plain text): the page's template
// reads it as protected_excerpt, and a script rendering posts in the
// browser can hand it the same.
func (s *Site) ProtectedExcerpt() string { return s.words.protectedExcerpt }

// count is n as number_format_i18n() writes it, in text: "1.234" on a
// German site, "1\u00a0234" on a French one.
func (s *Site) count(n int) string {
	return html.UnescapeString(s.WPLocale.Number(float64(n), 0))
}

// makePageKey is what pageKey holds: the title, the html lang and dir, and
// the number format (as a number with a thousands separator shows it).
func (s *Site) makePageKey() string {
	return strings.Join([]string{s.Title, s.WPLocale.LangAttr(), strconv.FormatBool(s.WPLocale.IsRTL()), s.count(1000)}, "\x00")
}

// siteZone is the zone WordPress's wp_timezone() gives: timezone_string
// when set, else gmt_offset hours as a fixed zone named like PHP's offset
// zones ("+05:45"), else UTC. With an error it also returns UTC.
func siteZone(o blog.Options) (*time.Location, error) {
	if o.TimezoneString != "" {
		loc, err := time.LoadLocation(o.TimezoneString)
		if err != nil {
			return time.UTC, fmt.Errorf("timezone_string %q: %w", o.TimezoneString, err)
		}
		return loc, nil
	}
	offset := strings.TrimSpace(o.GMTOffset)
	if offset == "" {
		return time.UTC, nil
	}
	hours, err := strconv.ParseFloat(offset, 64)
	if err != nil || math.Abs(hours) > 14 {
		return time.UTC, fmt.Errorf("gmt_offset %q is not a number of hours from -14 to 14", o.GMTOffset)
	}
	// wp_timezone_string(): whole hours, then the fraction as whole minutes.
	h := int(hours)
	m := int(math.Abs((hours - float64(h)) * 60))
	sign := '+'
	if hours < 0 {
		sign = '-'
	}
	seconds := (abs(h)*60 + m) * 60
	if sign == '-' {
		seconds = -seconds
	}
	return time.FixedZone(fmt.Sprintf("%c%02d:%02d", sign, abs(h), m), seconds), nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// date formats a stored post_date. post_date is the site's wall-clock
// time, so it is read in the site's zone: only the zone letters (e T P O c
// r U) depend on it. A time the clocks skipped (02:30 when summer time
// starts at 02:00) is shown moved on an hour, as WordPress's
// get_post_datetime() shows it; datetime keeps the stored value. A date
// that is no date ("0000-00-00 00:00:00", which WordPress stores for
// drafts) is shown as stored, with no datetime.
func (s *Site) date(stored string) (local, datetime string) {
	t, err := time.ParseInLocation(time.DateTime, stored, s.Zone)
	if err != nil {
		return stored, ""
	}
	// Parsed, so stored is "YYYY-MM-DD HH:MM:SS".
	return s.formatDate(s.DateFormat, t), stored[:10] + "T" + stored[11:]
}

// formatDate is wp_date() of t in format, in the site's language.
func (s *Site) formatDate(format string, t time.Time) string {
	return s.WPLocale.Date(format, t)
}

// card returns p's link and featured image.
func (s *Site) card(p *blog.Post) (link string, image *Image) {
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
			image = newImage(img)
		}
	}
	return link, image
}
