package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestShellCommand checks the printed command line against a real shell:
// sh reads each argument back exactly as it was.
func TestShellCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"git", "tag", "-a", "-m", "Version 1.0.1", "1.0.1"}, "git tag -a -m 'Version 1.0.1' 1.0.1"},
		{[]string{"git", "-C", "/tmp/a b", "tag"}, "git -C '/tmp/a b' tag"},
		{[]string{"echo", "it's", "", "$HOME", "a;b", "*", "\\"}, `echo 'it'\''s' '' '$HOME' 'a;b' '*' '\'`},
		{[]string{"x@y", "k=v", "1,2", "a:b", "50%", "c+d"}, "x@y k=v 1,2 a:b 50% c+d"},
	}
	for _, tt := range tests {
		got := shellCommand(tt.args)
		if got != tt.want {
			t.Errorf("shellCommand(%q) = %s, want %s", tt.args, got, tt.want)
		}
		// printf prints each argument the shell parsed on a line of its own.
		line := "printf '%s\\n' " + shellCommand(tt.args)
		out, err := exec.Command("sh", "-c", line).Output()
		if err != nil {
			t.Fatalf("sh -c %s: %v", line, err)
		}
		if back := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); strings.Join(back, "\x00") != strings.Join(tt.args, "\x00") {
			t.Errorf("the shell read %q back as %q", tt.args, back)
		}
	}
}
