// Package push follows the change events the WordPress plugin publishes
// on Redis: it subscribes to their channel, checks their numbers against
// the counter key beside it, hands each event to a Refresher, and says
// whether the server may rely on them ("pushed") or must poll as before
// ("polling"). docs/push.md describes the events and the modes.
package push

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
)

// Schema is the version of the events' wire format this package reads,
// their "v". A field added or changed makes a new version.
const Schema = 1

// MaxEventBytes bounds an event: a request that changes ten thousand
// posts names them in well under this.
const MaxEventBytes = 256 << 10

// Kinds of change an event names.
const (
	KindPost        = "post"        // a post entered or left publish, or a published one changed
	KindTerm        = "term"        // a term created, edited, deleted, or a post's terms set
	KindMedia       = "media"       // a featured image: the published posts showing it, or with no post types an attachment whose posts are not known
	KindUser        = "user"        // an author's display name or nicename
	KindOption      = "option"      // an option the server reads
	KindRegistry    = "registry"    // the plugin's registry of post types and taxonomies
	KindActivated   = "activated"   // the plugin activated: events flow from now on
	KindDeactivated = "deactivated" // the plugin deactivated: no more events
	KindHeartbeat   = "heartbeat"   // nothing changed: the plugin is alive (WP-Cron, once a minute)
)

var kinds = []string{KindPost, KindTerm, KindMedia, KindUser, KindOption, KindRegistry, KindActivated, KindDeactivated, KindHeartbeat}

// Event is one request's changes, as the plugin sent it: what changed,
// never content. Only Seq and Kinds are always set.
type Event struct {
	Seq        int64    `json:"seq"`     // the counter key's value the event made
	V          int      `json:"v"`       // Schema
	TimeMS     int64    `json:"time_ms"` // when PHP sent it, Unix milliseconds
	Kinds      []string `json:"kinds"`
	Posts      []uint64 `json:"posts"`
	PostTypes  []string `json:"post_types"`
	Terms      []uint64 `json:"terms"`
	Taxonomies []string `json:"taxonomies"`
	Authors    []uint64 `json:"authors"`
	Dates      []string `json:"dates"` // YYYY-MM-DD, the site's time
	Options    []string `json:"options"`
}

// Has tells whether e names kind.
func (e Event) Has(kind string) bool { return slices.Contains(e.Kinds, kind) }

// Heartbeat tells whether e only says the plugin is alive: it changes
// nothing, so it refreshes nothing.
func (e Event) Heartbeat() bool {
	return !slices.ContainsFunc(e.Kinds, func(k string) bool { return k != KindHeartbeat })
}

// ErrMalformed is wrapped by Decode's errors.
var ErrMalformed = errors.New("push: malformed event")

var (
	namePattern = regexp.MustCompile(`^[A-Za-z0-9_:-]{1,64}$`) // post types, taxonomies, options
	datePattern = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
)

// Decode reads and checks one event: a JSON object of schema Schema, no
// field it does not know, a positive seq, known kinds, post and term IDs above zero, and
// names and dates in their forms. Its errors wrap ErrMalformed and quote
// nothing of data.
func Decode(data []byte) (Event, error) {
	if len(data) > MaxEventBytes {
		return Event{}, fmt.Errorf("%w: %d bytes", ErrMalformed, len(data))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var e Event
	if err := dec.Decode(&e); err != nil {
		return Event{}, fmt.Errorf("%w: not the JSON of an event", ErrMalformed)
	}
	if dec.More() {
		return Event{}, fmt.Errorf("%w: more after the event", ErrMalformed)
	}
	if err := e.check(); err != nil {
		return Event{}, fmt.Errorf("%w: %s", ErrMalformed, err)
	}
	return e, nil
}

// check is Decode's check of the fields.
func (e Event) check() error {
	switch {
	case e.V != Schema:
		return fmt.Errorf("schema %d, want %d", e.V, Schema)
	case e.Seq < 1:
		return errors.New("no seq")
	case len(e.Kinds) == 0:
		return errors.New("no kinds")
	}
	for _, k := range e.Kinds {
		if !slices.Contains(kinds, k) {
			return errors.New("unknown kind")
		}
	}
	// Author 0 is real: a post WordPress saved with no user logged in.
	for _, ids := range [][]uint64{e.Posts, e.Terms} {
		if slices.Contains(ids, 0) {
			return errors.New("an ID of 0")
		}
	}
	for _, names := range [][]string{e.PostTypes, e.Taxonomies, e.Options} {
		for _, n := range names {
			if !namePattern.MatchString(n) {
				return errors.New("a malformed name")
			}
		}
	}
	for _, d := range e.Dates {
		if !datePattern.MatchString(d) {
			return errors.New("a malformed date")
		}
	}
	return nil
}
