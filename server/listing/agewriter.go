package listing

import (
	"net/http"
	"strconv"
	"time"
)

// Writer returns w sending an Age header (RFC 9111 5.1) when the posts
// of its answer were served stale, set just before the status is written,
// when a's reads are done: the reader, and any cache in front, can tell
// the answer is past its max-age.
func (a *ServedAge) Writer(w http.ResponseWriter) http.ResponseWriter {
	return &agedWriter{ResponseWriter: w, served: a}
}

type agedWriter struct {
	http.ResponseWriter
	served  *ServedAge
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
