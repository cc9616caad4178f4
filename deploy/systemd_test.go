package deploy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const unitFile = "systemd/wploadmore.service"

// TestSystemdUnit checks the unit with systemd-analyze: verify (syntax,
// known settings, an executable ExecStart) and security --offline, whose
// exposure level must stay low. A copy of the unit runs the built binary,
// as /usr/local/bin/wploadmore is not installed here.
func TestSystemdUnit(t *testing.T) {
	analyze := requireTool(t, "systemd-analyze", "systemd", "/usr/bin/systemd-analyze")
	dir := t.TempDir()
	unit := filepath.Join(dir, "wploadmore.service")
	writeFile(t, dir, "wploadmore.service", templated(t, unitFile,
		"ExecStart=/usr/local/bin/wploadmore", "ExecStart="+serverBinary(t)))

	t.Run("verify", func(t *testing.T) {
		out, err := exec.Command(analyze, "verify", "--man=no", unit).CombinedOutput()
		if err != nil || len(strings.TrimSpace(string(out))) > 0 {
			t.Errorf("systemd-analyze verify: %v\n%s", err, out)
		}
	})
	t.Run("security", func(t *testing.T) {
		// 0 to 100; the unit scores 14 ("1.4 OK"), and systemd calls
		// anything under 20 "OK". A setting dropped or loosened shows here.
		out, err := exec.Command(analyze, "security", "--offline=yes", "--threshold=20", unit).CombinedOutput()
		if err != nil {
			t.Errorf("systemd-analyze security: %v\n%s", err, out)
		}
	})
}

// TestSystemdUnitSettings checks the hardening docs/deploying.md promises is in
// the unit, and that the variables it and env.example set are settings the
// server knows, with values it accepts.
func TestSystemdUnitSettings(t *testing.T) {
	b, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if key, value, ok := strings.Cut(strings.TrimSpace(line), "="); ok && !strings.HasPrefix(key, "#") {
			settings[key] = append(settings[key], value)
		}
	}
	for _, want := range []struct{ key, value string }{
		{"DynamicUser", "yes"},
		{"StateDirectory", "wploadmore"},
		{"EnvironmentFile", "-/etc/wploadmore/env"},
		{"Environment", "LOADMORE_DATA_DIR=%S/wploadmore"},
		{"ProtectSystem", "strict"},
		{"ProtectHome", "yes"},
		{"PrivateTmp", "yes"},
		{"NoNewPrivileges", "yes"},
		{"CapabilityBoundingSet", ""},
		{"RestrictAddressFamilies", "AF_INET AF_INET6 AF_UNIX"},
		{"SystemCallFilter", "@system-service"},
		{"MemoryDenyWriteExecute", "yes"},
		{"Restart", "on-failure"},
	} {
		found := false
		for _, v := range settings[want.key] {
			found = found || v == want.value
		}
		if !found {
			t.Errorf("%s has no %s=%s (it has %q)", unitFile, want.key, want.value, settings[want.key])
		}
	}

	t.Run("unit environment", func(t *testing.T) {
		var env []string
		for _, kv := range loadmoreVariables(string(b)) {
			// %S is the state root, /var/lib; %d the credentials folder.
			kv = strings.NewReplacer("%S", t.TempDir(), "%d", t.TempDir()).Replace(kv)
			env = append(env, kv)
		}
		if len(env) == 0 {
			t.Fatal("the unit sets no LOADMORE_ variable")
		}
		checkSettings(t, unitFile, env)
	})
	t.Run("env.example", func(t *testing.T) {
		b, err := os.ReadFile("systemd/env.example")
		if err != nil {
			t.Fatal(err)
		}
		// One at a time: the example's lines are alternatives.
		for _, kv := range loadmoreVariables(string(b)) {
			checkSettings(t, "systemd/env.example", []string{kv})
		}
	})
}
