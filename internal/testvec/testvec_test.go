package testvec

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// notShared lists the testdata folders copied from elsewhere than
// ../shared/vectors; each has a README naming its source.
var notShared = []string{"bip370/", "coreparams/"}

// TestCopiesMatchShared checks that every vector file copied into testdata
// still equals its source in ../shared/vectors when that folder is present.
func TestCopiesMatchShared(t *testing.T) {
	shared, ok := SharedRoot()
	if !ok {
		t.Log("../shared/vectors not present; the copies in testdata are used as they are")
		return
	}
	n := 0
	err := filepath.WalkDir(Root(), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(Root(), p)
		for _, dir := range notShared {
			if strings.HasPrefix(filepath.ToSlash(rel), dir) {
				return nil
			}
		}
		want, err := os.ReadFile(filepath.Join(shared, rel))
		if err != nil {
			t.Errorf("%s: no source in ../shared/vectors: %v", rel, err)
			return nil
		}
		got, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from ../shared/vectors/%s", rel, rel)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no vector files found in testdata")
	}
}
