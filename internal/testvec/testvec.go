// Package testvec locates the conformance vectors that the tests read and
// keeps the lists of corpus cases that wait on features not yet built.
//
// The vectors live in the repository's top-level testdata folder, byte-for-byte
// copies of the shared vector set (testdata/README.md names their sources), so
// a fresh clone tests itself. Tests call Path or Load with a file name relative
// to that folder.
//
// # Pending features
//
// A corpus test runs every case whose method and features exist. The cases
// that need a feature still missing are named, by case id, in exactly one list
// per feature in pending.go; a test asks Pending(id) and reports the case as
// pending rather than skipping it silently. When a feature lands its list is
// deleted and its cases join the run.
package testvec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Root returns the absolute path of the repository's testdata folder.
func Root() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("testvec: cannot locate source file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata")
}

// Path returns the absolute path of a vector file given relative to
// testdata (for example "core_rpc/envelope.json").
func Path(name string) string {
	return filepath.Join(Root(), filepath.FromSlash(name))
}

// Load reads a vector file and decodes its JSON into v, failing the test with
// a clear message when the file is missing or malformed.
func Load(tb testing.TB, name string, v any) {
	tb.Helper()
	data, err := os.ReadFile(Path(name))
	if err != nil {
		tb.Fatalf("test vectors %s: %v (testdata/ is part of the repository)", name, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		tb.Fatalf("test vectors %s: %v", name, err)
	}
}

// SharedRoot returns the shared vector folder beside the repository
// (../shared/vectors), and whether it exists.
func SharedRoot() (string, bool) {
	dir := filepath.Join(Root(), "..", "..", "shared", "vectors")
	st, err := os.Stat(dir)
	return dir, err == nil && st.IsDir()
}
