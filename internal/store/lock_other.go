//go:build !unix

package store

import "os"

// lockFile opens (creating) the lock file at path. Other systems get no
// advisory lock: the node's data dir lock still keeps two nodes apart.
func lockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}
