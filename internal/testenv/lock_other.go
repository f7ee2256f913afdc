//go:build !unix

package testenv

// lockFile is a no-op where advisory file locks are not available: the build
// writes to a temporary name and renames it, so a race costs only time.
func lockFile(path string) (func(), error) {
	return func() {}, nil
}
