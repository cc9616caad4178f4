package errorpage

import (
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var errBusy = errors.New("busy")

// texts words errBusy as a 503 and anything else as a 400 quoting it.
func texts(err error) (int, string, string) {
	if errors.Is(err, errBusy) {
		return http.StatusServiceUnavailable, "server busy", "1"
	}
	return http.StatusBadRequest, err.Error(), ""
}

// TestPages: a page made once is the page Render makes, returned with no
// allocation; any other is rendered, escaped, each time.
func TestPages(t *testing.T) {
	pages := Make(texts, errBusy)
	tests := []struct {
		name       string
		status     int
		message    string
		want       string
		wantAllocs bool
	}{
		{"made", 503, "server busy", "<h1>503 Service Unavailable</h1><p>server busy</p>", false},
		{"not made", 400, "bad <b>", "<h1>400 Bad Request</h1><p>bad &lt;b&gt;</p>", true},
		{"made text, other status", 500, "server busy", "<h1>500 Internal Server Error</h1><p>server busy</p>", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(pages.HTML(tt.status, tt.message))
			if diff := cmp.Diff(string(Render(tt.status, tt.message)), got); diff != "" {
				t.Errorf("page (-Render +HTML):\n%s", diff)
			}
			want := "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
				tt.want[len("<h1>"):len("<h1>")+len(http.StatusText(tt.status))+4] + "</title></head>\n<body>" + tt.want + "</body></html>\n"
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("page (-want +got):\n%s", diff)
			}
			allocs := testing.AllocsPerRun(20, func() { pages.HTML(tt.status, tt.message) })
			if (allocs > 0) != tt.wantAllocs {
				t.Errorf("%.0f allocations a page; want some: %v", allocs, tt.wantAllocs)
			}
		})
	}
}
