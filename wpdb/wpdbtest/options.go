package wpdbtest

import (
	"context"
	"testing"
	"time"

	"github.com/wploadmore/wploadmore/wpdb"
)

// Options fills WordPress's <prefix>options table in cfg's database
// (creating it, as [wpsite.Schema] has it, when missing) with options
// (option_name to option_value), the way a WordPress install holds its
// settings. An option already set keeps its value. It fails t on any
// error.
func Options(t testing.TB, cfg wpdb.Config, options map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := openWriter(t, cfg)
	defer closeWriter(t, s)
	if err := s.InsertOptions(ctx, options); err != nil {
		t.Fatalf("wpdbtest: %v", err)
	}
}
