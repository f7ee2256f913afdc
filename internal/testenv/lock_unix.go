//go:build unix

package testenv

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on path, creating the file if
// needed, and returns the function that releases it. It blocks until the
// lock is free, so test binaries running at once take turns.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
