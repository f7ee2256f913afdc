// Package atomicfile owns the crash-safe replacement of small files: the
// new content is written under a temporary name, synced, renamed over the
// file and the folder synced, so that a crash leaves the old file or the
// new one, never a torn one.
package atomicfile

import (
	"os"
	"path/filepath"
)

// WriteFile replaces the file at path with data, private to the user
// (0600), through path+".tmp".
func WriteFile(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return SyncDir(filepath.Dir(path))
}
