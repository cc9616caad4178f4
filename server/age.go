package main

import (
	"net/http"
	"strconv"
	"time"

	"github.com/wploadmore/wploadmore/server/listing"
)

// agedWriter sends an Age header (RFC 9111 5.1) with a public answer whose
// posts the cache served stale, set just before the status is written:
// the reader, and any cache in front, can tell it is past its max-age.
type agedWriter struct {
	http.ResponseWriter
	served  *listing.ServedAge
	written bool
}

func (w *agedWriter) setAge() {
	if w.written {
		return
	}
	w.written = true
	if age, stale := w.served.Stale(time.Now()); stale {
		w.Header().Set("Age", strconv.Itoa(int(max(age, 0)/time.Second)))
	}
}

func (w *agedWriter) WriteHeader(status int) {
	w.setAge()
	w.ResponseWriter.WriteHeader(status)
}

func (w *agedWriter) Write(b []byte) (int, error) {
	w.setAge()
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection beneath.
func (w *agedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
