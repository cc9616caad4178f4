package main

import (
	"io"
	"log/slog"
	"sync"
)

// newAccessLogger is the logger of request lines: the format of -log-format,
// at level info whatever -log-level says, since -access-log alone decides
// whether they are written. An operator who sets -log-level warn to quiet
// the server's own news still wants to see who asked what; one who wants no
// request lines says -access-log off. w must be safe for concurrent writes
// by both loggers (see syncWriter).
func newAccessLogger(cfg Config, w io.Writer) *slog.Logger {
	if !cfg.AccessLog {
		return slog.New(slog.DiscardHandler)
	}
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// syncWriter serializes writes to w. Each slog handler writes a line in
// one Write under a lock of its own; with two handlers on one writer, the
// server's log and the access log, that lock no longer covers both, and a
// writer such as a test's buffer must not see two Writes at once.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
