package clienttest

import (
	"os"
	"testing"
)

// writeFile writes a test fixture file.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
