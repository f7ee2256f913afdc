package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFile checks that WriteFile creates and then replaces a file
// with exactly the data, private to the user, and leaves no temporary
// file behind; and that a failed write leaves the old file whole.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	for _, data := range []string{"first\n", "second, longer\n", ""} {
		if err := WriteFile(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != data {
			t.Fatalf("read %q %v, want %q", got, err, data)
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("mode %v %v", fi.Mode().Perm(), err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Fatalf("%d entries in the folder", len(entries))
		}
	}
	// The temporary name is taken by a folder: the write fails and the
	// file keeps its content.
	if err := os.Mkdir(path+".tmp", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("lost")); err == nil {
		t.Fatal("a write through an unusable temporary name succeeded")
	}
	if got, _ := os.ReadFile(path); string(got) != "" {
		t.Fatalf("after a failed write: %q", got)
	}
}
