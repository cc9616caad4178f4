// Package errorpage makes the small HTML page an error is answered with on
// the page's routes: its status and a short message. The pages of the
// errors whose text never varies are made once (see Pages), so that a
// flood refused with 503s runs no template for each refusal.
package errorpage

import (
	"bytes"
	"html/template"
	"net/http"
)

var page = template.Must(template.New("error").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Status}} {{.Text}}</title></head>
<body><h1>{{.Status}} {{.Text}}</h1><p>{{.Message}}</p></body></html>
`))

// Render returns the page of status with message, escaped.
func Render(status int, message string) []byte {
	var b bytes.Buffer
	page.Execute(&b, struct {
		Status        int
		Text, Message string
	}{status, http.StatusText(status), message})
	return b.Bytes()
}

// Pages are the pages of some errors, made once. It is safe for
// concurrent use: it does not change once made.
type Pages struct{ made map[text][]byte }

// text is what a page shows: its status and message.
type text struct {
	status  int
	message string
}

// Make makes the pages of errs, each shown as texts words it (its status
// and message; the third result, unused, lets a server's own error
// mapping be passed as it is).
func Make(texts func(error) (int, string, string), errs ...error) Pages {
	made := make(map[text][]byte, len(errs))
	for _, err := range errs {
		status, message, _ := texts(err)
		made[text{status, message}] = Render(status, message)
	}
	return Pages{made: made}
}

// HTML returns the page of status with message: the one made, when p has
// it, else one rendered now (a client error's message may quote the
// request, so it is never kept).
func (p Pages) HTML(status int, message string) []byte {
	if b, ok := p.made[text{status, message}]; ok {
		return b
	}
	return Render(status, message)
}
