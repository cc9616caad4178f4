package wpdb

import (
	"context"
	"fmt"
	"strings"
)

// Options are the site settings the server shows readers with, as
// WordPress stores them in <prefix>options. An empty field means the
// option is not set (or the table does not exist); the caller chooses
// the fallback.
type Options struct {
	// BlogName is blogname: the site title, as stored. WordPress stores it
	// escaped (esc_html), so it may hold character references: "Fish &amp;
	// Chips".
	BlogName string
	// DateFormat is date_format, in PHP date() letters ("F j, Y").
	DateFormat string
	// TimezoneString is timezone_string: an IANA name ("Europe/Paris"), or
	// empty when the site chose a UTC offset instead.
	TimezoneString string
	// GMTOffset is gmt_offset as stored: hours, possibly fractional and
	// negative ("5.75", "-3.5", "0").
	GMTOffset string
}

// optionNames are the rows Options reads, by option_name.
var optionNames = []string{"blogname", "date_format", "timezone_string", "gmt_offset"}

// Options reads the site's blogname, date_format, timezone_string and
// gmt_offset from <prefix>options. The server reads them once, at start.
// When the table does not exist (a posts table copied on its own, or the
// embedded demo database) it returns zero Options and no error.
//
// It returns an error wrapping [ErrUnavailable] when the database fails
// the queries or they run past the query timeout.
func (s *Store) Options(ctx context.Context) (Options, error) {
	return read(ctx, s, s.readOptions)
}

// readOptions is Options on t.
func (s *Store) readOptions(ctx context.Context, t *target) (Options, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	exists := "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
	if s.driver == DriverMySQL {
		exists = "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?"
	}
	var n int
	if err := t.db.QueryRowContext(ctx, exists, s.options).Scan(&n); err != nil {
		return Options{}, fmt.Errorf("wpdb: look for table %s: %w", s.options, unavailable(err))
	}
	if n == 0 {
		return Options{}, nil
	}
	// option_name is the table's unique key: four index lookups.
	query := "SELECT option_name, option_value FROM " + quoteIdent(s.driver, s.options) +
		" WHERE option_name IN (?" + strings.Repeat(", ?", len(optionNames)-1) + ")"
	args := make([]any, len(optionNames))
	for i, name := range optionNames {
		args[i] = name
	}
	rows, err := t.db.QueryContext(ctx, query, args...)
	if err != nil {
		return Options{}, fmt.Errorf("wpdb: read %s: %w", s.options, unavailable(err))
	}
	defer rows.Close()
	var o Options
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return Options{}, fmt.Errorf("wpdb: read %s: %w", s.options, unavailable(err))
		}
		switch name {
		case "blogname":
			o.BlogName = value
		case "date_format":
			o.DateFormat = value
		case "timezone_string":
			o.TimezoneString = value
		case "gmt_offset":
			o.GMTOffset = value
		}
	}
	if err := rows.Err(); err != nil {
		return Options{}, fmt.Errorf("wpdb: read %s: %w", s.options, unavailable(err))
	}
	return o, nil
}
