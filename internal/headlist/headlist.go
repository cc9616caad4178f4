// Package headlist reads the head of a list that a client sends (a query
// string's pairs, a header's elements), so that a long list costs no more
// than the bounds the reader sets: the server's query and header bounds and
// the compressor's Accept-Encoding share it.
package headlist

import "strings"

// Head is the start of a list of elements separated by sep within
// maxBytes and maxElements: whole elements only, so that no element is
// read cut.
func Head(value string, sep byte, maxBytes, maxElements int) string {
	if len(value) <= maxBytes && strings.Count(value, string(sep)) < maxElements {
		return value
	}
	head := value[:min(len(value), maxBytes)]
	end, elements := 0, 0
	for elements < maxElements {
		at := strings.IndexByte(head[end:], sep)
		if at < 0 {
			if len(head) == len(value) {
				end = len(head)
			}
			break
		}
		end += at + 1
		elements++
	}
	return strings.TrimSuffix(head[:end], string(sep))
}
