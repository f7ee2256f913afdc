package node

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNodeName checks that a node's name is made once, kept private, read
// back the same at the next run, and that a damaged file is reported
// rather than replaced (a new name would make the node a stranger to its
// own wallet locks).
func TestNodeName(t *testing.T) {
	dir := t.TempDir()
	first, err := nodeName(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 32 {
		t.Fatalf("name %q", first)
	}
	fi, err := os.Stat(filepath.Join(dir, nodeNameFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("name file mode %v", fi.Mode().Perm())
	}
	again, err := nodeName(dir)
	if err != nil || again != first {
		t.Fatalf("second run: %q %v, first %q", again, err, first)
	}
	if other, err := nodeName(t.TempDir()); err != nil || other == first {
		t.Fatalf("another data dir: %q %v", other, err)
	}
	if err := os.WriteFile(filepath.Join(dir, nodeNameFile), []byte("not a name\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := nodeName(dir); err == nil {
		t.Fatal("a damaged name file was accepted")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("data dir holds %d files", len(entries))
	}
}
