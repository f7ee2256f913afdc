//go:build !unix

package node

import "os"

// lockDir creates <dir>/.lock; other systems get no advisory lock.
func lockDir(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}
