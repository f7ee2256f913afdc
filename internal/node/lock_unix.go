//go:build unix

package node

import (
	"os"
	"syscall"
)

// lockDir takes an exclusive advisory lock on <dir>/.lock, so that two
// nodes never share a data dir. The returned file holds the lock until
// closed.
func lockDir(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, errLocked
	}
	return f, nil
}
