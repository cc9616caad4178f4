package main

import (
	"errors"
	"io/fs"
)

// overlayFS reads a file from top, and from base where top has none, so an
// operator's template folder need only hold the templates it changes.
type overlayFS struct {
	top, base fs.FS
}

func (o overlayFS) Open(name string) (fs.File, error) {
	f, err := o.top.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return o.base.Open(name)
	}
	return f, err
}
