package cors

import "testing"

// TestSerializedOrigin checks the home address is turned into the Origin
// header a browser on that site sends, byte for byte, and that what no
// browser page can be an origin of allows none.
func TestSerializedOrigin(t *testing.T) {
	tests := []struct{ home, want string }{
		{"https://example.org", "https://example.org"},
		{"https://example.org/blog/", "https://example.org"},
		{"HTTPS://Example.ORG", "https://example.org"},
		{"https://example.org:443", "https://example.org"},
		{"http://example.org:80/", "http://example.org"},
		{"http://example.org:443", "http://example.org:443"},
		{"https://example.org:8443", "https://example.org:8443"},
		{" https://example.org ", "https://example.org"},
		{"http://[::1]:8080/", "http://[::1]:8080"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"https://user:pass@example.org", ""},
		{"ftp://example.org", ""},
		{"example.org", ""},
		{"//example.org", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := SerializedOrigin(tt.home); got != tt.want {
			t.Errorf("SerializedOrigin(%q) = %q; want %q", tt.home, got, tt.want)
		}
	}
}
