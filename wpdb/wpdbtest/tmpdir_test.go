package wpdbtest

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// TestThrowawayLeavesTmpAlone: a throwaway server, its bootstrap
// included, keeps its temporary files in a folder of its own and leaves
// /tmp's alone. mariadbd deletes the #sql* files of its tmpdir when it
// starts; with /tmp there, the machine's MariaDB lost the temporary tables
// of queries it was running, and crashed.
func TestThrowawayLeavesTmpAlone(t *testing.T) {
	b := make([]byte, 6)
	rand.Read(b)
	sentinel := filepath.Join("/tmp", "#sql-temptable-wpdbtest-"+hex.EncodeToString(b)+".MAI")
	if err := os.WriteFile(sentinel, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(sentinel) })
	var m SocketOnlyMariaDB
	defer m.Stop()
	m.Socket(t)
	if _, err := os.Stat(sentinel); err != nil {
		t.Fatalf("a throwaway server's start removed the machine's temporary table %s: %v", sentinel, err)
	}
}
